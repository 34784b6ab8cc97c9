"""Byte offsets ↔ (line, code-point column), the way an editor counts them.

tree-sitter reports byte offsets into the UTF-8 text; the core's ranges count code
points. Lines end at ``\\n``, ``\\r\\n`` or a lone ``\\r`` (the LSP definition), which is
why positions come from byte offsets and this table, never from tree-sitter's rows.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from itertools import accumulate

from skillkit_core.lint.diagnostic import SourceRange

_LINE_BREAK = re.compile(rb"\r\n|\r|\n")
# UTF-8 continuation bytes: every other byte starts a code point.
_CONTINUATION = bytes(range(0x80, 0xC0))


def encode(text: str) -> bytes:
    """UTF-8 bytes of ``text``; lone surrogates (possible in editor buffers) survive."""
    return text.encode("utf-8", "surrogatepass")


def decode(data: bytes) -> str:
    """The inverse of `encode`, tolerant of a slice that cuts a character in two."""
    try:
        return data.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return data.decode("utf-8", "replace")


class LineTable:
    """Line starts of a byte string, and conversions between offsets and positions."""

    __slots__ = ("_ascii_lines", "_data", "_size", "_starts")

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._size = len(data)
        if b"\r" in data:
            self._starts = [0, *(match.end() for match in _LINE_BREAK.finditer(data))]
        else:  # the common case, done in C: line lengths from one split
            self._starts = list(
                accumulate((len(line) + 1 for line in data.split(b"\n")[:-1]), initial=0)
            )
        if data.isascii():
            self._ascii_lines: list[bool] | None = None
        else:
            ends = [*self._starts[1:], len(data)]
            self._ascii_lines = [
                data[start:end].isascii() for start, end in zip(self._starts, ends, strict=True)
            ]

    @property
    def data(self) -> bytes:
        """The bytes this table describes."""
        return self._data

    @property
    def line_count(self) -> int:
        """Number of lines (a final line break starts an empty last line)."""
        return len(self._starts)

    def position(self, offset: int) -> tuple[int, int]:
        """(line, code-point column) of byte ``offset``."""
        if offset < 0:
            offset = 0
        elif offset > self._size:
            offset = self._size
        line = bisect_right(self._starts, offset) - 1
        return line, self._column(line, offset)

    def _column(self, line: int, offset: int) -> int:
        start = self._starts[line]
        if self._ascii_lines is None or self._ascii_lines[line]:
            return offset - start
        segment = self._data[start:offset]
        return len(segment.translate(None, _CONTINUATION))

    def text(self, start: int, end: int) -> str:
        """The text of bytes ``start``..``end``."""
        return decode(self._data[start:end])

    def range(self, start: int, end: int) -> SourceRange:
        """The `SourceRange` of bytes ``start``..``end``."""
        # The hottest function of indexing: most ranges start and end on one ASCII line.
        starts = self._starts
        size = self._size
        start = 0 if start < 0 else size if start > size else start
        end = start if end < start else size if end > size else end
        line = bisect_right(starts, start) - 1
        end_line = (
            line
            if line + 1 == len(starts) or end < starts[line + 1]
            else bisect_right(starts, end) - 1
        )
        ascii_lines = self._ascii_lines
        if ascii_lines is None or (ascii_lines[line] and ascii_lines[end_line]):
            return SourceRange(line, start - starts[line], end_line, end - starts[end_line])
        return SourceRange(line, self._column(line, start), end_line, self._column(end_line, end))

    def line_bounds(self, line: int) -> tuple[int, int]:
        """Byte offsets of the start of ``line`` and of its end (before the line break)."""
        line = max(0, min(line, len(self._starts) - 1))
        start = self._starts[line]
        if line + 1 < len(self._starts):
            end = self._starts[line + 1]
            while end > start and self._data[end - 1] in (0x0A, 0x0D):
                end -= 1
        else:
            end = len(self._data)
        return start, end

    def line_text(self, line: int) -> str:
        """The text of ``line`` without its line break."""
        start, end = self.line_bounds(line)
        return decode(self._data[start:end])

    def offset(self, line: int, column: int) -> int:
        """Byte offset of (line, code-point column), clamped to the line's content."""
        if line < 0:
            return 0
        if line >= len(self._starts):
            return len(self._data)
        start, end = self.line_bounds(line)
        column = max(0, column)
        if self._ascii_lines is None or self._ascii_lines[line]:
            return start + min(column, end - start)
        prefix = decode(self._data[start:end])[:column]
        return start + len(encode(prefix))


def ts_point(data: bytes, offset: int) -> tuple[int, int]:
    """tree-sitter's point for a byte offset: (row counted by ``\\n``, byte column)."""
    row = data.count(b"\n", 0, offset)
    line_start = data.rfind(b"\n", 0, offset) + 1
    return row, offset - line_start
