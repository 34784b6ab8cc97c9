"""invalid-definition: what a lenient build let through that no other rule covers."""

from __future__ import annotations

from collections.abc import Iterator

from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.lint.rule import Rule
from skillkit_core.lint.workflow import WorkflowContext


def _check(ctx: WorkflowContext) -> Iterator[LintDiagnostic]:
    skill = ctx.skill
    if skill is None:
        if not ctx.definition.topics:
            yield ctx.diagnostic(
                RULE, "a reference skill needs at least one .topic(...); it has none"
            )
        return
    if not skill.steps:
        yield ctx.diagnostic(RULE, "the skill has no steps; add one with .step(...)")
    declared = {d.name: d for d in (ctx.chain.subskills if ctx.chain is not None else ())}
    for sub in skill.subskills:
        if sub.definition.subskills:
            declaration = declared.get(sub.name)
            string = declaration.name_string if declaration is not None else None
            yield ctx.diagnostic(
                RULE,
                f"sub-skill '{sub.name}' has sub-skills of its own; composites do not nest, "
                "so register its sub-skills on this dispatcher instead",
                range=string.range if string is not None else None,
            )


RULE = Rule(
    id="invalid-definition",
    severity="error",
    summary="A skill that cannot run: no steps, no topics, or nested composites.",
    rationale=(
        "A strict .build() refuses these; editors and skillkit check build leniently to "
        "report everything at once, and this rule reports what no more specific rule does."
    ),
    bad='skill(name="empty", entry="start").build()',
    good='skill(name="hi", entry="start").step("start", prompt="Say hi.", next=terminal).build()',
    check=_check,
    target="workflow",
)
