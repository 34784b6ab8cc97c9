"""unguarded-store-access: ``ctx.store.steps["x"]`` only where step x has surely run."""

from __future__ import annotations

from collections.abc import Iterator

from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.lint.rule import Rule
from skillkit_core.lint.workflow import WorkflowContext

# Callbacks that run after the step's own result is stored (a branch's when= counts as
# next=); prompt, action and save run before it.
_AFTER_STORE = frozenset({"next"})


def _check(ctx: WorkflowContext) -> Iterator[LintDiagnostic]:
    if ctx.skill is None or ctx.skill.entry not in ctx.steps:
        return
    graph = ctx.graph
    for ref in ctx.refs(("store-subscript",)):
        if ref.target != "step" or ref.name not in ctx.steps:
            continue  # unknown-step reports lookups of names that are no step
        for step, slot in ctx.owned(ref.owners):
            if step not in graph.reachable:
                continue
            ran = set(graph.guaranteed_before(step))
            if slot in _AFTER_STORE:
                ran.add(step)
            if ref.name in ran:
                continue
            if ref.name == step:
                why = f"its {slot} runs before '{step}' has a result on the first visit"
            else:
                why = f"not every path from the entry to '{step}' passes through '{ref.name}'"
            yield ctx.diagnostic(
                RULE,
                f"step '{step}' reads ctx.store.steps['{ref.name}'], which raises when "
                f"'{ref.name}' has not run: {why}. Use ctx.store.steps.get('{ref.name}') "
                "and handle None",
                step=step,
                range=ref.range,
            )
            break  # one finding per lookup, even when several steps share the code


RULE = Rule(
    id="unguarded-store-access",
    severity="warning",
    summary="ctx.store.steps['x'] in a step that can run before step x.",
    rationale=(
        "ctx.store.steps['x'] raises when step x has not run; ctx.store.steps.get('x') "
        "returns None instead. Subscript only results of steps that run on every path to "
        "the step reading them (the TypeScript SDK checks this in its types; we read it "
        "from the source and the step graph)."
    ),
    bad=(
        '.step("start", prompt="Quick or full?", response=Mode,\n'
        '      next=[branch("scan", when=lambda ctx: ctx.response.full), branch("report")])\n'
        '.step("scan", prompt="Scan everything.", response=Scan, next="report")\n'
        '.step("report", prompt=lambda ctx: f"Found {ctx.store.steps[\'scan\'].count}.",\n'
        "      next=terminal)"
    ),
    good=(
        '.step("report", prompt=lambda ctx: (\n'
        '          f"Found {s.count}." if (s := ctx.store.steps.get("scan")) else "Quick."),\n'
        "      next=terminal)"
    ),
    check=_check,
    target="workflow",
)
