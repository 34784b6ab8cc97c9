"""The completion context under the cursor, on whole and on half-typed code."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillkit_core.lint.diagnostic import SourceRange
from skillkit_core.source import CursorContext, Role, index_source, node_at

FIXTURE = (Path(__file__).parent / "fixtures" / "release_desk.py").read_text(encoding="utf-8")
LINES = FIXTURE.split("\n")


def typed_at(line: int, text: str) -> tuple[str, int, int]:
    """The fixture with ``text`` typed as a new line before ``line``; the cursor at its end."""
    lines = [*LINES[:line], text, *LINES[line:]]
    return "\n".join(lines), line, len(text)


def context(text: str, line: int, column: int) -> CursorContext | None:
    return node_at(index_source(text), line, column)


def test_inside_a_recorded_string_the_role_prefix_and_span_come_from_the_index() -> None:
    found = context(FIXTURE, 80, 65)  # next="ve|rify" of the extend step
    assert found is not None and found.role == Role.NEXT
    assert found.prefix == "ve"
    assert found.replace == SourceRange(80, 63, 80, 69)
    assert found.ref is not None and found.ref.name == "verify"
    assert (found.chain, found.step) == (1, 4)  # the extend step "fix"


def test_a_store_read_in_a_helper_reports_the_step_that_uses_it() -> None:
    found = context(FIXTURE, 36, 32)
    assert found is not None and found.role == Role.STORE_GET
    assert found.prefix == "" and found.chain == 1 and found.step == 3  # review


def test_tool_guard_and_act_member_are_recognised_in_the_index() -> None:
    guard = context(FIXTURE, 85, 18)
    assert guard is not None and guard.role == Role.TOOL_GUARD and guard.prefix == "Ba"
    assert guard.tool_guard is not None and guard.tool_guard.tool == "Bash"
    member = context(FIXTURE, 73, 19)  # act.con|firm
    assert member is not None and member.role == Role.ACT_MEMBER and member.prefix == "con"


@pytest.mark.parametrize(
    ("typed", "role", "prefix"),
    [
        ('    .step("late", next="', Role.NEXT, ""),
        ('    .step("late", next="ab', Role.NEXT, "ab"),
        ('    .step("late", next=[branch("de', Role.BRANCH, "de"),
        ('    .step("late", next=[branch("x", when=f), branch(to="re', Role.BRANCH, "re"),
        ('    .step("late", max_visits=2, on_max_visits="', Role.ON_MAX_VISITS, ""),
        ('    .step("late", prompt=lambda ctx: ctx.store.steps[\'ch', Role.STORE_SUBSCRIPT, "ch"),
        ('    .step("late", prompt=lambda ctx: ctx.store.steps.get("', Role.STORE_GET, ""),
        ('    .step("late", prompt=lambda ctx: ctx.store.steps.all("', Role.STORE_ALL, ""),
        ('    .step("late", prompt=lambda ctx: ctx.store.steps.ran("', Role.STORE_RAN, ""),
        ('    .step("late", next=lambda ctx: "', Role.NEXT_RETURN, ""),
        (
            '    .step("late", next=lambda ctx: "a" if ctx.response.ok else "d',
            Role.NEXT_RETURN,
            "d",
        ),
        (
            '    .step("late", prompt=lambda ctx: ctx.host.tools_available.count("Ba',
            Role.TOOL_GUARD,
            "Ba",
        ),
        ('    .step("', Role.DEFINITION, ""),
        ('    .subskill("', Role.SUBSKILL_NAME, ""),
        ('    .step("late", prompt=act.ask', Role.ACT_MEMBER, "ask"),
        ('    .step("late", prompt=ctx.act.', Role.ACT_MEMBER, ""),
    ],
)
def test_half_typed_calls_still_give_the_completion_context(
    typed: str, role: Role, prefix: str
) -> None:
    text, line, column = typed_at(93, typed)
    found = context(text, line, column)
    assert found is not None, typed
    assert (found.role, found.prefix) == (role, prefix)
    assert found.chain == 1  # still inside release-desk, even if the chain no longer parses


def test_a_string_alone_on_its_line_reads_the_line_above() -> None:
    text = FIXTURE.replace(
        'next="done")\n    .step("done"', 'next=\n        "do")\n    .step("done"', 1
    )
    line = next(i for i, line in enumerate(text.split("\n")) if line.strip() == '"do")')
    found = context(text, line, 11)
    assert found is not None and found.role == Role.NEXT and found.prefix == "do"
    assert found.terminated


def test_an_unterminated_string_replaces_up_to_the_end_of_the_name() -> None:
    text, line, _ = typed_at(93, '    .step("late", next="ab-cd, x')
    found = context(text, line, len('    .step("late", next="ab'))
    assert found is not None and found.role == Role.NEXT and found.prefix == "ab"
    assert not found.terminated
    assert found.replace == SourceRange(line, 24, line, 29)


def test_entry_of_a_half_typed_skill_call() -> None:
    text = FIXTURE + 'late = skill(name="late", entry="'
    line = text.count("\n")
    found = context(text, line, len('late = skill(name="late", entry="'))
    assert found is not None and found.role == Role.ENTRY


def test_return_of_a_function_used_as_next() -> None:
    text = FIXTURE.replace(
        '        return "deploy"\n', '        return "deploy"\n    return "\n', 1
    )
    line = text.split("\n").index('    return "')
    found = context(text, line, len('    return "'))
    assert found is not None and found.role == Role.NEXT_RETURN


def test_a_guard_string_being_typed_before_the_in_check() -> None:
    text = FIXTURE.replace(
        'if "Bash" in ctx.host.tools_available', 'if "Gr" in ctx.host.tools_available', 1
    )
    line = text.split("\n").index('            if "Gr" in ctx.host.tools_available')
    found = context(text, line, 18)
    assert found is not None and found.role == Role.TOOL_GUARD and found.prefix == "Gr"


@pytest.mark.parametrize(
    ("line", "column"),
    [
        (2, 10),  # the module docstring
        (48, 3),  # code, not a string
        (47, 70),  # description="..." names no step
        (52, 20),  # an ask_user question
    ],
)
def test_strings_and_places_that_name_no_step_have_no_context(line: int, column: int) -> None:
    assert context(FIXTURE, line, column) is None


def test_comments_and_positions_outside_the_text_have_no_context() -> None:
    text = FIXTURE + '# next="do\n'
    line = text.count("\n") - 1
    assert context(text, line, 10) is None
    assert context(FIXTURE, 10_000, 0) is None
    assert context(FIXTURE, -1, 0) is None
    assert context("", 0, 0) is None
