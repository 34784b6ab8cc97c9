"""Byte offsets to code-point positions and back, for any line ending and any text."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from skillkit_core.lint.diagnostic import SourceRange
from skillkit_core.source import index_source
from skillkit_core.source.positions import LineTable, encode


def test_columns_count_code_points_not_bytes() -> None:
    table = LineTable(encode("ab\né🚀x\n"))
    assert table.position(3) == (1, 0)
    assert table.position(5) == (1, 1)  # after é (2 bytes)
    assert table.position(9) == (1, 2)  # after 🚀 (4 bytes)
    assert table.position(10) == (1, 3)


def test_crlf_and_lone_cr_end_lines_like_an_editor() -> None:
    table = LineTable(b"a\r\nbb\rc\nd")
    assert table.line_count == 4
    assert [table.position(offset) for offset in (0, 3, 6, 8)] == [(0, 0), (1, 0), (2, 0), (3, 0)]
    assert table.line_text(0) == "a" and table.line_text(1) == "bb" and table.line_text(2) == "c"
    assert table.offset(1, 1) == 4


def test_offsets_are_clamped_to_the_text_and_the_line() -> None:
    table = LineTable(encode("ab\ncd"))
    assert table.position(-5) == (0, 0)
    assert table.position(999) == (1, 2)
    assert table.offset(0, 99) == 2
    assert table.offset(-1, 0) == 0
    assert table.offset(9, 0) == 5


def test_lone_surrogates_from_an_editor_buffer_are_one_column_each() -> None:
    text = 'x = "\ud800"\ny = "ok"\n'
    index = index_source(text)
    table = LineTable(encode(text))
    assert table.position(len(encode('x = "\ud800'))) == (0, 6)
    assert index.text == text


@given(
    st.lists(st.characters() | st.sampled_from(["\r\n", "\r", "\n", "é", "🚀"]), max_size=40).map(
        "".join
    )
)
def test_offset_and_position_are_inverse_at_every_character_boundary(text: str) -> None:
    data = encode(text)
    table = LineTable(data)
    offset = 0
    for position, char in enumerate(text):
        # The "\n" of "\r\n" is inside one line break: no cursor position names it.
        if not (char == "\n" and position and text[position - 1] == "\r"):
            line, column = table.position(offset)
            assert table.offset(line, column) == offset
            assert column == len(_line_prefix(text, offset, data))
        offset += len(encode(char))


def _line_prefix(text: str, offset: int, data: bytes) -> str:
    before = data[:offset].decode("utf-8", "surrogatepass")
    cut = max(before.rfind("\n"), before.rfind("\r"))
    return before[cut + 1 :]


def test_a_range_of_a_line_is_what_python_slicing_of_that_line_gives() -> None:
    text = "héllo wörld\n🚀 go\n"
    data = encode(text)
    table = LineTable(data)
    start = data.index("wörld".encode())
    assert table.range(start, start + len("wörld".encode())) == SourceRange(0, 6, 0, 11)
    assert text.splitlines()[0][6:11] == "wörld"
