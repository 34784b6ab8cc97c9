"""Lines over MAX_LINE_BYTES are left out of the parse: the rest of the file is indexed
as usual, at its own positions, and the index says it could not read everything."""

from __future__ import annotations

from skillkit_core.source import index_source, step_named, structural_diagnostics
from skillkit_core.source.index import MAX_LINE_BYTES

SKILL = """from skillkit_core import skill, terminal

review = (
    skill(name="review", entry="read")
    .step("read", prompt="Read the diff.", next="judge")
    .step("judge", prompt="Judge it.", next="reed")
    .step("done", prompt="Say so.", next=terminal)
)
"""
WALL = "(" * (MAX_LINE_BYTES + 1)


def test_a_long_line_is_not_read_and_the_rest_is() -> None:
    text = f"{WALL}\n{SKILL}"
    index = index_source(text)
    assert index.has_errors
    assert [step.name for step in index.steps] == ["read", "judge", "done"]
    judge = step_named(index, "judge")
    assert judge is not None
    assert judge.name_string is not None
    assert judge.name_string.inner.line == 6  # one line down: the wall is line 0
    unknown = [d for d in structural_diagnostics(index) if d.rule == "unknown-step"]
    assert [(d.range.line, d.message) for d in unknown] == [
        (6, "step 'judge': next 'reed' is not a step; did you mean 'read'?")
    ]


def test_a_line_just_under_the_bound_is_read() -> None:
    text = "x = " + "1 + " * ((MAX_LINE_BYTES - 8) // 4) + "1\n" + SKILL
    assert len(text.split("\n")[0]) <= MAX_LINE_BYTES
    index = index_source(text)
    assert not index.has_errors
    assert len(index.steps) == 3


def test_edits_that_make_and_unmake_a_long_line_index_as_a_fresh_parse() -> None:
    versions = [
        SKILL,
        SKILL + "x = " + "(" * MAX_LINE_BYTES + "\n",  # over the bound
        SKILL + "x = " + "(" * (MAX_LINE_BYTES - 100) + "\n",  # back under it
        SKILL + "x = " + "(" * MAX_LINE_BYTES + ")\n",
        "# a comment first\n" + SKILL + "x = " + "(" * MAX_LINE_BYTES + ")\n",
        WALL + "é\n" + SKILL.replace("Judge it.", "Judge it, then say why."),
        SKILL,
    ]
    previous = None
    for text in versions:
        fresh = index_source(text)
        edited = index_source(text, old=previous)
        assert edited == fresh
        previous = edited


def test_a_file_of_nothing_but_a_long_line_has_errors_and_nothing_else() -> None:
    index = index_source(WALL)
    assert index.has_errors
    assert not index.steps and not index.refs and not index.chains
