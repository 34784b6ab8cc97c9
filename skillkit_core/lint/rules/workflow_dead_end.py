"""dead-end: from every step some path leads to the end of the run."""

from __future__ import annotations

from collections.abc import Iterator

from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.lint.rule import Rule
from skillkit_core.lint.workflow import WorkflowContext, broken_steps


def _check(ctx: WorkflowContext) -> Iterator[LintDiagnostic]:
    skill = ctx.skill
    if skill is None:
        return
    graph = ctx.graph
    # Ways out of the run: terminal steps, routes into a sub-skill or topic, and steps
    # whose targets we cannot see (a next callable we cannot read, a target that
    # unknown-step reports) — those must not make their predecessors look stuck.
    exits = set(graph.terminal) | graph.opaque
    exits |= {name for name, routes in graph.routes.items() if routes}
    exits |= broken_steps(ctx)
    predecessors: dict[str, set[str]] = {name: set() for name in ctx.steps}
    for edge in graph.edges:
        predecessors[edge.target].add(edge.source)
    finishing = set(exits)
    pending = list(exits)
    while pending:
        for prev in predecessors[pending.pop()]:
            if prev not in finishing:
                finishing.add(prev)
                pending.append(prev)
    considered = graph.reachable if skill.entry in ctx.steps else frozenset(ctx.steps)
    for name in ctx.steps:
        if name in considered and name not in finishing:
            yield ctx.diagnostic(
                RULE,
                f"no path from step '{name}' reaches a terminal step, so a run that gets "
                "here can never finish",
                step=name,
            )


RULE = Rule(
    id="dead-end",
    severity="error",
    summary="A step from which no path reaches a terminal step.",
    rationale=(
        "A run that reaches such a step can only loop until a visit limit stops it with "
        "an error. Every step needs some path to next=terminal (or to a sub-skill or topic "
        "route of a composite)."
    ),
    bad=(
        '.step("review", prompt="Review.", response=Review, next="revise")\n'
        '.step("revise", prompt="Revise.", response=Draft, next="review")'
    ),
    good=(
        '.step("review", prompt="Review.", response=Review,\n'
        '      next=[branch("done", when=lambda ctx: ctx.response.ok), branch("revise")])\n'
        '.step("revise", prompt="Revise.", response=Draft, next="review")\n'
        '.step("done", prompt="Summarise.", next=terminal)'
    ),
    check=_check,
    target="workflow",
)
