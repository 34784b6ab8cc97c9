"""Structural diagnostics from the syntax index: each rule fires on a bad file, stays
silent on a good one, and stays silent where syntax cannot be sure."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillkit_core.lint.diagnostic import SourceRange
from skillkit_core.source import index_source, structural_diagnostics

FIXTURE = (Path(__file__).parent / "fixtures" / "release_desk.py").read_text(encoding="utf-8")
CLEAN = FIXTURE.replace('    .step("orphan", prompt="Personne 🙈", next="done")\n', "")

HEADER = "from skillkit_core import act, branch, module, skill, terminal\n\n"


def findings(text: str) -> list[tuple[str, str, int, str | None]]:
    return [
        (d.rule, d.severity, d.range.line if d.range else -1, d.step)
        for d in structural_diagnostics(index_source(text), file="skill.py")
    ]


def test_a_clean_file_has_no_structural_findings() -> None:
    assert findings(CLEAN) == []


def test_a_step_no_transition_reaches_is_unreachable() -> None:
    (diagnostic,) = structural_diagnostics(index_source(FIXTURE), file="release.py")
    assert diagnostic.rule == "unreachable-step" and diagnostic.severity == "warning"
    assert diagnostic.step == "orphan" and diagnostic.file == "release.py"
    assert diagnostic.range == SourceRange(94, 11, 94, 17)
    assert diagnostic.message == (
        "step 'orphan' can never run: no transition from the entry 'choose' leads to it"
    )


def test_a_misspelt_next_is_an_unknown_step_with_a_did_you_mean_fix() -> None:
    text = CLEAN.replace('blocker.", next="verify")', 'blocker.", next="verfy")')
    (diagnostic,) = structural_diagnostics(index_source(text), file="release.py")
    assert diagnostic.rule == "unknown-step" and diagnostic.severity == "error"
    assert diagnostic.message == "step 'fix': next 'verfy' is not a step; did you mean 'verify'?"
    assert diagnostic.step == "fix"
    assert diagnostic.range == SourceRange(80, 63, 80, 68)
    assert diagnostic.fix is not None and diagnostic.fix.title == "Change 'verfy' to 'verify'"
    (edit,) = diagnostic.fix.edits
    assert (edit.range, edit.new_text, edit.file) == (
        SourceRange(80, 63, 80, 68),
        "verify",
        "release.py",
    )


@pytest.mark.parametrize(
    ("old", "new", "line"),
    [
        ('branch(to="deploy")', 'branch(to="deplo")', 67),
        ('on_max_visits="abort"', 'on_max_visits="abrt"', 78),
        ("ctx.store.steps['choose']", "ctx.store.steps['chose']", 65),
        ('ctx.store.steps.ran("review")', 'ctx.store.steps.ran("reviews")', 88),
        ('"done" if ctx.store', '"dne" if ctx.store', 88),
        ('return "abort" if', 'return "abandon" if', 32),
        ('entry="choose"', 'entry="chose"', 47),
        ('"subskill:release"', '"subskill:relase"', 109),  # CLEAN lacks one line above
        ('"topic:rollback"', '"topic:rollbak"', 109),
        ('next="auth-login"', 'next="auth-logon"', 59),
    ],
)
def test_every_kind_of_step_naming_string_is_checked(old: str, new: str, line: int) -> None:
    assert old in CLEAN
    found = findings(CLEAN.replace(old, new, 1))
    # A broken on_max_visits is a broken loop guard, reported as the semantic rule does.
    rule = "cycle-guard" if old.startswith("on_max_visits") else "unknown-step"
    assert [(rule_, line_) for rule_, _, line_, _ in found] == [(rule, line)]


def test_unknown_routes_say_what_they_route_to() -> None:
    text = CLEAN.replace('"topic:rollback"', '"topic:rollbak"')
    (diagnostic,) = structural_diagnostics(index_source(text))
    assert diagnostic.message == (
        "step 'classify': next returns 'topic:rollbak', which names no registered topic; "
        "did you mean 'rollback'?"
    )
    assert diagnostic.fix is not None
    assert diagnostic.fix.edits[0].range == SourceRange(109, 77, 109, 84)  # after "topic:"


def test_no_unknown_step_when_the_step_names_are_not_all_literals() -> None:
    text = HEADER + (
        'flow = skill(name="s", entry="a").step("a", next="b-1")\n'
        "for number in range(3):\n"
        '    flow = flow.step(f"b-{number}", next=terminal)\n'
    )
    assert findings(text) == []


def test_no_unknown_step_for_modules_imported_from_elsewhere_or_not_registered() -> None:
    imported = HEADER + (
        "from elsewhere import auth\n"
        'flow = skill(name="s", entry="a").step("a", next="login").register(auth, next="a")\n'
    )
    assert findings(imported) == []
    open_module = HEADER + 'auth = module(name="m", entry="x").step("x", next="dashboard")\n'
    assert findings(open_module) == []


def test_a_duplicate_step_name_is_reported_on_the_second_definition() -> None:
    text = HEADER + (
        'flow = (skill(name="s", entry="a")\n'
        '    .step("a", next="b")\n'
        '    .step("b", next=terminal)\n'
        '    .step("b", next=terminal))\n'
    )
    (diagnostic,) = structural_diagnostics(index_source(text))
    assert diagnostic.rule == "duplicate-step" and diagnostic.severity == "error"
    assert diagnostic.range == SourceRange(5, 11, 5, 12)
    assert diagnostic.message == (
        "step 'b' is already defined on line 5; this definition is ignored, so rename one of them"
    )


def test_a_module_step_clashing_with_a_skill_step_is_a_duplicate() -> None:
    text = HEADER + (
        'auth = module(name="m", entry="a").step("a", next=PARENT).build()\n'
        'flow = skill(name="s", entry="a").step("a", next=terminal).register(auth, next="a")\n'
    )
    assert [rule for rule, *_ in findings(text)] == ["duplicate-step"]


def test_a_slash_in_a_dispatcher_step_name_is_reported() -> None:
    text = HEADER + (
        'desk = (skill(name="d", entry="pick/one")\n'
        '    .step("pick/one", next="subskill:x")\n'
        '    .subskill("x", other))\n'
    )
    (diagnostic,) = structural_diagnostics(index_source(text))
    assert diagnostic.rule == "composite-step-name" and diagnostic.severity == "error"
    assert diagnostic.range == SourceRange(3, 11, 3, 19)
    without_subskills = text.replace('    .subskill("x", other))\n', ")\n").replace(
        '"subskill:x"', "terminal"
    )
    assert findings(without_subskills) == []


def test_reachability_is_not_judged_when_a_next_is_dynamic() -> None:
    text = HEADER + (
        'flow = (skill(name="s", entry="a")\n'
        '    .step("a", next=lambda ctx: ctx.response.where)\n'
        '    .step("b", next=terminal))\n'
    )
    assert findings(text) == []


def test_a_misspelt_target_does_not_also_make_every_later_step_unreachable() -> None:
    text = CLEAN.replace('next="auth-login"', 'next="auth-logon"')
    assert [rule for rule, *_ in findings(text)] == ["unknown-step"]


def test_reachability_is_not_judged_while_the_chain_has_a_syntax_error() -> None:
    text = FIXTURE.replace('.step("abort", prompt=', '.step("abort", prompt=(', 1)
    assert "unreachable-step" not in [rule for rule, *_ in findings(text)]


def test_findings_come_in_document_order() -> None:
    text = FIXTURE.replace('next="auth-login"', 'next="auth-logon"').replace(
        'entry="classify"', 'entry="clasify"'
    )
    lines = [line for _, _, line, _ in findings(text)]
    assert lines == sorted(lines) and len(lines) == 2


LOOP = HEADER + (
    "flow = (\n"
    '    skill(name="s", entry="a", description="d")\n'
    '    .step("a", prompt="A", next="b")\n'
    "    .step(\n"
    '        "b",\n'
    '        prompt="B",\n'
    '        next=[branch("a", when=lambda c: True), branch("done")],\n'
    "    )\n"
    '    .step("done", prompt="D", next=terminal)\n'
    "    .build()\n"
    ")\n"
)


def test_an_unguarded_cycle_is_reported_without_running_code() -> None:
    (diagnostic,) = structural_diagnostics(index_source(LOOP), file="loop.py")
    assert (diagnostic.rule, diagnostic.severity, diagnostic.step) == (
        "cycle-guard",
        "warning",
        "a",
    )
    assert diagnostic.range == SourceRange(4, 10, 4, 13)
    assert diagnostic.message == (
        "steps 'a', 'b' form a cycle with no max_visits/on_max_visits; the implicit limit "
        "of 10 visits ends the run with an error. Add both to 'a'"
    )
    assert diagnostic.fix is not None
    assert diagnostic.fix.title == "Limit 'a' and leave the loop for 'done'"
    (edit,) = diagnostic.fix.edits
    assert (edit.range, edit.new_text, edit.file) == (
        SourceRange(4, 35, 4, 35),
        ', max_visits=10, on_max_visits="done"',
        "loop.py",
    )


def test_syntax_cycle_findings_are_the_semantic_rules_findings() -> None:
    from skillkit_core.lint.load_worker import check_file

    path = Path(__file__).parents[1] / "lint" / "workflow" / "fixtures" / "cycle_guard_bad.py"

    def facts(diagnostics: list) -> list[tuple[object, ...]]:
        loops = [
            d
            for d in diagnostics
            if d.rule == "cycle-guard"
            and ("form a cycle" in d.message or "loops back" in d.message)
        ]
        return [
            (
                d.severity,
                d.step,
                d.range,
                d.message,
                d.fix.title if d.fix else None,
                *((e.range, e.new_text) for e in (d.fix.edits if d.fix else ())),
                [(f.title, [(e.range, e.new_text) for e in f.edits]) for f in d.suggestions],
            )
            for d in loops
        ]

    syntax = facts(structural_diagnostics(index_source(path.read_text(encoding="utf-8"))))
    assert len(syntax) == 2  # 'poll' loops on itself; 'draft'/'review' lack on_max_visits
    assert syntax == facts(check_file(path).diagnostics)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ('next="b")', 'next="b", max_visits=3, on_max_visits="done")'),
        ('next="b")', 'next=lambda ctx: "b")'),
        ('next="b")', 'next="b" if FAST else "done")'),
        ('.step("a", prompt="A", next="b")', '.extend("a", template, prompt="A", next="b")'),
        ('branch("a", when', 'branch("x", when'),
    ],
)
def test_no_cycle_finding_where_syntax_cannot_be_sure_of_the_loop(old: str, new: str) -> None:
    assert old in LOOP
    assert "cycle-guard" not in [rule for rule, *_ in findings(LOOP.replace(old, new, 1))]


def test_a_self_loop_with_max_visits_only_asks_for_on_max_visits() -> None:
    text = HEADER + (
        'flow = (skill(name="s", entry="poll")\n'
        '    .step("poll", next=[branch("poll", when=lambda c: True), branch("end")], '
        "max_visits=3)\n"
        '    .step("end", next=terminal))\n'
    )
    (diagnostic,) = structural_diagnostics(index_source(text))
    assert diagnostic.message.startswith(
        "step 'poll' loops back to itself; 'poll' has max_visits=3 but no on_max_visits"
    )
    assert diagnostic.fix is not None
    assert [e.new_text for e in diagnostic.fix.edits] == [', on_max_visits="end"']


RETRY = (
    HEADER
    + """retry = (
    skill(name="retry", entry="fix", description="Fix until the tests pass.")
    .step("fix", prompt="Fix it.", next="test")
    .step(
        "test",
        prompt="Run the tests.",
        next=[
            branch("done", when=lambda ctx: ctx.response == "passed"),
            branch("give_up",
                   when=lambda ctx: ctx.response == "flaky"),
            branch("fix"),
        ],
    )
    .step("done", prompt="Passed.", next=terminal)
    .step("give_up", prompt="Flaky.", next=terminal)
    .build()
)
"""
)


def test_a_loop_left_only_under_conditions_gets_no_guessed_guard(tmp_path: Path) -> None:
    from skillkit_core.lint.load_worker import check_file

    (diagnostic,) = structural_diagnostics(index_source(RETRY), file="retry.py")
    assert diagnostic.rule == "cycle-guard" and diagnostic.fix is None
    assert [f.title for f in diagnostic.suggestions] == [
        "Limit 'fix' and leave the loop for 'done' (reached when a condition holds)",
        "Limit 'fix' and leave the loop for 'give_up' (reached when a condition holds)",
    ]
    # The semantic rule, which reads the built skill, offers the same choices.
    path = tmp_path / "retry_loop.py"
    path.write_text(RETRY, encoding="utf-8")
    (semantic,) = check_file(path).diagnostics
    assert semantic.fix is None
    assert [f.edits for f in semantic.suggestions] == [
        tuple(e._replace(file=None) for e in f.edits) for f in diagnostic.suggestions
    ]
