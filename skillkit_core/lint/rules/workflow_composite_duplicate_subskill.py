"""composite-duplicate-subskill: each sub-skill name is registered once."""

from __future__ import annotations

from collections.abc import Iterator

from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.lint.rule import Rule
from skillkit_core.lint.workflow import WorkflowContext, duplicate_registrations


def _check(ctx: WorkflowContext) -> Iterator[LintDiagnostic]:
    skill = ctx.skill
    if skill is None:
        return
    names = [sub.name for sub in skill.subskills]
    for name, where in duplicate_registrations(ctx, "subskill", names):
        yield ctx.diagnostic(
            RULE,
            f"sub-skill '{name}' is registered more than once; 'subskill:{name}' would be "
            "ambiguous, so rename or remove one",
            range=where,
        )


RULE = Rule(
    id="composite-duplicate-subskill",
    severity="error",
    summary="Two sub-skills of a composite share a name.",
    rationale=(
        "Sub-skill names are addresses ('subskill:doctor', 'doctor/diagnose'). A second "
        "registration under the same name must not silently replace the first (the "
        "TypeScript SDK does exactly that); it is reported instead."
    ),
    bad='.subskill("doctor", repo_doctor)\n.subskill("doctor", dep_doctor)',
    good='.subskill("repo-doctor", repo_doctor)\n.subskill("dep-doctor", dep_doctor)',
    check=_check,
    target="workflow",
)
