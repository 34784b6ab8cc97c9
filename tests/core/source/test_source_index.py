"""The index of a realistic skill file: chains, steps, every step-naming string, act calls,
tool guards and helper functions, each at its exact position (code-point columns)."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillkit_core.lint.diagnostic import SourceRange
from skillkit_core.source import (
    NextKind,
    Owner,
    PromptKind,
    Role,
    SourceIndex,
    Target,
    index_source,
)

FIXTURE = Path(__file__).parent / "fixtures" / "release_desk.py"


@pytest.fixture(scope="module")
def text() -> str:
    return FIXTURE.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def index(text: str) -> SourceIndex:
    return index_source(text)


def at(text: str, span: SourceRange) -> str:
    """The text a single-line range covers, counting columns in code points."""
    assert span.line == span.end_line
    return text.splitlines()[span.line][span.column : span.end_column]


def step_index(index: SourceIndex, name: str) -> int:
    (found,) = [step.index for step in index.steps if step.name == name]
    return found


# Every string of the fixture that names a step: (role, target, name, name range).
EXPECTED_REFS = [
    ("next-return", "step", "deploy", (31, 16, 31, 22)),
    ("next-return", "step", "abort", (32, 12, 32, 17)),
    ("next-return", "step", "fix", (32, 45, 32, 48)),
    ("store-get", "step", "verify", (36, 32, 36, 38)),
    ("entry", "step", "auth-login", (40, 31, 40, 41)),
    ("definition", "step", "auth-login", (41, 11, 41, 21)),
    ("entry", "step", "choose", (47, 44, 47, 50)),
    ("definition", "step", "choose", (49, 5, 49, 11)),
    ("next", "step", "auth-login", (59, 10, 59, 20)),
    ("next", "step", "verify", (61, 29, 61, 35)),
    ("definition", "step", "verify", (64, 9, 64, 15)),
    ("store-subscript", "step", "choose", (65, 53, 65, 59)),
    ("branch", "step", "review", (67, 22, 67, 28)),
    ("branch", "step", "deploy", (67, 83, 67, 89)),
    ("definition", "step", "review", (70, 9, 70, 15)),
    ("on-max-visits", "step", "abort", (78, 23, 78, 28)),
    ("definition", "step", "fix", (80, 13, 80, 16)),
    ("next", "step", "verify", (80, 63, 80, 69)),
    ("definition", "step", "deploy", (82, 9, 82, 15)),
    ("next-return", "step", "done", (88, 26, 88, 30)),
    ("store-ran", "step", "review", (88, 56, 88, 62)),
    ("next-return", "self", "self", (88, 71, 88, 75)),
    ("on-max-visits", "step", "done", (90, 23, 90, 27)),
    ("definition", "step", "abort", (92, 11, 92, 16)),
    ("next", "step", "done", (92, 55, 92, 59)),
    ("definition", "step", "done", (93, 11, 93, 15)),
    ("definition", "step", "orphan", (94, 11, 94, 17)),
    ("next", "step", "done", (94, 47, 94, 51)),
    ("entry", "step", "classify", (105, 30, 105, 38)),
    ("definition", "step", "classify", (107, 9, 107, 17)),
    ("next-return", "subskill", "release", (110, 35, 110, 42)),
    ("next-return", "topic", "rollback", (110, 77, 110, 85)),
    ("store-all", "step", "classify", (113, 86, 113, 94)),
]


def test_every_step_naming_string_is_found_with_its_role_and_exact_range(
    index: SourceIndex,
) -> None:
    found = [
        (ref.role.value, ref.target.value, ref.name, tuple(ref.name_range)) for ref in index.refs
    ]
    assert found == EXPECTED_REFS


def test_each_range_covers_exactly_the_name_it_records(text: str, index: SourceIndex) -> None:
    for ref in index.refs:
        assert at(text, ref.name_range) == ref.name
        quoted = at(text, ref.range)
        assert quoted[0] in "'\"" and quoted[-1] == quoted[0]
        assert at(text, ref.inner) == quoted[1:-1]


def test_columns_count_code_points_after_non_ascii_text(text: str, index: SourceIndex) -> None:
    # "Stopp ✋ — " (3-byte characters) and "Personne 🙈" (a 4-byte one) precede the refs.
    abort_next = next(ref for ref in index.refs if ref.role == Role.NEXT and ref.range.line == 92)
    assert abort_next.name_range == SourceRange(92, 55, 92, 59)
    line = text.splitlines()[92]
    assert len(line[:55].encode("utf-8")) == 59  # the byte column would be off by four
    orphan_next = next(ref for ref in index.refs if ref.role == Role.NEXT and ref.range.line == 94)
    assert orphan_next.name_range == SourceRange(94, 47, 94, 51)
    choose_read = next(ref for ref in index.refs if ref.role == Role.STORE_SUBSCRIPT)
    assert choose_read.range == SourceRange(65, 52, 65, 60)  # after "Prüfe" in an f-string


def test_chains_record_kind_variable_name_entry_and_calls(index: SourceIndex) -> None:
    auth, release, docs, desk = index.chains
    assert (auth.kind, auth.var, auth.display_name) == ("module", "auth", "auth")
    assert (release.kind, release.var, release.display_name) == ("skill", "release", "release-desk")
    assert (docs.kind, docs.var, docs.entry) == ("reference", "docs", None)
    assert (desk.kind, desk.var) == ("skill", "desk")
    assert release.name is not None and release.name.inner == SourceRange(47, 22, 47, 34)
    assert release.entry is not None and release.entry.inner == SourceRange(47, 44, 47, 50)
    assert [call.method for call in release.calls] == [
        "step", "register", "step", "step", "extend", "step", "step", "step", "step", "build",
    ]  # fmt: skip
    assert release.built and release.complete and not release.has_errors
    assert release.statement_range == SourceRange(47, 0, 47, 89)
    assert release.extent == SourceRange(47, 0, 96, 1)
    assert release.range == SourceRange(47, 10, 47, 89)
    entry_argument = next(argument for argument in release.arguments if argument.name == "entry")
    assert entry_argument.text == '"choose"'
    assert entry_argument.string is not None and entry_argument.string.value == "choose"


def test_a_chain_continued_through_its_variable_keeps_its_steps_in_order(
    index: SourceIndex,
) -> None:
    release = index.chains[1]
    names = [index.steps[position].name for position in release.steps]
    assert names == ["choose", "verify", "review", "fix", "deploy", "abort", "done", "orphan"]
    (registration,) = release.registrations
    assert registration.module == "auth" and registration.module_chain == 0
    assert registration.next is not None and registration.next.name == "verify"
    assert registration.range == SourceRange(61, 7, 61, 37)


def test_composite_declarations_name_their_subskills_and_topics(index: SourceIndex) -> None:
    desk = index.chains[3]
    (subskill,) = desk.subskills
    (topic,) = desk.topics
    assert (subskill.name, topic.name) == ("release", "rollback")
    assert subskill.name_string is not None and subskill.name_string.inner == SourceRange(
        112, 15, 112, 22
    )
    assert [argument.text for argument in subskill.arguments] == ['"release"', "release"]
    assert index.chains[2].topics[0].name == "rollback"


def test_steps_record_prompt_kind_response_next_and_loop_guard(index: SourceIndex) -> None:
    steps = {step.name: step for step in index.steps}
    assert steps["choose"].prompt == PromptKind.ACT and steps["choose"].primitives == ("ask_user",)
    assert steps["verify"].prompt == PromptKind.CALLABLE
    assert steps["review"].primitives == ("confirm",)
    assert steps["abort"].prompt == PromptKind.STRING
    assert steps["choose"].response == "Choose" and steps["deploy"].response is None
    assert steps["choose"].next == NextKind.STRING
    assert steps["verify"].next == NextKind.BRANCHES
    assert steps["review"].next == NextKind.CALLABLE and steps["review"].next_known
    assert steps["done"].next == NextKind.TERMINAL
    assert steps["auth-login"].next == NextKind.PARENT
    assert steps["review"].max_visits == "3"
    assert (
        steps["review"].on_max_visits is not None and steps["review"].on_max_visits.name == "abort"
    )
    assert steps["fix"].method == "extend" and steps["fix"].base == "open_note"
    assert steps["fix"].response is None  # inherited from the base step, not written here


def test_step_ranges_run_from_the_dot_to_the_closing_parenthesis(
    text: str, index: SourceIndex
) -> None:
    steps = {step.name: step for step in index.steps}
    assert steps["choose"].range == SourceRange(48, 7, 60, 1)
    assert steps["abort"].range == SourceRange(92, 4, 92, 61)
    assert at(text, steps["abort"].range).startswith('.step("abort"')
    assert at(text, steps["abort"].method_range) == "step"
    assert steps["fix"].name_string is not None
    assert steps["fix"].name_string.range == SourceRange(80, 12, 80, 17)


def test_owners_say_which_step_and_argument_a_string_sits_in(index: SourceIndex) -> None:
    review, deploy = step_index(index, "review"), step_index(index, "deploy")
    by_role = {(ref.role, ref.name): ref for ref in index.refs}
    # Inside a helper that review's prompt calls: attributed to that prompt, through the def.
    store_get = by_role[(Role.STORE_GET, "verify")]
    assert store_get.owners == (Owner(1, review, "prompt"),) and store_get.function == "_blockers"
    assert store_get.chain is None
    assert by_role[(Role.STORE_RAN, "review")].owners == (Owner(1, deploy, "next"),)
    # A def used as next: its literal returns belong to the step that uses it.
    assert by_role[(Role.NEXT_RETURN, "fix")].owners == (Owner(1, review, "next"),)
    verify_nexts = [
        ref.owners for ref in index.refs if ref.role == Role.NEXT and ref.name == "verify"
    ]
    assert verify_nexts == [
        (Owner(1, None, "register"),),
        (Owner(1, step_index(index, "fix"), "next"),),
    ]
    assert by_role[(Role.STORE_ALL, "classify")].owners == (Owner(3, None, "content"),)


def test_a_lambda_next_yields_its_literal_returns_and_route_targets(index: SourceIndex) -> None:
    classify = [ref for ref in index.refs if ref.role == Role.NEXT_RETURN and ref.chain == 3]
    assert [(ref.target, ref.name) for ref in classify] == [
        (Target.SUBSKILL, "release"),
        (Target.TOPIC, "rollback"),
    ]
    # "subskill:" is not part of the name range; the whole content is the inner range.
    assert classify[0].inner == SourceRange(110, 26, 110, 42)


def test_act_calls_record_primitive_arguments_and_option_values(
    text: str, index: SourceIndex
) -> None:
    ask, confirm = index.act_calls
    assert ask.primitive == "ask_user" and ask.range == SourceRange(50, 11, 57, 5)
    assert at(text, ask.name_range) == "ask_user"
    assert [(option.value, option.inner) for option in ask.options] == [
        ("production", SourceRange(54, 23, 54, 33)),
        ("staging", SourceRange(55, 23, 55, 30)),
    ]
    assert [argument.name for argument in ask.arguments] == ["type", "question", "options"]
    question = ask.arguments[1]
    assert question.string is not None and question.string.value == "Où déployer ? 🚀"
    assert question.value_range == SourceRange(52, 17, 52, 34)
    assert confirm.primitive == "confirm" and confirm.owners == (
        Owner(1, step_index(index, "review"), "prompt"),
    )


def test_tool_guards_record_the_tool_its_range_and_the_guarded_code(
    text: str, index: SourceIndex
) -> None:
    (guard,) = index.tool_guards
    assert (guard.tool, guard.form) == ("Bash", "in")
    assert guard.inner == SourceRange(85, 16, 85, 20)
    assert guard.scope == SourceRange(84, 12, 84, 42)
    assert at(text, guard.scope) == '"Use the Bash tool to deploy."'
    assert guard.owners == (Owner(1, step_index(index, "deploy"), "prompt"),)


def test_functions_used_by_steps_are_listed_with_their_returns(index: SourceIndex) -> None:
    route, blockers = index.functions
    assert route.name == "route_after_review" and route.used_as_next and route.returns_known
    assert [ref.name for ref in route.returns] == ["deploy", "abort", "fix"]
    assert route.name_range == SourceRange(29, 4, 29, 22)
    assert blockers.name == "_blockers" and not blockers.used_as_next
    assert blockers.owners == (Owner(1, step_index(index, "review"), "prompt"),)


def test_the_index_is_frozen(index: SourceIndex) -> None:
    with pytest.raises(AttributeError):
        index.steps = ()  # type: ignore[misc]
    with pytest.raises(AttributeError):
        index.steps[0].name = "x"  # type: ignore[misc]


def test_steps_hidden_by_a_syntax_error_are_recovered_from_the_text(text: str) -> None:
    broken = text.replace('next="done")\n    .step("done"', 'next=\n    .step("done"', 1)
    index = index_source(broken)
    assert index.has_errors
    steps = {step.name: step for step in index.steps}
    assert {"done", "orphan"} <= set(steps)
    assert steps["orphan"].recovered and steps["orphan"].chain == 1
    assert steps["orphan"].name_string is not None
    assert steps["orphan"].name_string.inner == SourceRange(94, 11, 94, 17)
    assert index.chains[1].has_errors


@pytest.mark.parametrize(
    ("literal", "value"),
    [
        (r'"a\tb"', "a\tb"),
        (r'"caf\u00e9"', "café"),
        (r'"\N{BULLET} x"', "• x"),
        (r'"\q"', "\\q"),  # unknown escapes stay, without Python's warning
        (r'r"\n"', "\\n"),
        ("'it\\'s'", "it's"),
    ],
)
def test_escapes_in_step_names_are_decoded_as_python_does(literal: str, value: str) -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        index = index_source(
            f'x = skill(name="s", entry={literal}).step({literal}, next=terminal)\n'
        )
    assert index.steps[0].name == value
    assert index.chains[0].entry is not None and index.chains[0].entry.name == value
