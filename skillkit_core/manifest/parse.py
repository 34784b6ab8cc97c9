"""Parse a SKILL.md into frontmatter, body and source positions, never raising.

Every problem the text has (no frontmatter, an unclosed one, invalid YAML, a frontmatter
that is not a mapping, duplicate keys, undecodable bytes) is returned as a
:class:`ParseProblem` with its position, so the linter, the language server and the
runtime can each decide what a problem means for them.

Positions are :class:`~skillkit_core.lint.diagnostic.SourceRange` values: 0-based lines
and code-point columns in the text *after* a leading byte-order mark is dropped. Lines
end at ``\\n``, ``\\r\\n`` or ``\\r`` (what editors count), not at the extra breaks YAML
knows; YAML marks are therefore mapped through their character index, not their line.

PyYAML is imported only when a frontmatter is actually parsed, and not even then when it
has the plain shape :mod:`skillkit_core.manifest.plain_yaml` reads.
"""

from __future__ import annotations

import os
import re
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from itertools import accumulate
from types import MappingProxyType

from skillkit_core.lint.diagnostic import SourceRange
from skillkit_core.manifest.listing import read_regular_file as read_regular_file
from skillkit_core.named_tuple import NamedTuple

TYPE_CHECKING = False

if TYPE_CHECKING:
    from os import PathLike
    from pathlib import Path
    from typing import Any

    import yaml

SKILL_MD = "SKILL.md"
# Read at most this much of a SKILL.md; a bigger file is reported and truncated.
MAX_BYTES = 4 * 1024 * 1024
# A frontmatter with more YAML nodes than this (alias bombs, generated junk) is refused.
MAX_NODES = 20_000

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_DELIMITER = re.compile(r"---[ \t]*")
# The shared default of the mapping fields below: read-only, so no caller can change it.
_EMPTY: Mapping[str, Any] = MappingProxyType({})


class ParseProblem(NamedTuple):
    """One reason the SKILL.md could not be read as the format requires.

    ``code`` is one of: ``missing-file``, ``unreadable``, ``too-large``, ``not-utf8``,
    ``no-frontmatter``, ``unclosed-frontmatter``, ``invalid-yaml``, ``not-a-mapping``,
    ``duplicate-key``, ``too-complex``.
    """

    code: str
    message: str
    range: SourceRange


class FieldSpan(NamedTuple):
    """Where one frontmatter key and its value sit in the file.

    ``style`` describes how the value was written: ``plain``, ``single``, ``double``,
    ``literal`` (``|``), ``folded`` (``>``), ``block`` (an indented mapping or list),
    ``flow`` (``[...]`` / ``{...}``) or ``empty`` (no value). ``children`` holds the spans
    of a mapping value's keys (e.g. ``metadata``), ``items`` the ranges of a list's items.
    ``scalar`` is a scalar value's text before YAML typed it (``1.0`` for ``v: 1.0``) and
    ``tag`` the YAML tag it resolved to (``tag:yaml.org,2002:float``); ``kind`` is
    ``scalar``, ``mapping`` or ``list``. ``value_range`` ends where the value's text ends
    (a block value's closing line break and indentation are not in it).
    """

    key: str
    key_range: SourceRange
    value_range: SourceRange
    style: str
    children: Mapping[str, FieldSpan] = _EMPTY
    items: tuple[SourceRange, ...] = ()
    scalar: str | None = None
    tag: str = ""
    kind: str = "scalar"
    anchor: str = ""
    """The value's anchor as written (``&name``), which a fix writing a new value keeps:
    aliases elsewhere name it."""


class YamlFeature(NamedTuple):
    """A YAML construct hosts' parsers do not all take: ``flow``, ``anchor``, ``alias``
    and ``tag`` (strict parsers refuse them), ``merge`` (a ``<<`` key, which YAML 1.1
    parsers merge and YAML 1.2 parsers keep as a key)."""

    kind: str
    range: SourceRange


