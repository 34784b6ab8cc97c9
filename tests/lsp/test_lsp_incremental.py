"""The per-keystroke path: edits re-split only the lines they touch, and the syntax
findings of a version are carried over through an edit inside prose, never through one
that could change what the structural checks see."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from skill_lsp.index import DocumentStore
from skill_lsp.positions import split_lines
from skill_lsp.syntax import carried_before_indexing, carried_over, structural_findings
from skillkit_core.source import index_source, structural_diagnostics

URI = "file:///skills/deploy.py"

SKILL = '''"""A skill with findings the structural checks make."""

from skillkit_core import skill, terminal

deploy = (
    skill(name="deploy", description="Ship it.", entry="plan")
    .step("plan", prompt="Plan the release: list the changes.", next="buidl")
    .step("build", prompt=f"Build {1 + 1} artefacts.\\n", next="done")
    .step("lonely", prompt="Nobody comes here.", next="done")
    .step("done", prompt="""Report what shipped,
and where.""", next=terminal)
)
'''


def _store(text: str = SKILL, encoding: str = "utf-16") -> DocumentStore:
    store = DocumentStore()
    store.codec = PositionCodec(encoding)
    store.open(URI, 1, text, "python")
    return store


def _edit(line: int, column: int, end_line: int, end_column: int, text: str):
    where = types.Range(types.Position(line, column), types.Position(end_line, end_column))
    return types.TextDocumentContentChangePartial(range=where, text=text)


def _offset(text: str, line: int, column: int) -> int:
    """The string index of an LSP position (clamped as the store clamps it)."""
    lines = split_lines(text)
    starts = [0, *(match.end() for match in re.finditer(r"\r\n|\r|\n", text))]
    if line >= len(lines):
        return len(text)
    return starts[line] + min(column, len(lines[line]))


@settings(max_examples=150, deadline=None)
@given(
    st.text(alphabet="ab\n\r\u00e9", max_size=30),
    st.lists(
        st.tuples(
            st.integers(0, 6),
            st.integers(0, 8),
            st.integers(0, 6),
            st.integers(0, 8),
            st.text(alphabet="xy\n\r\u00e9", max_size=5),
        ),
        min_size=1,
        max_size=4,
    ),
)
def test_edits_give_the_text_and_lines_a_whole_split_gives(text: str, edits: list) -> None:
    store = _store(text, "utf-32")  # one unit per code point: columns are string indexes
    expected = text
    for version, (line, column, end_line, end_column, insert) in enumerate(edits, start=2):
        start = _offset(expected, line, column)
        end = _offset(expected, end_line, end_column)
        start, end = sorted((start, end))
        expected = expected[:start] + insert + expected[end:]
        snapshot = store.change(URI, version, [_edit(line, column, end_line, end_column, insert)])
        assert snapshot is not None
        assert snapshot.text == expected
        assert list(snapshot.lines) == split_lines(expected)


def _type(store: DocumentStore, version: int, change) -> list:
    """Apply one edit as the server does and return the version's syntax findings."""
    snapshot = store.change(URI, version, [change])
    assert snapshot is not None
    early = carried_before_indexing(snapshot)  # as the hub asks, before the index
    found = snapshot._cache["syntax"] = structural_findings(snapshot)
    assert found == structural_diagnostics(snapshot.index)
    assert early is None or early == found
    return found


def _line_of(text: str, needle: str) -> tuple[int, int]:
    for number, line in enumerate(text.split("\n")):
        if needle in line:
            return number, line.index(needle)
    raise AssertionError(needle)


