"""unguarded-store-access: ``ctx.store.steps["x"]`` only where step x has surely run."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

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
        readers = [
            (step, slot)
            for step, slot in dict.fromkeys(ctx.owned(ref.owners))
            if step in graph.reachable and not _has_run(graph, ref.name, step, slot)
        ]
        if readers:
            # One finding per lookup, naming every step that reaches it unguarded (a
            # helper shared by several steps is fixed once, for all of them).
            yield ctx.diagnostic(
                RULE,
                _message(ref.name, readers, ref.function),
                step=readers[0][0] if len({step for step, _ in readers}) == 1 else None,
                range=ref.range,
            )


def _has_run(graph: Any, name: str, step: str, slot: str) -> bool:
    ran = set(graph.guaranteed_before(step))
    if slot in _AFTER_STORE:
        ran.add(step)
    return name in ran


def _message(name: str, readers: list[tuple[str, str]], helper: str | None) -> str:
    steps = list(dict.fromkeys(step for step, _ in readers))
    who = f"step '{steps[0]}' reads" if len(steps) == 1 else f"steps {_names(steps)} read"
    through = f" (in {helper}())" if helper and len(steps) > 1 else ""
    skipped = [step for step in steps if step != name]
    reasons = []
    if skipped:
        reasons.append(
            f"not every path from the entry to {_names(skipped, 'or')} passes through '{name}'"
        )
    for step, slot in readers:
        if step == name:
            reasons.append(f"its {slot} runs before '{step}' has a result on the first visit")
    return (
        f"{who} ctx.store.steps['{name}']{through}, which raises when '{name}' has not "
        f"run: {'; '.join(reasons)}. Use ctx.store.steps.get('{name}') and handle None"
    )


def _names(steps: list[str], last: str = "and") -> str:
    quoted = [f"'{step}'" for step in steps]
    if len(quoted) == 1:
        return quoted[0]
    return f"{', '.join(quoted[:-1])} {last} {quoted[-1]}"


RULE = Rule(
    id="unguarded-store-access",
    severity="warning",
    summary="ctx.store.steps['x'] in a step that can run before step x.",
    rationale=(
        "ctx.store.steps['x'] raises when step x has not run; ctx.store.steps.get('x') "
        "returns None instead. Subscript only results of steps that run on every path to "
        "the step reading them (the TypeScript SDK checks this in its types; we read it "
        "from the source and the step graph). A lookup in a helper that several steps "
        "call is one finding naming every step that can reach it unguarded."
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
