"""host-branching-density: many steps branching on the host hint at a missing primitive."""

from __future__ import annotations

from collections.abc import Iterator

from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.lint.python_source import code_names
from skillkit_core.lint.rule import Rule
from skillkit_core.lint.workflow import WorkflowContext, step_callables

#: From this many steps with host-specific branches on, the rule reports.
THRESHOLD = 3


def branching_steps(ctx: WorkflowContext) -> list[str]:
    """Steps whose code consults ctx.host.tools_available, in step order."""
    found: set[str] = set()
    for guard in ctx.tool_guards():
        found.update(name for name, _ in ctx.owned(guard.owners))
    for step in ctx.steps.values():
        if any("tools_available" in code_names(fn) for _, fn in step_callables(step)):
            found.add(step.name)
    return [name for name in ctx.steps if name in found]


def _check(ctx: WorkflowContext) -> Iterator[LintDiagnostic]:
    steps = branching_steps(ctx)
    if len(steps) < THRESHOLD:
        return
    names = ", ".join(f"'{name}'" for name in steps)
    yield ctx.diagnostic(
        RULE,
        f"{len(steps)} steps ({names}) branch on ctx.host.tools_available; host-specific "
        "behaviour repeated across steps usually belongs in a primitive (act.*) that each "
        "host renders its own way",
    )


RULE = Rule(
    id="host-branching-density",
    severity="warning",
    summary=f"{THRESHOLD} or more steps branch on ctx.host.tools_available.",
    rationale=(
        "One host-specific guard is a local workaround; the same kind of guard in many "
        "steps means the skill is re-implementing per-host rendering by hand. That belongs "
        "in a primitive, which the preamble maps to each host's tool once."
    ),
    bad=(
        "# three steps, each with its own\n"
        'lambda ctx: "Use TodoWrite ..." if "TodoWrite" in ctx.host.tools_available else "..."'
    ),
    good='prompt=[act.checklist(create=[{"title": "Build"}, {"title": "Test"}]), "Do them."]',
    check=_check,
    target="workflow",
)
