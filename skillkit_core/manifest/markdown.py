"""A light scan of markdown text: fenced code, inline code, links, file mentions,
dynamic-context commands and suppression comments, each with its position.

Not a full CommonMark parser: it recognises what the SKILL.md rules need, line by line,
in one pass, so checking hundreds of skills stays fast. The scan is linear in the length
of the text, whatever it holds: no pattern can scan far ahead from one position and then
again from the next (a bracketed text holds no unbalanced bracket, a bare link target no
``]``, a ``<target>`` no ``<``, a suppression's rule list no ``[``), and finding whether a
position lies in a code span or a link is a binary search, not a walk over every span.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from skillkit_core.lint.diagnostic import SourceRange
from skillkit_core.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_INLINE_CODE = re.compile(r"(`+)(.+?)\1")
_LINK = re.compile(
    r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]"  # [text] (one level of balanced brackets)
    r"\(\s*(<[^<>\n]*>|[^)\s\]]+)"  # (target or <target>
    r"(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)"  # optional "title")
)
# Patterns only lines with a rare marker need ("]:", "!`", "skillkit"): compiled on first
# use (``re`` keeps them), not at every start.
_REF_DEFINITION = r"^ {0,3}\[[^\]]+\]:\s*(<[^>\n]*>|\S+)"
_DYNAMIC_INLINE = r"!`([^`\n]+)`"
_SUPPRESS = r"skillkit:\s*ignore(-file)?(?:\[([^\[\]]*)\])?"
_COMMENT_ONLY = r"^\s*(?:<!--.*-->|#.*)\s*$"
# A path under scripts/, references/ or assets/, globs and brace lists included
# (``references/agents-*-rules.md``, ``scripts/extract.{sh,ps1}``).
_FILE_MENTION = re.compile(
    r"(?:(?<=[\s`'\"(=])|^)"
    r"((?:\{baseDir\}/|\$\{?CLAUDE_SKILL_DIR\}?/|\./)?"
    r"(?:scripts|references|assets)/(?:[\w.\-/*?]|\{[\w.\-,*/]*\})*(?:[\w\-*]|\{[\w.\-,*/]*\}))"
)


def may_mention_paths(text: str) -> bool:
    """False when :func:`scan_markdown` can find no path mention in ``text`` (a few
    substring tests, where the scan reads every line): every mention holds one of the
    three folders."""
    return "scripts/" in text or "references/" in text or "assets/" in text


class Link(NamedTuple):
    """A markdown link or image target; ``range`` covers the target text."""

    target: str
    range: SourceRange
    image: bool = False


class Mention(NamedTuple):
    """A path under ``scripts/``, ``references/`` or ``assets/`` named in the text.

    ``fence`` is the info string of the fenced code block it is in (``""`` for a fence
    without one; ``None`` outside fences); ``inline`` says it is in a code span."""

    path: str
    range: SourceRange
    fence: str | None = None
    inline: bool = False


class Command(NamedTuple):
    """A ``!`command``` (or a line of a ````!`` block) run before the skill loads."""

    text: str
    range: SourceRange


class MarkdownScan:
    """What :func:`scan_markdown` found; line numbers are those of the whole file.

    ``code_lines`` are the lines inside fenced code; ``inline_code`` maps a line to the
    column spans of its code spans."""

    __slots__ = ("code_lines", "commands", "inline_code", "links", "mentions")

    def __init__(self) -> None:
        self.code_lines: set[int] = set()
        self.links: list[Link] = []
        self.mentions: list[Mention] = []
        self.commands: list[Command] = []
        self.inline_code: dict[int, list[tuple[int, int]]] = {}


def scan_markdown(lines: list[str], first_line: int = 0) -> MarkdownScan:
    """Scan ``lines`` (markdown without line breaks) whose first line is ``first_line``."""
    scan = MarkdownScan()
    rows = enumerate(lines, first_line)
    for line, text in rows:
        # A prose line nothing is found in: no fence (``` or ~~~), code span, link,
        # reference definition or path without one of these characters.
        if not ("`" in text or "~" in text or "]" in text or "/" in text):
            continue
        # Only a line holding ``` or ~~~ can open a fence (most lines do not).
        opener = _FENCE.match(text) if "```" in text or "~~~" in text else None
        if opener:
            scan.code_lines.add(line)
            _scan_fenced(scan, rows, opener.group(1), opener.group(2).strip())
            continue
        _scan_prose_line(scan, text, line)
    return scan


def _scan_fenced(
    scan: MarkdownScan, rows: Iterator[tuple[int, str]], fence: str, info: str
) -> None:
    """Take the lines of a fenced block opened by ``fence`` (its info string ``info``)
    from ``rows``, up to and with the line that closes it."""
    code_lines = scan.code_lines
    dynamic_block = info.startswith("!")
    for line, text in rows:
        if ("```" in text or "~~~" in text) and _closes(_FENCE.match(text), fence):
            return
        code_lines.add(line)
        if dynamic_block and text.strip():
            start = len(text) - len(text.lstrip())
            where = SourceRange(line, start, line, len(text))
            scan.commands.append(Command(text.strip(), where))
        if "/" in text:
            _mentions(scan, text, line, _NO_SPANS, fence=info)


# What makes a line one a link scan reads: a link's '](', a definition's ']:', or what
# may open or close a fence.
_LINK_SCAN_NEEDLES = ("](", "]:", "```", "~~~")


def scan_links(text: str) -> MarkdownScan:
    """The links of a whole markdown ``text`` (lines split at ``\n``, a ``\r`` before
    it dropped), as :func:`scan_markdown` finds them, with nothing else filled in. Only
    the lines holding one of :data:`_LINK_SCAN_NEEDLES` are looked at, found by substring
    searches (each needle's next place is kept until the scan passes it, so the text is
    searched once per needle): a reference of thousands of lines and a few links costs
    a few searches."""
    scan = MarkdownScan()
    # Past the line of the last '](' or ']:' no link can start: fences there change
    # nothing (a reference's code blocks often run on long after its links).
    last = max(text.rfind("]("), text.rfind("]:"))
    if last < 0:
        return scan
    after = [text.find(needle) for needle in _LINK_SCAN_NEEDLES]
    fence: str | None = None
    line = 0
    counted = 0  # the newlines before ``line`` are counted up to here
    while True:
        waiting = [place for place in after if place >= 0]
        if not waiting:
            break
        found = min(waiting)
        if found > last and text.rfind("\n", last, found) >= 0:
            break
        start = text.rfind("\n", counted, found) + 1
        end = text.find("\n", found)
        end = len(text) if end < 0 else end
        line += text.count("\n", counted, start)
        counted = start
        row = text[start:end].rstrip("\r")
        opener = _FENCE.match(row)
        if fence is not None:
            if _closes(opener, fence):
                fence = None
        elif opener:
            fence = opener.group(1)
        else:
            _scan_prose_line(scan, row, line, links_only=True)
        for index, place in enumerate(after):
            if 0 <= place <= end:
                after[index] = text.find(_LINK_SCAN_NEEDLES[index], end + 1)
    return scan


def _closes(opener: re.Match[str] | None, fence: str) -> bool:
    if opener is None or opener.group(2).strip():
        return False
    marker = opener.group(1)
    return marker[0] == fence[0] and len(marker) >= len(fence)


def _scan_prose_line(scan: MarkdownScan, text: str, line: int, links_only: bool = False) -> None:
    # Cheap character tests first: most prose lines hold no code, link or path at all.
    code = _NO_SPANS
    if "`" in text:
        spans = [m.span() for m in _INLINE_CODE.finditer(text)]
        if spans:
            if not links_only:
                scan.inline_code[line] = spans
            code = _Spans(spans)
        if "!`" in text and not links_only:
            for match in re.finditer(_DYNAMIC_INLINE, text):
                where = SourceRange(line, match.start(1), line, match.end(1))
                scan.commands.append(Command(match.group(1), where))
    taken: list[tuple[int, int]] = []
    if "](" in text:
        for match in _LINK.finditer(text):
            if code.covers(match.start()):
                continue
            target_start, target_end = match.start(1), match.end(1)
            target = match.group(1)
            if target.startswith("<"):
                target, target_start, target_end = target[1:-1], target_start + 1, target_end - 1
            scan.links.append(
                Link(
                    target,
                    SourceRange(line, target_start, line, target_end),
                    image=match.group(0).startswith("!"),
                )
            )
            taken.append((match.start(), match.end()))
    if "]:" in text:
        definition = re.match(_REF_DEFINITION, text)
        if definition:
            target, start = definition.group(1), definition.start(1)
            if target.startswith("<") and target.endswith(">") and len(target) > 1:
                target, start = target[1:-1], start + 1  # <target>: what is between
            scan.links.append(Link(target, SourceRange(line, start, line, start + len(target))))
            # It starts the line, and a link may lie inside its target: spans must merge.
            taken.insert(0, (definition.start(), definition.end()))
    if not links_only and "/" in text:
        _mentions(scan, text, line, _Spans(taken) if taken else _NO_SPANS, code=code)


def _mentions(
    scan: MarkdownScan,
    text: str,
    line: int,
    taken: _Spans,
    *,
    fence: str | None = None,
    code: _Spans | None = None,
) -> None:
    if "/" not in text or not may_mention_paths(text):
        return
    for match in _FILE_MENTION.finditer(text):
        start = match.start(1)
        if taken.covers(start):
            continue
        where = SourceRange(line, start, line, match.end(1))
        inline = code is not None and code.covers(start)
        scan.mentions.append(Mention(match.group(1), where, fence, inline))


class _Spans:
    """Column spans of one line, sorted by start (overlapping ones merged), asked
    whether they cover a position by binary search: a line of thousands of links and
    mentions costs thousands of lookups of a few steps, not millions of comparisons."""

    __slots__ = ("ends", "starts")

    def __init__(self, spans: list[tuple[int, int]]) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []
        for start, end in spans:
            if self.ends and start <= self.ends[-1]:
                self.ends[-1] = max(self.ends[-1], end)
            else:
                self.starts.append(start)
                self.ends.append(end)

    def covers(self, position: int) -> bool:
        index = bisect_right(self.starts, position) - 1
        return index >= 0 and position < self.ends[index]


_NO_SPANS = _Spans([])


class Suppressions(NamedTuple):
    """``skillkit: ignore[...]`` markers of one file.

    ``by_line`` maps a 0-based line to the rule ids suppressed there (``"*"`` for all);
    ``file_wide`` holds ids suppressed in the whole file (``ignore-file[...]``).
    """

    by_line: dict[int, frozenset[str]]
    file_wide: frozenset[str]

    def suppresses(self, rule: str, line: int | None) -> bool:
        """True when a marker hides ``rule`` on ``line`` (``None``: file-level findings)."""
        if rule in self.file_wide or "*" in self.file_wide:
            return True
        if line is None:
            return False
        ids = self.by_line.get(line, frozenset())
        return rule in ids or "*" in ids


NO_SUPPRESSIONS = Suppressions({}, frozenset())


def find_suppressions(lines: list[str]) -> Suppressions:
    """Collect markers; a comment alone on its line also covers the next line."""
    by_line: dict[int, set[str]] = {}
    file_wide: set[str] = set()
    for line, text in enumerate(lines):
        if "skillkit" not in text:
            continue
        comment_only: bool | None = None  # asked once per line, not once per marker
        for match in re.finditer(_SUPPRESS, text):
            ids = _ids(match.group(2))
            if match.group(1):
                file_wide |= ids
                continue
            by_line.setdefault(line, set()).update(ids)
            if comment_only is None:
                comment_only = re.match(_COMMENT_ONLY, text) is not None
            if comment_only:
                by_line.setdefault(line + 1, set()).update(ids)
    if not by_line and not file_wide:
        return NO_SUPPRESSIONS
    return Suppressions({k: frozenset(v) for k, v in by_line.items()}, frozenset(file_wide))


def _ids(text: str | None) -> set[str]:
    if text is None:
        return {"*"}
    return {part.strip() for part in text.split(",") if part.strip()}
