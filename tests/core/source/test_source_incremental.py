"""Incremental re-indexing gives exactly what a full index of the new text gives."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillkit_core.source import SourceEdit, edit_between, index_source
from skillkit_core.source.positions import encode

FIXTURE = (Path(__file__).parent / "fixtures" / "release_desk.py").read_text(encoding="utf-8")


def _apply(text: str, start: int, length: int, insert: str) -> str:
    start = min(start, len(text))
    return text[:start] + insert + text[start + length :]


edits = st.tuples(
    st.integers(min_value=0, max_value=len(FIXTURE)),
    st.integers(min_value=0, max_value=12),
    st.sampled_from(
        ["", "x", '"', "(", ")", "\n", "é", "🚀", "step", '.step("new", next="done")', "  "]
    ),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(edits, min_size=1, max_size=6))
def test_a_sequence_of_incremental_reindexes_equals_a_full_index(changes: list) -> None:
    text = FIXTURE
    index = index_source(text)
    for start, length, insert in changes:
        text = _apply(text, start, length, insert)
        index = index_source(text, old=index)
        assert index == index_source(text)


def test_renaming_a_step_incrementally_moves_every_position_after_it() -> None:
    old = index_source(FIXTURE)
    new_text = FIXTURE.replace('.step("abort", prompt="Stopp', '.step("abort-now", prompt="Stopp')
    new = index_source(new_text, old=old)
    assert new == index_source(new_text)
    assert "abort-now" in {step.name for step in new.steps}
    done_next = [ref for ref in new.refs if ref.role.value == "next" and ref.range.line == 92]
    assert done_next[0].name_range.column == 59


def test_explicit_tree_sitter_edits_are_used_when_they_fit() -> None:
    old = index_source(FIXTURE)
    new_text = FIXTURE.replace('"orphan"', '"lonely"')
    edit = edit_between(encode(FIXTURE), encode(new_text))
    new = index_source(new_text, old=old, edits=[edit])
    assert new == index_source(new_text)
    assert "lonely" in {step.name for step in new.steps}


def test_edits_that_do_not_fit_the_texts_are_replaced_by_a_computed_one() -> None:
    old = index_source(FIXTURE)
    new_text = FIXTURE.replace('"orphan"', '"lonely!"')
    wrong = SourceEdit(0, 1, 1, (0, 0), (0, 1), (0, 1))
    assert index_source(new_text, old=old, edits=[wrong]) == index_source(new_text)
    out_of_range = SourceEdit(10**9, 10**9, 10**9, (0, 0), (0, 0), (0, 0))
    assert index_source(new_text, old=old, edits=[out_of_range]) == index_source(new_text)


def test_the_old_index_is_left_intact_by_a_reindex() -> None:
    old = index_source(FIXTURE)
    snapshot = (old.refs, old.steps, old._state.tree.root_node.end_byte)
    index_source(FIXTURE[:500] + "garbage((" + FIXTURE[500:], old=old)
    assert (old.refs, old.steps, old._state.tree.root_node.end_byte) == snapshot
    assert not old._state.tree.root_node.has_changes


def test_the_same_text_returns_the_same_index() -> None:
    old = index_source(FIXTURE)
    assert index_source(FIXTURE, old=old) is old


def test_an_index_without_parse_state_is_rebuilt_from_scratch() -> None:
    huge = index_source("x" * 10, old=index_source(FIXTURE))
    assert huge.text == "x" * 10 and huge.chains == ()


def test_a_keystroke_in_one_step_re_extracts_that_step_alone() -> None:
    old = index_source(FIXTURE)
    new_text = FIXTURE.replace('prompt="Fix one blocker."', 'prompt="Fix one blocker now."')
    new = index_source(new_text, old=old)
    assert new == index_source(new_text)
    changed = [
        step.name for step, before in zip(new.steps, old.steps, strict=True) if step is not before
    ]
    assert changed == ["fix"]
    # Strings of untouched steps are the very same objects; positions did not move.
    verify_refs = [ref for ref in new.refs if ref.owners and ref.owners[0].step == 2]
    assert all(ref in old.refs for ref in verify_refs)


def test_a_new_line_above_a_step_moves_it_and_everything_below() -> None:
    old = index_source(FIXTURE)
    new_text = FIXTURE.replace(
        '    .step(\n        "deploy",', '\n    .step(\n        "deploy",', 1
    )
    new = index_source(new_text, old=old)
    assert new == index_source(new_text)
    before = {step.name: step for step in old.steps}
    after = {step.name: step for step in new.steps}
    assert after["review"] is before["review"]
    assert after["deploy"].range.line == before["deploy"].range.line + 1
    assert after["done"].range.line == before["done"].range.line + 1


def test_windows_line_endings_index_the_same_and_stay_incremental() -> None:
    crlf = FIXTURE.replace("\n", "\r\n")
    index = index_source(crlf)
    plain = index_source(FIXTURE)
    assert [(ref.name, ref.name_range) for ref in index.refs] == [
        (ref.name, ref.name_range) for ref in plain.refs
    ]
    edited = crlf.replace('"orphan"', '"alone"')
    assert index_source(edited, old=index) == index_source(edited)


def test_importing_the_package_does_not_load_tree_sitter() -> None:
    import subprocess
    import sys

    code = "import sys, skillkit_core.source; print('tree_sitter' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"
