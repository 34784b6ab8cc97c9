"""unreachable-step: every step can be reached from the entry."""

from __future__ import annotations

from collections.abc import Iterator

from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.lint.rule import Rule
from skillkit_core.lint.workflow import WorkflowContext, broken_steps


def _check(ctx: WorkflowContext) -> Iterator[LintDiagnostic]:
    skill = ctx.skill
    if skill is None or skill.entry not in ctx.steps:
        return  # unknown-step reports the entry; reachability is meaningless without it
    graph = ctx.graph
    if (graph.opaque | broken_steps(ctx)) & graph.reachable:
        return  # a next we cannot read, or a mistyped target, may lead anywhere
    for name in ctx.steps:
        if name not in graph.reachable:
            yield ctx.diagnostic(RULE, unreachable_message(name, skill.entry), step=name)


def unreachable_message(step: str, entry: str) -> str:
    """The finding's words (the syntax layer reports it the same way)."""
    return f"step '{step}' can never run: no transition from the entry '{entry}' leads to it"


RULE = Rule(
    id="unreachable-step",
    severity="warning",
    summary="A step that no path from the entry reaches.",
    rationale=(
        "A step nothing transitions to is dead code: usually a forgotten next= or branch, "
        "or a renamed step. Transitions are read from next=, branches, on_max_visits and "
        "the step names a next callable returns; when a next callable's targets cannot be "
        "read at all, the rule stays silent."
    ),
    bad=(
        '.step("ask", prompt="Ask.", response=Answer, next="done")\n'
        '.step("done", prompt="Wrap up.", next=terminal)\n'
        '.step("followup", prompt="Ask more.", next="done")  # nothing leads here'
    ),
    good=(
        '.step("ask", prompt="Ask.", response=Answer, next="followup")\n'
        '.step("followup", prompt="Ask more.", next="done")\n'
        '.step("done", prompt="Wrap up.", next=terminal)'
    ),
    check=_check,
    target="workflow",
)
