"""The document store on its own: edits in both encodings, line breaks, carried findings."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from skill_lsp.index import DocumentKind, DocumentStore, kind_of, shift_range
from skill_lsp.positions import LineMap, split_lines
from skillkit_core.lint.diagnostic import Fix, LintDiagnostic, SourceRange, TextEdit

ENCODINGS = ("utf-8", "utf-16", "utf-32")


def _store(encoding: str) -> DocumentStore:
    store = DocumentStore()
    store.codec = PositionCodec(encoding)
    return store


def _change(start: types.Position, end: types.Position, text: str):
    return types.TextDocumentContentChangePartial(range=types.Range(start, end), text=text)


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_an_edit_after_non_ascii_text_lands_where_the_client_meant(encoding: str) -> None:
    store = _store(encoding)
    store.open("file:///s.py", 1, 'x = "🚀é"\ny = 1\n')
    column = {"utf-8": 12, "utf-16": 9, "utf-32": 8}[encoding]  # just after the closing quote
    snapshot = store.change(
        "file:///s.py", 2, [_change(types.Position(0, column), types.Position(0, column), "  # ok")]
    )
    assert snapshot.text == 'x = "🚀é"  # ok\ny = 1\n'
    assert snapshot.version == 2


def test_crlf_and_lone_cr_count_as_line_breaks() -> None:
    store = _store("utf-16")
    store.open("file:///s.py", 1, "a\r\nb\rc\nd")
    snapshot = store.change(
        "file:///s.py", 2, [_change(types.Position(2, 0), types.Position(2, 1), "C")]
    )
    assert snapshot.text == "a\r\nb\rC\nd"
    assert list(snapshot.lines) == ["a", "b", "C", "d"]


def test_several_changes_apply_in_order_and_whole_text_resets() -> None:
    store = _store("utf-8")
    store.open("file:///s.py", 1, "abc\n")
    changes = [
        _change(types.Position(0, 1), types.Position(0, 2), "XY"),
        _change(types.Position(0, 0), types.Position(0, 1), ""),
    ]
    assert store.change("file:///s.py", 2, changes).text == "XYc\n"
    whole = types.TextDocumentContentChangeWholeDocument(text="new")
    assert store.change("file:///s.py", 3, [whole]).text == "new"


def test_positions_past_the_end_are_clamped() -> None:
    store = _store("utf-16")
    store.open("file:///s.py", 1, "ab\ncd")
    snapshot = store.change(
        "file:///s.py", 2, [_change(types.Position(0, 99), types.Position(9, 9), "!")]
    )
    assert snapshot.text == "ab!"


def test_kinds() -> None:
    assert kind_of("file:///a/SKILL.md") == DocumentKind.SKILL_MD
    assert kind_of("file:///a/skill.md") == DocumentKind.SKILL_MD
    assert kind_of("file:///a/x.py") == DocumentKind.PYTHON
    assert kind_of("untitled:1", "python") == DocumentKind.PYTHON
    assert kind_of("file:///a/README.md") == DocumentKind.OTHER


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_line_map_round_trips_every_column(encoding: str) -> None:
    lines = split_lines("a🚀b漢é\nplain")
    mapper = LineMap(lines, PositionCodec(encoding))
    for column in range(len(lines[0]) + 1):
        client = mapper.position(0, column)
        assert mapper.code_point(client) == (0, column)


def test_a_position_inside_a_surrogate_pair_moves_to_its_start() -> None:
    mapper = LineMap(["a🚀b"], PositionCodec("utf-16"))
    assert mapper.code_point(types.Position(0, 2)) == (0, 1)


def test_carried_findings_move_with_edits_and_vanish_when_touched() -> None:
    store = _store("utf-16")
    store.open("file:///s.py", 1, "one\ntwo\nthree\n")
    finding = LintDiagnostic(
        "r",
        "warning",
        "m",
        range=SourceRange(2, 0, 2, 5),
        fix=Fix("f", (TextEdit(SourceRange(2, 0, 2, 5), "THREE"),)),
    )
    touched = LintDiagnostic("t", "warning", "m", range=SourceRange(0, 0, 0, 3))
    store.attach_semantic("file:///s.py", 1, object(), (finding, touched))
    snapshot = store.change(
        "file:///s.py", 2, [_change(types.Position(0, 1), types.Position(0, 2), "X\nY")]
    )
    (moved,) = snapshot.carried
    assert moved.range == SourceRange(3, 0, 3, 5)
    assert moved.fix.edits[0].range == SourceRange(3, 0, 3, 5)


def test_a_stale_semantic_result_is_dropped() -> None:
    store = _store("utf-8")
    store.open("file:///s.py", 1, "a")
    store.change("file:///s.py", 2, [types.TextDocumentContentChangeWholeDocument(text="b")])
    assert not store.attach_semantic("file:///s.py", 1, object(), ())
    assert store.get("file:///s.py").semantic is None


@given(
    st.text(alphabet="ab\n", max_size=12),
    st.integers(0, 12),
    st.integers(0, 12),
    st.text(alphabet="xy\n", max_size=4),
    st.integers(0, 12),
    st.integers(0, 12),
)
def test_shift_range_agrees_with_the_text(
    text: str, a: int, b: int, insert: str, c: int, d: int
) -> None:
    """A range that the edit does not touch still covers the same characters."""
    a, b = sorted((min(a, len(text)), min(b, len(text))))
    c, d = sorted((min(c, len(text)), min(d, len(text))))

    def pos(source: str, offset: int) -> tuple[int, int]:
        line = source.count("\n", 0, offset)
        return line, offset - (source.rfind("\n", 0, offset) + 1)

    where = SourceRange(*pos(text, c), *pos(text, d))
    new_text = text[:a] + insert + text[b:]
    moved = shift_range(where, pos(text, a), pos(text, b), insert)
    if moved is None:
        assert d > a and c < b  # only a range the edit overlaps is dropped
        return
    assert not (d > a and c < b)
    lines = new_text.split("\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    got = new_text[starts[moved.line] + moved.column : starts[moved.end_line] + moved.end_column]
    assert got == text[c:d]


def test_a_carried_finding_moves_its_suggestions_or_drops_those_an_edit_touched() -> None:
    # Suggestions stayed in the old text's places while the quick fix's text tag said
    # they were the new text's.
    from skill_lsp.index import _shift_item
    from skillkit_core.lint.diagnostic import Fix, LintDiagnostic, SourceRange, TextEdit

    def fix(line: int) -> Fix:
        return Fix("f", (TextEdit(SourceRange(line, 0, line, 3), "new"),))

    finding = LintDiagnostic(
        "r", "warning", "m", range=SourceRange(5, 0, 5, 3), suggestions=(fix(5), fix(2))
    )
    moved = _shift_item(finding, (0, 0), (0, 0), "a line\n")  # one line typed above
    assert moved is not None
    assert [s.edits[0].range.line for s in moved.suggestions] == [6, 3]
    touched = _shift_item(finding, (2, 1), (2, 2), "x")  # an edit inside the second
    assert touched is not None
    assert [s.edits[0].range.line for s in touched.suggestions] == [5]
