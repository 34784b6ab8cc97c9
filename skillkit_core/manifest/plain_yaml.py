"""The frontmatter most skills write, read without importing PyYAML.

Importing PyYAML costs about 10 ms (its reader compiles a regular expression over all of
Unicode, its loader and dumper modules come along), a third of what ``skillkit check``
takes on one skill folder. Most frontmatters are a few ``key: value`` lines and perhaps
one nested mapping (``metadata:``), whose meaning YAML leaves no room to doubt. This
module reads exactly that shape; for anything else it answers ``None`` and PyYAML reads
the text, so every rule that needs YAML's full grammar still gets it.

Accepted, and nothing more:

- lines ``key: value`` at column 0, and ``key:`` alone followed by indented lines
  ``key: value`` that all share one indentation (a one-level block mapping);
- keys of ASCII letters, digits, ``-`` and ``_`` starting with a letter;
- values: a plain scalar starting with a letter, without ``": "``, ``" #"`` or a
  trailing ``:``, that YAML's implicit resolvers leave a string or read as a boolean
  (``true``, ``off``, ...; not ``null`` and the like), on one line or continued on more
  indented lines; a quoted scalar on one line without escapes or quotes inside; a block
  scalar (``|``, ``|-``, ``>``, ``>-``) whose lines all have one indentation;
- blank lines (not inside a block scalar); no tabs, carriage returns, comments,
  duplicate keys or characters YAML refuses or reads as line breaks.

``tests/core/manifest/test_plain_yaml.py`` checks that every text this module accepts
parses to the same values, spans, styles and tags through PyYAML (on the corpus and on
generated text).
"""

from __future__ import annotations

import re

from skillkit_core.manifest.parse import FieldSpan, _line_starts

TYPE_CHECKING = False

if TYPE_CHECKING:
    from collections.abc import Callable

    from skillkit_core.lint.diagnostic import SourceRange

    Span = Callable[[int, int], SourceRange]

_TAG = "tag:yaml.org,2002:"
_LINE = re.compile(r"( *)([A-Za-z][A-Za-z0-9_-]*):(?: +(\S.*?))? *")
_DOUBLE = re.compile(r'"[^"\\]*"')
_SINGLE = re.compile(r"'[^']*'")
_BLOCK_STYLES = {"|": "literal", "|-": "literal", ">": "folded", ">-": "folded"}


_MAX_KEY = 1024
"""The longest implicit key YAML allows (1.2, section 7.4.2 and 8.2.2): PyYAML refuses a
longer one, so such a frontmatter is left to it and gets its error."""


def _spellings(*words: str) -> frozenset[str]:
    return frozenset(form for word in words for form in (word, word.capitalize(), word.upper()))


# Plain scalars PyYAML's implicit resolvers type as booleans or null (YAML 1.1); every
# other plain scalar starting with a letter stays a string (numbers, dates, ``.inf``,
# ``<<`` and ``=`` start with something else).
_TRUE = _spellings("yes", "true", "on")
_FALSE = _spellings("no", "false", "off")
_NULL = _spellings("null")
# Characters outside printable ASCII that YAML refuses (C1 controls, surrogates, the
# byte-order mark, non-characters) or reads as line breaks (NEL, LS, PS).
_REFUSED = frozenset(range(0x7F, 0xA0)) | frozenset(range(0xD800, 0xE000))
_REFUSED |= {0x2028, 0x2029, 0xFEFF, 0xFFFE, 0xFFFF}
_ASCII_UNSAFE = re.compile(r"[^\n\x20-\x7e]")


class _Unread(Exception):
    """The text leaves the plain shape: PyYAML reads it."""


def read_plain_frontmatter(
    yaml_text: str, span: Span
) -> tuple[dict[str, object], dict[str, FieldSpan]] | None:
    """The mapping and field spans of ``yaml_text`` if it has the plain shape above,
    else ``None``. ``span(start, end)`` turns offsets in ``yaml_text`` into a range."""
    if not _characters_safe(yaml_text):
        return None
    try:
        return _Reader(yaml_text, span).read()
    except _Unread:
        return None


class _Block:
    """The keys of one mapping read so far; a nested one knows the key that opened it."""

    __slots__ = ("fields", "first", "indent", "key", "key_range", "key_start", "values")

    def __init__(
        self, key: str = "", key_start: int = 0, key_range: SourceRange | None = None
    ) -> None:
        self.key = key
        self.key_start = key_start
        self.key_range = key_range
        self.indent = 0
        self.first = 0
        self.values: dict[str, object] = {}
        self.fields: dict[str, FieldSpan] = {}

    def add(self, key_start: int, value: object, field: FieldSpan) -> None:
        if field.key in self.values:
            raise _Unread
        if not self.fields:
            self.first = key_start
        self.values[field.key] = value
        self.fields[field.key] = field


