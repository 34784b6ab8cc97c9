"""``check_skill(definition, root_dir)``: the public API, with and without source."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

from skillkit_core import check_skill
from skillkit_core.builder.skill import lenient_builds
from skillkit_core.definitions import SkillDefinition
from tests.core.lint.workflow.support import FIXTURES, findings

EXAMPLES = Path(__file__).parents[4] / "examples"

COMPOSITE = """\
from skillkit_core import skill, terminal

doctor = (
    skill(name="doctor", entry="diagnose", description="Diagnose.")
    .step("diagnose", prompt="Use TodoWrite to list the checks.", next=terminal)
    .step("orphan", prompt="Never reached.", next=terminal)
    .build()
)

desk = (
    skill(name="desk", entry="route", description="Route.")
    .step("route", prompt="Route the question.", next="subskill:doctor")
    .subskill("doctor", doctor)
    .build()
)
"""


def _load(path: Path, attr: str) -> SkillDefinition:
    with lenient_builds():
        return runpy.run_path(str(path))[attr]


def test_composites_lint_each_subskill_with_a_prefix(tmp_path: Path) -> None:
    path = tmp_path / "desk.py"
    path.write_text(COMPOSITE)
    found = check_skill(_load(path, "desk"), tmp_path)
    assert [(d.rule, d.step, d.message.split("]")[0] + "]") for d in found] == [
        ("no-host-tool-names", "doctor/diagnose", "[subskill:doctor]"),
        ("unreachable-step", "doctor/orphan", "[subskill:doctor]"),
    ]
    assert [d.range.line + 1 for d in found] == [5, 6]  # type: ignore[union-attr]
    assert all(d.file == str(path) for d in found)


def test_select_and_ignore_take_ids_and_patterns(tmp_path: Path) -> None:
    path = tmp_path / "desk.py"
    path.write_text(COMPOSITE)
    desk = _load(path, "desk")
    assert [d.rule for d in check_skill(desk, tmp_path, select=["unreachable-*"])] == [
        "unreachable-step"
    ]
    assert [d.rule for d in check_skill(desk, tmp_path, ignore=["no-host-tool-names"])] == [
        "unreachable-step"
    ]


def test_source_text_is_used_instead_of_the_file_on_disk(tmp_path: Path) -> None:
    path = tmp_path / "desk.py"
    path.write_text(COMPOSITE)
    desk = _load(path, "desk")
    shifted = "# an unsaved edit\n\n" + COMPOSITE
    found = check_skill(desk, tmp_path, source=shifted)
    assert [d.range.line + 1 for d in found] == [7, 8]  # type: ignore[union-attr]


def test_without_source_rules_still_report_without_ranges() -> None:
    code = """
from skillkit_core import skill, terminal, branch

def prompt(ctx):
    if "AskUserQuestion" in ctx.host.tools_available:
        return "Ask with AskUserQuestion."
    return "Ask in chat; then apply_patch the fix."

flow = (
    skill(name="flow", entry="ask", description="No file behind it.")
    .step("ask", prompt=prompt, next=[branch("ask", when=lambda c: True), branch("end")])
    .step("end", prompt="Done.", next="nowhere")
    .build(strict=False)
)
"""
    namespace: dict = {}
    exec(compile(code, "<no file>", "exec"), namespace)
    flow = namespace["flow"]
    assert flow.source_file is None
    found = check_skill(flow, ".")
    assert [(d.rule, d.step) for d in found] == [
        ("cycle-guard", "ask"),
        ("no-host-tool-names", "ask"),
        ("unknown-step", "end"),
    ]
    assert "'apply_patch'" in found[1].message  # the guarded AskUserQuestion is allowed
    assert all(d.range is None and d.file is None for d in found)


@pytest.mark.parametrize(
    "example", sorted(p for p in EXAMPLES.glob("*/*.py") if not p.name.startswith("test_"))
)
def test_the_examples_are_clean(example: Path) -> None:
    namespace = runpy.run_path(str(example))
    definitions = [v for v in namespace.values() if isinstance(v, SkillDefinition)]
    assert definitions
    for definition in definitions:
        assert check_skill(definition, example.parent) == []


def test_act_primitives_in_prompt_callables_are_not_host_tool_names() -> None:
    """The TypeScript SDK's rule fires on act.ask_user(question=...) and act.plan(...):
    it searches function text for tool names such as OpenCode's 'question' and 'plan'."""
    good = _load(FIXTURES / "host_tools_good.py", "good")
    assert findings(check_skill(good, FIXTURES, select=["no-host-tool-names"])) == []