class ParsedSkillMd(NamedTuple):
    """A SKILL.md split into its parts, with positions and problems as data.

    ``frontmatter`` is the parsed mapping (empty when there is none or it is invalid);
    ``fields`` maps each top-level key to its :class:`FieldSpan`; ``body`` is the text after
    the closing delimiter (the whole text when there is no frontmatter) and starts at line
    ``body_start_line``. ``yaml_start_line`` is the line of the first YAML line and
    ``frontmatter_end_line`` the line of the closing ``---`` (``None`` when absent).
    """

    path: str | None
    text: str
    frontmatter: Mapping[str, Any] = _EMPTY
    fields: Mapping[str, FieldSpan] = _EMPTY
    body: str = ""
    body_start_line: int = 0
    has_frontmatter: bool = False
    yaml_text: str = ""
    yaml_start_line: int = 1
    frontmatter_end_line: int | None = None
    duplicate_keys: tuple[FieldSpan, ...] = ()
    yaml_features: tuple[YamlFeature, ...] = ()
    problems: tuple[ParseProblem, ...] = ()
    had_bom: bool = False
    line_starts: tuple[int, ...] = (0,)

    @property
    def ok(self) -> bool:
        """True when the file has a well-formed frontmatter mapping."""
        return not self.problems

    @property
    def lines(self) -> list[str]:
        """The text's lines without their line breaks (editor line numbering)."""
        if "\r" not in self.text:  # the common case, without a regex
            return self.text.split("\n")
        return _LINE_BREAK.split(self.text)

    def position(self, offset: int) -> tuple[int, int]:
        """Map a character offset in ``text`` to a 0-based (line, column)."""
        return _position(self.line_starts, offset)

    def span(self, start: int, end: int) -> SourceRange:
        """A :class:`SourceRange` for the character offsets ``start``..``end`` of ``text``."""
        return _span(self.line_starts, start, end)

    def problem(self, code: str) -> ParseProblem | None:
        """The first problem with ``code``, if any."""
        return next((p for p in self.problems if p.code == code), None)


def _line_starts(text: str) -> tuple[int, ...]:
    if "\r" in text:
        return (0, *(m.end() for m in _LINE_BREAK.finditer(text)))
    # The common case, without a regex: each line start is the previous plus its length.
    return (0, *accumulate(len(line) + 1 for line in text.split("\n")[:-1]))


def _position(line_starts: tuple[int, ...], offset: int) -> tuple[int, int]:
    line = bisect_right(line_starts, offset) - 1
    return line, offset - line_starts[line]


def _span(line_starts: tuple[int, ...], start: int, end: int) -> SourceRange:
    line, column = _position(line_starts, start)
    end_line, end_column = _position(line_starts, max(start, end))
    return SourceRange(line, column, end_line, end_column)


def _line_range(line_starts: tuple[int, ...], text: str, line: int) -> SourceRange:
    """The range covering the content of ``line`` (without its line break)."""
    start = line_starts[line]
    end = line_starts[line + 1] if line + 1 < len(line_starts) else len(text)
    while end > start and text[end - 1] in "\r\n":
        end -= 1
    return _span(line_starts, start, end)


def parse_skill_md(text: str, path: str | None = None) -> ParsedSkillMd:
    """Split SKILL.md ``text`` into frontmatter and body, recording every problem.

    Never raises for any input: an empty string, binary garbage decoded with replacement
    characters, a byte-order mark, CRLF line ends and broken YAML all give a value whose
    ``problems`` say what is wrong and where.
    """
    had_bom = text.startswith("\ufeff")
    if had_bom:
        text = text[1:]
    starts = _line_starts(text)
    base: dict[str, Any] = {"path": path, "text": text, "had_bom": had_bom, "line_starts": starts}
    first_line = _LINE_BREAK.split(text, maxsplit=1)[0]
    if not _DELIMITER.fullmatch(first_line):
        message = (
            "SKILL.md is empty; it needs a YAML frontmatter between '---' lines"
            if not text.strip()
            else "SKILL.md must start with a '---' line opening the YAML frontmatter"
        )
        problem = ParseProblem("no-frontmatter", message, _line_range(starts, text, 0))
        return ParsedSkillMd(**base, body=text, problems=(problem,))

    closing = _closing_line(text, starts)
    if closing is None:
        problem = ParseProblem(
            "unclosed-frontmatter",
            "the frontmatter opened on line 1 is never closed by a '---' line",
            _line_range(starts, text, 0),
        )
        return ParsedSkillMd(**base, body="", body_start_line=len(starts), problems=(problem,))

    yaml_start = starts[1]
    yaml_text = text[yaml_start : starts[closing]]
    body_start_line = closing + 1
    body = text[starts[body_start_line] :] if body_start_line < len(starts) else ""
    result = _parse_yaml(yaml_text, yaml_start, starts)
    return ParsedSkillMd(
        **base,
        frontmatter=result.mapping,
        fields=result.fields,
        body=body,
        body_start_line=body_start_line,
        has_frontmatter=True,
        yaml_text=yaml_text,
        yaml_start_line=1,
        frontmatter_end_line=closing,
        duplicate_keys=tuple(result.duplicates),
        yaml_features=tuple(result.features),
        problems=tuple(result.problems),
    )