class _Reader:
    """One pass over the lines; each method reads one construct or raises ``_Unread``."""

    def __init__(self, text: str, span: Span) -> None:
        self.text = text
        self.span = span
        self.lines = text.split("\n")
        self.starts = _line_starts(text)  # text holds no "\r" (_characters_safe)
        self.at = 0

    def read(self) -> tuple[dict[str, object], dict[str, FieldSpan]] | None:
        top = _Block()
        nested: _Block | None = None
        while self.at < len(self.lines):
            line, start = self.lines[self.at], self.starts[self.at]
            if not line.strip(" "):
                self.at += 1
                continue
            indent = len(line) - len(line.lstrip(" "))
            if not indent:
                if nested is not None:
                    self._close(nested, top, start)
                block, nested = top, None
            elif nested is not None and nested.indent in (0, indent):
                block, nested.indent = nested, indent
            else:
                raise _Unread
            opened = self._entry(block, line, start)
            if opened is not None:
                if block is not top:
                    raise _Unread
                nested = opened
        if nested is not None:
            self._close(nested, top, len(self.text))
        return (top.values, top.fields) if top.values else None

    def _entry(self, block: _Block, line: str, start: int) -> _Block | None:
        """Read the ``key: value`` at the current line (and the lines its value goes
        on to); a ``key:`` alone opens (and returns) a nested block."""
        match = _LINE.fullmatch(line)
        if match is None:
            raise _Unread
        indent, key, value = match.group(1), match.group(2), match.group(3)
        key_start = start + len(indent)
        if key in _TRUE or key in _FALSE or key in _NULL or len(key) > _MAX_KEY:
            raise _Unread  # PyYAML, as YAML itself, takes no implicit key over 1024
        key_range = self.span(key_start, key_start + len(key))
        self.at += 1
        if value is None:
            return _Block(key, key_start, key_range)
        value_start = start + match.start(3)
        if value in _BLOCK_STYLES:
            text, end = self._block_scalar(value, len(indent))
            style, tag = _BLOCK_STYLES[value], "str"
        else:
            text, style, tag = _scalar(value)
            end = value_start + len(value)
            if style == "plain" and tag == "str":
                text, end = self._continued(text, end, len(indent))
        constructed = text if tag == "str" else text in _TRUE
        field = FieldSpan(
            key, key_range, self.span(value_start, end), style, scalar=text, tag=_TAG + tag
        )
        block.add(key_start, constructed, field)
        return None

    def _continued(self, text: str, end: int, indent: int) -> tuple[str, int]:
        """A plain scalar's text and end once lines more indented than its key (and the
        blank lines between them) are folded into it: a line break is a space, each
        blank line one line break."""
        breaks = 0
        at = self.at
        while at < len(self.lines):
            line = self.lines[at]
            words = line.strip(" ")
            if not words:
                breaks += 1
                at += 1
                continue
            if len(line) - len(line.lstrip(" ")) <= indent:
                break
            if words[0] == "#" or words[:2] in ("- ", "? ", ": ") or not _plain_words(words):
                raise _Unread
            text += "\n" * breaks if breaks else " "
            text += words
            end = self.starts[at] + len(line.rstrip(" "))
            breaks = 0
            at += 1
            self.at = at
        return text, end

    def _block_scalar(self, header: str, indent: int) -> tuple[str, int]:
        """A block scalar's text and end, when its lines share one indentation deeper
        than its key's and no blank or more indented line comes before the next key."""
        lines: list[str] = []
        depth = 0
        while self.at < len(self.lines):
            line = self.lines[self.at]
            own = len(line) - len(line.lstrip(" "))
            if not line.strip(" "):
                if self.at == len(self.lines) - 1 and line == "":  # the text's last break
                    break
                raise _Unread
            if own <= indent:
                break
            if depth and own != depth:
                raise _Unread
            depth = own
            lines.append(line[own:])
            self.at += 1
        if not lines:
            raise _Unread
        text = ("\n" if header[0] == "|" else " ").join(lines)
        end = self.starts[self.at] if self.at < len(self.lines) else len(self.text)
        return (text if header.endswith("-") else text + "\n"), self._trimmed(end)

    def _trimmed(self, end: int) -> int:
        """``end`` moved back over the line breaks and indentation before it: a block
        value's span ends with its text (as ``parse._value_extent`` ends PyYAML's)."""
        while end and self.text[end - 1] in " \n":
            end -= 1
        return end

    def _close(self, nested: _Block, top: _Block, end: int) -> None:
        """Store a nested mapping in ``top``, its span ending before offset ``end``
        (where the next key starts). A ``key:`` with nothing under it is a null, left to
        PyYAML."""
        if not nested.values:
            raise _Unread
        field = FieldSpan(
            nested.key,
            nested.key_range,
            self.span(nested.first, self._trimmed(end)),
            "block",
            nested.fields,
            tag=_TAG + "map",
            kind="mapping",
        )
        top.add(nested.key_start, nested.values, field)


def _scalar(value: str) -> tuple[str, str, str]:
    """The text, style and tag (``str`` or ``bool``) of a one-line ``value`` whose
    meaning is certain."""
    lead = value[0]
    if lead == '"' and _DOUBLE.fullmatch(value):
        return value[1:-1], "double", "str"
    if lead == "'" and _SINGLE.fullmatch(value):
        return value[1:-1], "single", "str"
    if not lead.isalpha() or not _plain_words(value) or value in _NULL:
        raise _Unread
    return value, "plain", "bool" if value in _TRUE or value in _FALSE else "str"


def _plain_words(text: str) -> bool:
    """Whether ``text`` can be part of a plain scalar: no ``": "``, ``" #"`` or ending
    ``:`` (a key, a comment)."""
    return ": " not in text and " #" not in text and not text.endswith(":")


def _characters_safe(text: str) -> bool:
    if _ASCII_UNSAFE.search(text) is None:
        return True
    if "\r" in text or "\t" in text:
        return False
    for char in set(text):
        code = ord(char)
        if (code < 0x20 and char != "\n") or code in _REFUSED:
            return False
    return True