def test_findings_stay_right_through_edits_of_every_kind() -> None:
    store = _store()
    snapshot = store.get(URI)
    snapshot._cache["syntax"] = structural_findings(snapshot)
    assert {d.rule for d in snapshot._cache["syntax"]} == {"unknown-step"}
    line, column = _line_of(SKILL, "Plan the release")
    text_edits = [
        _edit(line, column + 4, line, column + 4, "x"),  # prose before a finding on the line
        _edit(line, column + 4, line, column + 5, ""),  # and taken back
        _edit(*_line_of(SKILL, '"buidl"'), *_line_of(SKILL, '"buidl"'), "  "),  # code
    ]
    version = 2
    for change in text_edits:
        _type(store, version, change)
        version += 1
    # Fix the typo in the target (a string that names a step): the finding goes.
    line, column = _line_of(store.get(URI).text, "buidl")
    found = _type(store, version, _edit(line, column, line, column + 5, "build"))
    assert {d.rule for d in found} == {"unreachable-step"}  # 'lonely' now stands out
    version += 1
    # Rename a step by typing in its name, then a quote, a brace, a line break in prose.
    line, column = _line_of(store.get(URI).text, '"lonely"')
    for insert in ("z", '"', "{", "\n", "\\"):
        _type(store, version, _edit(line, column + 2, line, column + 2, insert))
        version += 1
    line, column = _line_of(store.get(URI).text, "Report what")
    _type(store, version, _edit(line, column + 6, line, column + 6, "ed"))


def _indexes(text: str, needle: str, insert: str) -> tuple:
    line, column = _line_of(text, needle)
    at = text.index(needle)
    new = text[:at] + insert + text[at:]
    old_index = index_source(text)
    new_index = index_source(new, old=old_index)
    return old_index, new_index, ((line, column), (line, column), insert)


@pytest.mark.parametrize(
    "needle",
    ["release: list", "artefacts", "shipped,", "Ship it"],
    ids=["prompt", "f-string-text", "triple-quoted", "description"],
)
def test_typing_prose_carries_the_findings_over(needle: str) -> None:
    old, new, edit = _indexes(SKILL, needle, "more ")
    findings = structural_diagnostics(old)
    carried = carried_over(findings, old, new, edit)
    assert carried is not None
    assert carried == structural_diagnostics(new)
    assert carried_over(findings, old, None, edit) == carried  # before the new index


@pytest.mark.parametrize(
    ("needle", "insert"),
    [
        ("buidl", "x"),  # a transition target
        ('lonely"', "x"),  # a step's name
        ('deploy", desc', "x"),  # the skill's name
        ("Plan the", '"'),  # a quote ends the literal
        ("Plan the", "\\"),  # an escape
        ("Plan the", "\n"),  # a line break
        ("{1 + 1}", "x"),  # inside an f-string's expression
        ("skill(name", "x"),  # code
    ],
    ids=["target", "step-name", "skill-name", "quote", "escape", "newline", "f-expr", "code"],
)
def test_an_edit_that_may_change_the_structure_runs_the_checks(needle: str, insert: str) -> None:
    old, new, edit = _indexes(SKILL, needle, insert)
    findings = structural_diagnostics(old)
    assert carried_over(findings, old, new, edit) is None
    assert carried_over(findings, old, None, edit) is None  # the old tree alone tells


@pytest.mark.parametrize(("offset", "length"), [(1, 0), (1, 1), (2, 0)])
def test_an_edit_next_to_an_escape_runs_the_checks(offset: int, length: int) -> None:
    # 'artefacts.\\n' ends the f-string's text: typing after its backslash, or deleting
    # the 'n' it escapes, would make the backslash escape something else (the quote).
    text = SKILL.replace("artefacts.\\n", "artefacts.\\nmore")
    at = text.index("\\nmore") + offset
    line, column = _line_of(text, "\\nmore")
    column += offset
    new = text[:at] + "x" + text[at + length :]
    old_index = index_source(text)
    edit = ((line, column), (line, column + length), "x")
    findings = structural_diagnostics(old_index)
    if offset == 1:
        assert carried_over(findings, old_index, None, edit) is None
    moved = carried_over(findings, old_index, index_source(new, old=old_index), edit)
    assert moved is None or moved == structural_diagnostics(index_source(new))
