"""String literals in the tree: their decoded value and the spans of their content."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from skillkit_core.source.positions import decode

_QUOTES = "'\""


@dataclass(frozen=True)
class RawString:
    """A string literal as byte spans; turned into a `StringLit` when frozen."""

    start: int  # prefix and opening quote included
    end: int
    inner_start: int
    inner_end: int
    value: str | None  # None for bytes literals and f-strings with fields
    raw: str  # the source text between the quotes
    prefix: str  # lower-cased prefix letters
    terminated: bool


def read_string(node: Any, data: bytes) -> RawString | None:
    """Decode a tree-sitter ``string`` node; None when it is not a string node."""
    if node is None or node.type != "string":
        return None
    count = node.child_count
    first = node.child(0) if count else None
    if first is None or first.type != "string_start":
        return None
    inner_start = first.end_byte
    start = node.start_byte
    # Most strings have no prefix: the first byte is the quote.
    prefix = (
        ""
        if data[start : start + 1] in (b'"', b"'")
        else decode(data[start:inner_start]).rstrip(_QUOTES).lower()
    )
    last = node.child(count - 1)
    terminated = count > 1 and last.type == "string_end" and last.end_byte > last.start_byte
    inner_end = max(inner_start, last.start_byte if terminated else node.end_byte)
    raw = decode(data[inner_start:inner_end])
    value: str | None
    if "b" in prefix or (("f" in prefix or "t" in prefix) and _has_fields(node)):
        value = None
    elif "r" in prefix or "\\" not in raw or not terminated:
        value = raw
    else:
        value = _unescape(raw)
    return RawString(
        start=start,
        end=node.end_byte,
        inner_start=inner_start,
        inner_end=inner_end,
        value=value,
        raw=raw,
        prefix=prefix,
        terminated=terminated,
    )


def _has_fields(node: Any) -> bool:
    return any(child.type == "interpolation" for child in node.children)


_ESCAPE = re.compile(
    r"\\(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|N\{[^}]*\}|[0-7]{1,3}|.)", re.S
)
_SIMPLE_ESCAPES = {
    "\n": "",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
}


def _unescape(raw: str) -> str:
    # Python's own decoders warn (or, with warnings as errors, raise) on an unknown
    # escape; an editor buffer has plenty. Unknown escapes stay as written, as in Python.
    return _ESCAPE.sub(_escaped, raw)


def _escaped(match: re.Match[str]) -> str:
    sequence = match.group(0)[1:]
    head = sequence[0]
    if head in "xuU" and len(sequence) > 1:
        code = int(sequence[1:], 16)
        return chr(code) if code <= 0x10FFFF else match.group(0)
    if head == "N" and sequence.startswith("N{"):
        try:
            return unicodedata.lookup(sequence[2:-1])
        except KeyError:
            return match.group(0)
    if head in "01234567":
        return chr(int(sequence, 8))
    return _SIMPLE_ESCAPES.get(sequence, match.group(0))


def leading_text(node: Any, data: bytes) -> str | None:
    """The literal text of an f-string before its first field (``f"subskill:{x}"``)."""
    if node is None or node.type != "string":
        return None
    parts: list[str] = []
    for child in node.children:
        if child.type == "string_content":
            parts.append(decode(data[child.start_byte : child.end_byte]))
        elif child.type == "interpolation":
            break
    return "".join(parts)
