"""Code-point positions (the core's) ↔ the client's positions (UTF-8 or UTF-16 units).

Lines are split the way LSP counts them (``\\n``, ``\\r\\n``, ``\\r``), once per document
version, so conversions never re-split the text. Unit counting uses the position codec
pygls negotiated with the client; ASCII lines (almost all of them) skip it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from skillkit_core.lint.diagnostic import SourceRange

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """The text's lines without their breaks; a final break starts an empty last line."""
    return _LINE_BREAK.split(text)


class LineMap:
    """Converts positions for one version of one document."""

    __slots__ = ("_ascii", "_codec", "lines")

    def __init__(self, lines: Sequence[str], codec: PositionCodec) -> None:
        self.lines = lines
        self._codec = codec
        self._ascii: dict[int, bool] = {}

    def _is_ascii(self, line: int) -> bool:
        known = self._ascii.get(line)
        if known is None:
            known = self._ascii[line] = self.lines[line].isascii()
        return known

    def line_text(self, line: int) -> str:
        """The text of ``line`` ('' beyond the end)."""
        return self.lines[line] if 0 <= line < len(self.lines) else ""

    def position(self, line: int, column: int) -> types.Position:
        """The client position of (line, code-point column), clamped into the text."""
        if line < 0:
            return types.Position(0, 0)
        if line >= len(self.lines):
            last = len(self.lines) - 1
            return types.Position(last, self._units(last, len(self.lines[last])))
        return types.Position(line, self._units(line, column))

    def _units(self, line: int, column: int) -> int:
        text = self.lines[line]
        column = max(0, min(column, len(text)))
        if self._is_ascii(line):
            return column
        return self._codec.client_num_units(text[:column])

    def range(self, where: SourceRange) -> types.Range:
        """The client range of a core range."""
        return types.Range(
            start=self.position(where.line, where.column),
            end=self.position(where.end_line, where.end_column),
        )

    def code_point(self, position: types.Position) -> tuple[int, int]:
        """(line, code-point column) of a client position, clamped into the text.

        A position inside a character (half a surrogate pair, part of a UTF-8 sequence)
        moves to that character's start.
        """
        line = position.line
        if line < 0:
            return 0, 0
        if line >= len(self.lines):
            last = len(self.lines) - 1
            return last, len(self.lines[last])
        text = self.lines[line]
        wanted = max(0, position.character)
        if self._is_ascii(line):
            return line, min(wanted, len(text))
        count = self._codec.impl.code_units_for_char
        units = 0
        for index, char in enumerate(text):
            width = count(char)
            if units + width > wanted:
                return line, index
            units += width
        return line, len(text)

    def source_range(self, where: types.Range) -> SourceRange:
        """The core range of a client range."""
        line, column = self.code_point(where.start)
        end_line, end_column = self.code_point(where.end)
        return SourceRange(line, column, end_line, end_column)


def line_starts(text: str) -> list[int]:
    """String index where each line of ``text`` starts (LSP line breaks)."""
    return [0, *(match.end() for match in _LINE_BREAK.finditer(text))]
