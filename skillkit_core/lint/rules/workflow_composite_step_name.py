"""composite-step-name: a dispatcher's step names leave '/' to sub-skill steps."""

from __future__ import annotations

from collections.abc import Iterator

from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.lint.rule import Rule
from skillkit_core.lint.workflow import WorkflowContext


def _check(ctx: WorkflowContext) -> Iterator[LintDiagnostic]:
    skill = ctx.skill
    if skill is None or not skill.is_composite:
        return
    for name in ctx.steps:
        if "/" in name:
            yield ctx.diagnostic(RULE, slash_name_message(name), step=name)


def slash_name_message(step: str) -> str:
    """The finding's words (the syntax layer reports it the same way)."""
    return (
        f"dispatcher step '{step}' contains '/', which names sub-skill steps "
        "(such as 'doctor/diagnose'); rename it"
    )


RULE = Rule(
    id="composite-step-name",
    severity="error",
    summary="A composite dispatcher's step name contains '/'.",
    rationale=(
        "In a composite, 'name/step' addresses step 'step' of sub-skill 'name': advance "
        "routes on the slash. A dispatcher step with a slash in its name would be taken "
        "for a sub-skill step and could never be advanced."
    ),
    bad='.step("triage/start", prompt="What do you need?", response=Need, next=route)',
    good='.step("triage", prompt="What do you need?", response=Need, next=route)',
    check=_check,
    target="workflow",
)