def frontmatter_end_line(lines: Sequence[str]) -> int | None:
    """The line of the ``---`` closing a frontmatter that the first of ``lines`` opens
    (lines without their breaks, a byte-order mark allowed first), or None when none is
    opened or it is never closed: the delimiters :func:`parse_skill_md` takes, for
    markdown whose YAML is not wanted (a reference file's headings start after it)."""
    if not lines or not _DELIMITER.fullmatch(lines[0].removeprefix("\ufeff")):
        return None
    return next((n for n in range(1, len(lines)) if _DELIMITER.fullmatch(lines[n])), None)


def _closing_line(text: str, starts: tuple[int, ...]) -> int | None:
    for line in range(1, len(starts)):
        end = starts[line + 1] if line + 1 < len(starts) else len(text)
        if _DELIMITER.fullmatch(text[starts[line] : end].rstrip("\r\n")):
            return line
    return None


class _YamlResult:
    __slots__ = ("duplicates", "features", "fields", "mapping", "problems")

    def __init__(self) -> None:
        self.mapping: dict[str, Any] = {}
        self.fields: dict[str, FieldSpan] = {}
        self.duplicates: list[FieldSpan] = []
        self.features: list[YamlFeature] = []
        self.problems: list[ParseProblem] = []


# Errors PyYAML lets escape besides YAMLError: bad timestamps and ints raise ValueError,
# deeply nested input exhausts the recursion limit.
_CONSTRUCT_ERRORS = (ValueError, TypeError, OverflowError, RecursionError, AttributeError)


def _parse_yaml(yaml_text: str, offset: int, starts: tuple[int, ...]) -> _YamlResult:
    from skillkit_core.manifest.plain_yaml import read_plain_frontmatter

    result = _YamlResult()
    plain = read_plain_frontmatter(
        yaml_text, lambda start, end: _span(starts, offset + start, offset + end)
    )
    if plain is not None:
        result.mapping, result.fields = plain
        return result
    return _parse_with_pyyaml(yaml_text, offset, starts)


def _without_surrogates(text: str) -> str:
    """``text`` with each lone surrogate (a byte that is not UTF-8, as ``surrogateescape``
    decodes it, or a ``\\udcff`` escape an editor sent) as U+FFFD, one for one so that
    offsets stay: the YAML parser encodes its input as UTF-8, which refuses them."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        import re

        return re.sub("[\ud800-\udfff]", "\ufffd", text)
    return text


_BREAKS_OF_YAML_1_1 = "\x85\u2028\u2029"
"""Line breaks to YAML 1.1 (PyYAML), plain characters to YAML 1.2 (section 5.4) and to the
hosts' JavaScript parsers: a description holding one was refused as invalid YAML."""
_STAND_INS = "\ue000\ue001\ue002"  # private-use characters taking their place while parsed


def _parse_with_pyyaml(yaml_text: str, offset: int, starts: tuple[int, ...]) -> _YamlResult:
    yaml_text = _without_surrogates(yaml_text)
    stood_in = any(c in yaml_text for c in _BREAKS_OF_YAML_1_1) and not any(
        c in yaml_text for c in _STAND_INS
    )
    parsed = yaml_text.translate(_TO_STAND_INS) if stood_in else yaml_text
    result = _parse_text_with_pyyaml(parsed, offset, starts)
    if stood_in:
        result.mapping = _restored(result.mapping)
    return result


_TO_STAND_INS = str.maketrans(_BREAKS_OF_YAML_1_1, _STAND_INS)
_FROM_STAND_INS = str.maketrans(_STAND_INS, _BREAKS_OF_YAML_1_1)


