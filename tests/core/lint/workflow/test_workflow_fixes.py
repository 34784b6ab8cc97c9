"""Safe fixes of workflow rules: applied to a copy, the file compiles and re-checks clean."""

from __future__ import annotations

import shutil
from pathlib import Path

from skillkit_core.lint.fixing import apply_fixes
from skillkit_core.lint.load_worker import check_file
from tests.core.lint.workflow.support import FIXTURES, findings


def _fixed(tmp_path: Path, fixture: str) -> tuple[str, list]:
    """Copy a fixture, apply every fix it gets, return the new text and a re-check."""
    target = tmp_path / Path(fixture).name
    shutil.copy(FIXTURES / fixture, target)
    before = check_file(target).diagnostics
    result = apply_fixes(d for d in before if d.fix is not None)
    assert result.files == (str(target),)
    text = target.read_text()
    compile(text, str(target), "exec")
    return text, check_file(target).diagnostics


def test_cycle_guard_fix_adds_a_limit_and_an_exit(tmp_path: Path) -> None:
    text, after = _fixed(tmp_path, "cycle_guard_bad.py")
    assert 'branch("draft")],\n        max_visits=10,\n        on_max_visits="draft",\n' in text
    assert 'on_max_visits="finish",' in text
    # review leaves the draft/review loop for 'report' only when the notes are done: a
    # guard going there would claim they are, so --fix leaves that choice to a person
    assert 'on_max_visits="report"' not in text
    # what has no safe fix is still reported
    assert findings(after) == [
        ("cycle-guard", "warning", 25),
        ("cycle-guard", "error", 51),
        ("cycle-guard", "warning", 53),
    ]


RETRY = (
    "from pydantic import BaseModel\n\nfrom skillkit_core import branch, skill, terminal\n\n\n"
    "class Result(BaseModel):\n    passed: bool\n    flaky: bool\n\n\n"
    'retry = (skill(name="retry", entry="fix", description="Fix until the tests pass.")\n'
    '    .step("fix", prompt="Fix the failing test.", next="test")\n'
    '    .step("test", prompt="Run the tests.", response=Result, next=['
    'branch("done", when=lambda c: c.response.passed){more}, branch("fix")])\n'
    '    .step("done", prompt="Tests passed.", next=terminal){step}.build())\n'
)


def _retry(tmp_path: Path, more: str = "", step: str = "") -> Path:
    source = tmp_path / "retry.py"
    source.write_text(RETRY.format(more=more, step=step))
    return source


def test_cycle_guard_fix_never_sends_a_retry_loop_to_its_success_branch(tmp_path: Path) -> None:
    source = _retry(tmp_path)
    (diagnostic,) = check_file(source).diagnostics
    assert diagnostic.rule == "cycle-guard" and diagnostic.fix is None
    before = source.read_text()
    assert apply_fixes(check_file(source).diagnostics).files == ()
    assert source.read_text() == before
    # offered, for a person to choose: the one way out, saying it is reached under a condition
    (only,) = diagnostic.suggestions
    assert only.title == (
        "Limit 'fix' and leave the loop for 'done' (reached when a condition holds)"
    )


def test_cycle_guard_offers_one_guard_per_way_out(tmp_path: Path) -> None:
    more = ', branch("give_up", when=lambda c: c.response.flaky)'
    step = '\n    .step("give_up", prompt="Report the flaky test.", next=terminal)'
    source = _retry(tmp_path, more, step)
    (diagnostic,) = check_file(source).diagnostics
    assert diagnostic.fix is None
    titles = [fix.title for fix in diagnostic.suggestions]
    assert titles == [
        "Limit 'fix' and leave the loop for 'done' (reached when a condition holds)",
        "Limit 'fix' and leave the loop for 'give_up' (reached when a condition holds)",
    ]
    # choosing one is applying its edits: the loop is then guarded
    apply_fixes([diagnostic._replace(fix=diagnostic.suggestions[1])])
    assert 'max_visits=10, on_max_visits="give_up"' in source.read_text()
    assert check_file(source).diagnostics == []


def test_cycle_guard_fix_keeps_a_one_line_call_on_one_line(tmp_path: Path) -> None:
    source = tmp_path / "ping.py"
    source.write_text(
        "from skillkit_core import skill, terminal, branch\n\n"
        'ping = (skill(name="ping", entry="ping", description="Ping.")\n'
        '    .step("ping", prompt="Ping?", next=[branch("ping", when=lambda c: True), '
        'branch("end")])\n'
        '    .step("end", prompt="End.", next=terminal).build())\n'
    )
    (diagnostic,) = check_file(source).diagnostics
    assert diagnostic.fix is not None
    apply_fixes([diagnostic])
    assert 'branch("end")], max_visits=10, on_max_visits="end")' in source.read_text()
    assert check_file(source).diagnostics == []


def test_unknown_step_fix_uses_the_closest_name(tmp_path: Path) -> None:
    text, after = _fixed(tmp_path, "unknown_step_bad.py")
    assert 'next="verify")' in text
    assert 'branch("abort")' in text
    assert "ctx.store.steps.get('verify')" in text
    assert 'entry="start"' in text
    assert 'branch("topic:auth"' in text
    # "report" is close to no step, and "__parent__" needs a next= of its own: reported,
    # not guessed
    assert findings(after) == [("unknown-step", "error", 30), ("unknown-step", "error", 57)]


def test_primitive_mismatch_fix_adds_the_value_to_the_literal(tmp_path: Path) -> None:
    text, after = _fixed(tmp_path, "primitive_schema_bad.py")
    assert 'target: Literal["production", "staging", "dev", "prod"]' in text
    # the Enum case has no safe fix; the extra Literal values remain a warning
    assert findings(after) == [
        ("primitive-schema-mismatch", "warning", 35),
        ("primitive-schema-mismatch", "error", 46),
    ]


def test_unknown_tool_fix_corrects_the_guard(tmp_path: Path) -> None:
    text, after = _fixed(tmp_path, "host_branching_bad.py")
    assert 'if "AskUserQuestion" in ctx.host.tools_available' in text
    # now the guard covers the mention, so no-host-tool-names is satisfied too
    assert findings(after) == [("host-branching-density", "warning", 13)]
