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
- values on one line: a plain scalar starting with a letter that YAML's implicit
  resolvers leave a string (not ``yes``, ``off``, ``null`` and the like), without
  ``": "``, ``" #"`` or a trailing ``:``; or a quoted scalar without escapes or quotes
  inside;
- blank lines; no tabs, carriage returns, comments, duplicate keys or characters YAML
  refuses or reads as line breaks.

``tests/core/manifest/test_plain_yaml.py`` checks that every text this module accepts
parses to the same values, spans, styles and tags through PyYAML (on the corpus and on
generated text).
"""

from __future__ import annotations

import re

from skillkit_core.manifest.parse import FieldSpan

TYPE_CHECKING = False

if TYPE_CHECKING:
    from collections.abc import Callable

    from skillkit_core.lint.diagnostic import SourceRange

    Span = Callable[[int, int], SourceRange]

_STR_TAG = "tag:yaml.org,2002:str"
_MAP_TAG = "tag:yaml.org,2002:map"
_LINE = re.compile(r"( *)([A-Za-z][A-Za-z0-9_-]*):(?: +(\S.*?))? *")
_DOUBLE = re.compile(r'"[^"\\]*"')
_SINGLE = re.compile(r"'[^']*'")
# Plain scalars PyYAML's implicit resolvers type as booleans or null (YAML 1.1); every
# other plain scalar starting with a letter stays a string (numbers, dates, ``.inf``,
# ``<<`` and ``=`` start with something else).
_NOT_STRINGS = frozenset(
    word
    for base in ("yes", "no", "true", "false", "on", "off", "null")
    for word in (base, base.capitalize(), base.upper())
)
# Characters outside printable ASCII that YAML refuses (C1 controls, surrogates, the
# byte-order mark, non-characters) or reads as line breaks (NEL, LS, PS).
_REFUSED = frozenset(range(0x7F, 0xA0)) | frozenset(range(0xD800, 0xE000))
_REFUSED |= {0x2028, 0x2029, 0xFEFF, 0xFFFE, 0xFFFF}
_ASCII_UNSAFE = re.compile(r"[^\n\x20-\x7e]")


def read_plain_frontmatter(
    yaml_text: str, span: Span
) -> tuple[dict[str, object], dict[str, FieldSpan]] | None:
    """The mapping and field spans of ``yaml_text`` if it has the plain shape above,
    else ``None``. ``span(start, end)`` turns offsets in ``yaml_text`` into a range."""
    if not _characters_safe(yaml_text):
        return None
    top = _Block()
    nested: _Block | None = None
    offset = 0
    for line in yaml_text.split("\n"):
        start, offset = offset, offset + len(line) + 1
        if not line.strip(" "):
            continue
        match = _LINE.fullmatch(line)
        if match is None:
            return None
        indent, key, value = match.group(1), match.group(2), match.group(3)
        if not indent:
            if nested is not None and not nested.close_into(top, start, span):
                return None
            block, nested = top, None
        elif nested is not None and nested.indent in (0, len(indent)):
            block, nested.indent = nested, len(indent)
        else:
            return None
        key_start = start + len(indent)
        if key in _NOT_STRINGS or key in block.values:
            return None
        key_range = span(key_start, key_start + len(key))
        if value is None:
            if block is not top:
                return None
            nested = _Block(key, key_start, key_range)
            continue
        scalar = _scalar(value)
        if scalar is None:
            return None
        text, style = scalar
        value_start = start + match.start(3)
        value_range = span(value_start, value_start + len(value))
        field = FieldSpan(key, key_range, value_range, style, scalar=text, tag=_STR_TAG)
        block.add(key_start, text, field)
    if nested is not None and not nested.close_into(top, len(yaml_text), span):
        return None
    return (top.values, top.fields) if top.values else None


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
        if not self.fields:
            self.first = key_start
        self.values[field.key] = value
        self.fields[field.key] = field

    def close_into(self, top: _Block, end: int, span: Span) -> bool:
        """Store this nested mapping in ``top``, its span ending at offset ``end`` (where
        the next key starts); False when it has no keys (``key:`` alone is a null, which
        is left to PyYAML)."""
        if not self.values:
            return False
        value_range = span(self.first, end)
        field = FieldSpan(
            self.key,
            self.key_range,
            value_range,
            "block",
            self.fields,
            tag=_MAP_TAG,
            kind="mapping",
        )
        top.add(self.key_start, self.values, field)
        return True


def _scalar(value: str) -> tuple[str, str] | None:
    """The text and style of a one-line ``value`` whose string meaning is certain."""
    lead = value[0]
    if lead == '"':
        return (value[1:-1], "double") if _DOUBLE.fullmatch(value) else None
    if lead == "'":
        return (value[1:-1], "single") if _SINGLE.fullmatch(value) else None
    if not lead.isalpha():
        return None
    if ": " in value or " #" in value or value.endswith(":") or value in _NOT_STRINGS:
        return None
    return value, "plain"


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