def _restored(value: Any) -> Any:
    if isinstance(value, str):
        return value.translate(_FROM_STAND_INS)
    if isinstance(value, dict):
        return {_restored(key): _restored(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_restored(item) for item in value]
    return value


def _parse_text_with_pyyaml(yaml_text: str, offset: int, starts: tuple[int, ...]) -> _YamlResult:
    import yaml

    result = _YamlResult()
    loader = _loader_class()(yaml_text)
    try:
        try:
            root = loader.get_single_node()
        except yaml.YAMLError as error:
            result.problems.append(_yaml_problem(error, offset, starts, yaml_text))
            return result
        except RecursionError:
            result.problems.append(
                ParseProblem(
                    "too-complex",
                    "the frontmatter is nested too deeply to parse",
                    _span(starts, offset, offset),
                )
            )
            return result
        if root is None or not isinstance(root, yaml.MappingNode):
            kind = "empty" if root is None else _node_kind(root)
            where = (
                _span(starts, offset, offset) if root is None else _node_range(root, offset, starts)
            )
            result.problems.append(
                ParseProblem(
                    "not-a-mapping",
                    f"the frontmatter must be a YAML mapping of keys to values, not {kind}",
                    where,
                )
            )
            return result
        walker = _NodeWalker(yaml_text, offset, starts)
        if not walker.walk(root):
            result.problems.append(
                ParseProblem(
                    "too-complex",
                    f"the frontmatter has more than {MAX_NODES} YAML nodes or a recursive alias",
                    _node_range(root, offset, starts),
                )
            )
            return result
        result.features = walker.features
        where = (yaml_text, offset, starts)
        result.fields, result.duplicates = _fields(root, where, walker.aliases)
        for dup in result.duplicates:
            result.problems.append(
                ParseProblem(
                    "duplicate-key", f"the key '{dup.key}' appears more than once", dup.key_range
                )
            )
        result.mapping = _construct_fields(loader, root, where, result.problems)
        return result
    finally:
        loader.dispose()


def _construct_fields(
    loader: Any,
    root: Any,
    where: tuple[str, int, tuple[int, ...]],
    problems: list[ParseProblem],
) -> dict[str, Any]:
    """Build each top-level value on its own, so one bad value hides none of the others."""
    import yaml

    yaml_text, offset, starts = where
    mapping: dict[str, Any] = {}
    for key_node, value_node in root.value:
        try:
            key = _construct(loader, key_node)
            value = _construct(loader, value_node)
        except yaml.YAMLError as error:
            problems.append(_yaml_problem(error, offset, starts, yaml_text))
            continue
        except _CONSTRUCT_ERRORS as error:
            problems.append(
                ParseProblem(
                    "invalid-yaml",
                    f"invalid YAML value: {error}",
                    _node_range(value_node, offset, starts),
                )
            )
            continue
        if isinstance(key, (dict, list)):
            problems.append(
                ParseProblem(
                    "invalid-yaml",
                    "a frontmatter key must be a plain value, not a list or mapping",
                    _node_range(key_node, offset, starts),
                )
            )
            continue
        mapping.setdefault(str(key), value)
    return mapping


_STR_TAG = "tag:yaml.org,2002:str"
_loader: Any = None


def _loader_class() -> Any:
    """PyYAML's safe loader (its C parser where built), except that a scalar it resolves
    to a date or an integer it then cannot make (``2025-02-29``, ``0x_``) is its text, as
    a YAML 1.2 parser reads it: it was an invalid-YAML error, which no host's JavaScript
    parser would raise (``yaml-typed-scalar`` still says the value is not plain text)."""
    global _loader
    if _loader is None:
        import yaml

        base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        _loader = type("TolerantSafeLoader", (base,), {})
        for tag, construct in (
            ("tag:yaml.org,2002:timestamp", yaml.SafeLoader.construct_yaml_timestamp),
            ("tag:yaml.org,2002:int", yaml.SafeLoader.construct_yaml_int),
        ):
            _loader.add_constructor(tag, _or_text(construct))
    return _loader


def _or_text(construct: Any) -> Any:
    def tolerant(loader: Any, node: Any) -> Any:
        try:
            return construct(loader, node)
        except (ValueError, OverflowError):
            return node.value

    return tolerant


def _construct(loader: Any, node: Any) -> Any:
    # A string scalar (most keys and values) constructs to its text: skip the machinery.
    if node.tag == _STR_TAG and node.id == "scalar":
        return node.value
    return loader.construct_object(node, deep=True)


def _yaml_problem(
    error: yaml.YAMLError, offset: int, starts: tuple[int, ...], yaml_text: str
) -> ParseProblem:
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    index = getattr(mark, "index", None)
    if index is None:
        index = getattr(error, "position", 0) or 0
    index = min(max(index, 0), len(yaml_text))
    problem = getattr(error, "problem", None)
    context = getattr(error, "context", None)
    if problem is None and hasattr(error, "reason"):
        problem = f"{error.reason} (character {getattr(error, 'character', '?')!r})"
    detail = ", ".join(str(part) for part in (context, problem) if part) or str(error)
    at = offset + index
    return ParseProblem("invalid-yaml", f"invalid YAML: {detail}", _span(starts, at, at + 1))


def _node_range(node: Any, offset: int, starts: tuple[int, ...]) -> SourceRange:
    return _span(starts, offset + node.start_mark.index, offset + node.end_mark.index)


def _node_kind(node: Any) -> str:
    import yaml

    if isinstance(node, yaml.SequenceNode):
        return "a list"
    return "a single value"


_KINDS = {"MappingNode": "mapping", "SequenceNode": "list"}
_STYLES = {"'": "single", '"': "double", "|": "literal", ">": "folded"}


def _style(node: Any) -> str:
    import yaml

    if isinstance(node, yaml.ScalarNode):
        if not node.style and node.value == "" and node.start_mark.index == node.end_mark.index:
            return "empty"
        return _STYLES.get(node.style or "", "plain")
    return "flow" if node.flow_style else "block"


def _fields(
    mapping: Any, where: tuple[str, int, tuple[int, ...]], aliases: list[tuple[int, int]]
) -> tuple[dict[str, FieldSpan], list[FieldSpan]]:
    """Spans of a mapping node's scalar keys; later duplicates are returned separately.
    A value given by an alias spans the alias (``aliases``: where each stands)."""
    import yaml

    yaml_text, offset, starts = where
    spans: dict[str, FieldSpan] = {}
    duplicates: list[FieldSpan] = []
    for key_node, value_node in mapping.value:
        if not isinstance(key_node, yaml.ScalarNode):
            continue
        children: dict[str, FieldSpan] = {}
        items: tuple[SourceRange, ...] = ()
        if isinstance(value_node, yaml.MappingNode):
            children, nested_dups = _fields(value_node, where, aliases)
            duplicates.extend(nested_dups)
        elif isinstance(value_node, yaml.SequenceNode):
            items = tuple(_node_range(item, offset, starts) for item in value_node.value)
        start, end = _value_extent(key_node, value_node, yaml_text, aliases)
        span = FieldSpan(
            key=key_node.value,
            key_range=_node_range(key_node, offset, starts),
            value_range=_span(starts, offset + start, offset + end),
            style=_style(value_node),
            children=children,
            items=items,
            scalar=value_node.value if isinstance(value_node, yaml.ScalarNode) else None,
            tag=value_node.tag or "",
            kind=_KINDS.get(type(value_node).__name__, "scalar"),
            anchor=_anchor(yaml_text, start) if start == value_node.start_mark.index else "",
        )
        if key_node.value in spans:
            duplicates.append(span)
        else:
            spans[key_node.value] = span
    return spans, duplicates


def _aliases(yaml_text: str) -> list[tuple[int, int]]:
    """Start and end of each alias in the text, in order: a composed alias is its
    anchor's node, so only the parser's events know where the ``*name`` stands."""
    import yaml

    return [
        (event.start_mark.index, event.end_mark.index)
        for event in yaml.parse(yaml_text, Loader=_loader_class())
        if isinstance(event, yaml.AliasEvent)
    ]


def _value_extent(
    key: Any, value: Any, yaml_text: str, aliases: list[tuple[int, int]]
) -> tuple[int, int]:
    """Where a key's value is written in ``yaml_text``: a value node that starts before
    its key ends is an anchor's, reached by the first alias after the key. PyYAML ends a
    block value (``|``, ``>``, an indented mapping) at the start of the line after it: the
    line break and indentation it takes in are left out, so that a fix writing a new value
    there keeps the line break that ends it."""
    end = key.end_mark.index
    if value.start_mark.index < end:
        from bisect import bisect_left

        at = bisect_left(aliases, (end, end))
        if at < len(aliases):
            return aliases[at]
    start, stop = value.start_mark.index, value.end_mark.index
    while stop > start and yaml_text[stop - 1] in " \t\r\n":
        stop -= 1
    return start, stop


_ANCHOR = re.compile(r"(?:![^\s]*\s+)?(&[^\s]+)")


def _anchor(yaml_text: str, start: int) -> str:
    """The anchor among the properties a node written at ``start`` opens with (a tag may
    come first: ``!!str &a value``)."""
    found = _ANCHOR.match(yaml_text, start)
    return found.group(1) if found else ""


class _NodeWalker:
    """Visit every node once, noting constructs strict YAML parsers reject.

    Refuses (returns False) on recursive aliases or more than ``MAX_NODES`` nodes, so an
    alias bomb is never constructed into Python values.
    """

    def __init__(self, yaml_text: str, offset: int, starts: tuple[int, ...]) -> None:
        self.yaml_text = yaml_text
        self.offset = offset
        self.starts = starts
        self.features: list[YamlFeature] = []
        self.count = 0
        self.seen: set[int] = set()
        # Where each alias (``*name``) stands in ``yaml_text``, when there are any.
        self.aliases: list[tuple[int, int]] = []

    def walk(self, root: Any) -> bool:
        import yaml

        # Each entry: a node, its ancestors' ids, and whether it is inside a node seen
        # before (an alias's copy: walked to count it, its constructs noted once already).
        stack: list[tuple[Any, tuple[int, ...], bool]] = [(root, (), False)]
        aliased = False
        while stack:
            node, ancestors, copied = stack.pop()
            self.count += 1
            if self.count > MAX_NODES or id(node) in ancestors:
                return False
            repeated = copied or id(node) in self.seen
            if not repeated:
                self._note(node)
            aliased = aliased or (repeated and not copied)
            self.seen.add(id(node))
            inner = (*ancestors, id(node))
            if isinstance(node, yaml.MappingNode):
                for key, value in node.value:
                    stack.append((key, inner, repeated))
                    stack.append((value, inner, repeated))
            elif isinstance(node, yaml.SequenceNode):
                stack.extend((item, inner, repeated) for item in node.value)
        if aliased:
            self.aliases = _aliases(self.yaml_text)
            self.features.extend(
                YamlFeature("alias", _span(self.starts, self.offset + start, self.offset + end))
                for start, end in self.aliases
            )
        return True

    def _note(self, node: Any) -> None:
        kinds = []
        lead = self.yaml_text[node.start_mark.index : node.start_mark.index + 1]
        if lead == "&":
            kinds.append("anchor")
        elif lead == "!":
            kinds.append("tag")
        if getattr(node, "flow_style", False) and not isinstance(node.value, str):
            kinds.append("flow")
        if node.tag == _MERGE:
            kinds.append("merge")
        if kinds:
            where = _node_range(node, self.offset, self.starts)
            self.features.extend(YamlFeature(kind, where) for kind in kinds)


_MERGE = "tag:yaml.org,2002:merge"


def refused_tabs(yaml_text: str) -> list[tuple[int, int]]:
    """(line, column) in ``yaml_text`` of each tab the reference validator refuses: in a
    plain value, after a colon, before a comment, at a line's end. Its error is the one
    PyYAML's own scanner gives ("found character '\\t' that cannot start any token", tried
    with skills-ref 0.1.1), while the C parser the check reads with takes them; so each is
    found by that scanner, set to a space, and the scan goes on. Tabs in quoted or block
    values and in comments pass both."""
    if "\t" not in yaml_text:
        return []
    import yaml

    found: list[tuple[int, int]] = []
    text = yaml_text
    while len(found) < MAX_TABS:
        try:
            for _token in yaml.scan(text, Loader=yaml.SafeLoader):
                pass
            return found
        except yaml.YAMLError as error:
            mark = getattr(error, "problem_mark", None)
            index = getattr(mark, "index", None)
            if index is None or text[index : index + 1] != "\t":
                return found  # another error: reported as invalid YAML, if at all
            found.append((mark.line, mark.column))
            text = text[:index] + " " + text[index + 1 :]
    return found


MAX_TABS = 20
"""Tabs reported at most (each costs a scan of the frontmatter)."""


def read_skill_md(folder_or_file: str | PathLike[str]) -> ParsedSkillMd:
    """Read and parse the SKILL.md of a skill folder (or a SKILL.md file itself).

    A folder without ``SKILL.md`` falls back to a lowercase ``skill.md`` when present (the
    reference validator accepts it). A missing or unreadable file, undecodable bytes and
    files over ``MAX_BYTES`` become problems of the returned value; nothing is raised.
    """
    target = os.fspath(folder_or_file)
    try:
        file, data = _read_manifest(target)
    except OSError as error:
        message = f"cannot read {error.filename}: {error.strerror or error}"
        problem = ParseProblem("unreadable", message, _ZERO)
        return ParsedSkillMd(path=error.filename, text="", problems=(problem,))
    if data is None:
        if os.path.lexists(file) and not os.path.isfile(file):
            kind = "a folder" if os.path.isdir(file) else "not a regular file"
            return _missing(file, f"{file} is {kind}; {SKILL_MD} must be a regular file")
        return _missing(file, f"no {SKILL_MD} found at {file}")
    return parse_skill_md_bytes(data, file)


def parse_skill_md_bytes(data: bytes, file: str) -> ParsedSkillMd:
    """:func:`read_skill_md`'s value for the manifest at ``file`` holding ``data`` (read
    already): at most ``MAX_BYTES`` of it parsed, undecodable bytes replaced, both
    noted as problems."""
    extra: list[ParseProblem] = []
    if len(data) > MAX_BYTES:
        data = data[:MAX_BYTES]
        message = f"{SKILL_MD} is larger than {MAX_BYTES} bytes; only the start was read"
        extra.append(ParseProblem("too-large", message, _ZERO))
    text, bad_at = _decode(data)
    parsed = parse_skill_md(text, file)
    if bad_at is not None:
        line, column = parsed.position(max(0, bad_at - (1 if parsed.had_bom else 0)))
        extra.append(
            ParseProblem(
                "not-utf8",
                f"{SKILL_MD} is not valid UTF-8; undecodable bytes were replaced",
                SourceRange(line, column, line, column + 1),
            )
        )
    if not extra:
        return parsed
    return parsed._replace(problems=(*extra, *parsed.problems))


_ZERO = SourceRange(0, 0, 0, 0)


def _read_manifest(target: str) -> tuple[str, bytes | None]:
    """The manifest path and (up to ``MAX_BYTES + 1``) bytes for a folder or file path;
    ``None`` bytes when there is no manifest regular file (the path is then where it was
    expected: ``folder/SKILL.md``, or the file path given). Opens the files it looks for
    instead of asking first (each question is a system call, and this runs per folder);
    an error other than "not there" is raised with the path as ``filename``."""
    for name in (SKILL_MD, "skill.md"):
        candidate = os.path.join(target, name)
        data = _read_inside(candidate, target)
        if data is not None:
            return candidate, data
    if os.path.isdir(target):
        return os.path.join(target, SKILL_MD), None
    return target, _read_inside(target, os.path.dirname(target) or ".")


def _read_inside(file: str, folder: str) -> bytes | None:
    """The manifest's bytes, as :func:`read_regular_file` reads them, when ``file`` is no
    symbolic link or one that stays inside ``folder``. A link leading out is refused
    (``OSError``): it would print another file into findings and previews (a SKILL.md
    linked to ``/proc/self/environ`` showed the environment, secrets included, in a CI
    log), and the linter reads no file linked from outside a skill."""
    import errno

    try:
        return read_regular_file(file, MAX_BYTES + 1, follow=False)
    except OSError as error:
        if error.errno not in (errno.ELOOP, errno.EMLINK) or not os.path.islink(file):
            raise
    real, real_folder = os.path.realpath(file), os.path.realpath(folder)
    if os.path.commonpath([real, real_folder]) != real_folder:
        raise OSError(
            errno.EACCES,
            "it is a symbolic link to a file outside the skill folder, which is not read",
            file,
        )
    return read_regular_file(file, MAX_BYTES + 1)


def find_skill_md(folder: str | PathLike[str]) -> Path | None:
    """The manifest file of ``folder``: ``SKILL.md``, else ``skill.md``, else ``None``."""
    from pathlib import Path

    for name in (SKILL_MD, "skill.md"):
        candidate = Path(folder, name)
        if candidate.is_file():
            return candidate
    return None


def _missing(path: str, message: str) -> ParsedSkillMd:
    problem = ParseProblem("missing-file", message, _ZERO)
    return ParsedSkillMd(path=path, text="", problems=(problem,))


def _decode(data: bytes) -> tuple[str, int | None]:
    """Decode UTF-8; on failure replace bad bytes and return the first bad character index."""
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as error:
        good = data[: error.start].decode("utf-8")
        return data.decode("utf-8", errors="replace"), len(good)
