"""cycle-guard: loops carry an explicit visit limit and a valid way out."""

from __future__ import annotations

from collections.abc import Iterator

from skillkit_core.lint.diagnostic import Fix, LintDiagnostic
from skillkit_core.lint.rule import Rule
from skillkit_core.lint.workflow import (
    WorkflowContext,
    add_arguments_fix,
    replacement_fix,
    string_literal,
    unknown_target,
)
from skillkit_core.source.diagnostics import closest_name, unknown_name_message
from skillkit_core.source.model import Role

# The definitions and the engine are imported on first use: the registry (and with it
# this module) is loaded by every ``skillkit check``, also of SKILL.md folders only.
# How the unguarded-loop messages say it (the fix recognises its diagnostics by them).
_LOOP_MARKS = ("loops back to itself", "form a cycle")


def _check(ctx: WorkflowContext) -> Iterator[LintDiagnostic]:
    if ctx.skill is None:
        return
    yield from _invalid_guards(ctx)
    yield from _unguarded_cycles(ctx)


# ---------------------------------------------------------------- invalid guards


def _invalid_guards(ctx: WorkflowContext) -> Iterator[LintDiagnostic]:
    skill = ctx.skill
    assert skill is not None
    for step in ctx.steps.values():
        target = step.on_max_visits
        if target is None:
            continue
        where = _on_max_visits_range(ctx, step.name)
        if target in ("self", step.name):
            yield ctx.diagnostic(
                RULE,
                f"step '{step.name}': on_max_visits='{target}' re-enters the step whose "
                "limit was just reached; name the step to go to instead",
                step=step.name,
                range=where,
                severity="error",
            )
        elif (missing := unknown_target(ctx, target)) is not None:
            hint = closest_name(missing.name, missing.candidates)
            yield ctx.diagnostic(
                RULE,
                unknown_name_message(Role.ON_MAX_VISITS, step.name, target, missing.kind, hint),
                step=step.name,
                range=where,
                severity="error",
            )
        elif step.max_visits is None and step.name not in _looping(ctx):
            yield ctx.diagnostic(
                RULE,
                f"step '{step.name}' has on_max_visits but no max_visits and is not on a "
                "cycle, so the limit never applies; add max_visits or drop on_max_visits",
                step=step.name,
                range=where,
                severity="warning",
            )


def _looping(ctx: WorkflowContext) -> set[str]:
    """Steps on a cycle of next/branch transitions (a guard's own on_max_visits edge
    does not make its step loop)."""
    successors: dict[str, list[str]] = {name: [] for name in ctx.steps}
    for edge in ctx.graph.edges:
        if edge.kind != "max_visits":
            successors[edge.source].append(edge.target)
    from skillkit_core.engine.graph import cyclic_components

    return set().union(*cyclic_components(successors))


def _on_max_visits_range(ctx: WorkflowContext, step: str):  # type: ignore[no-untyped-def]
    info = ctx.step_info(step)
    if info is not None and info.on_max_visits is not None:
        return info.on_max_visits.name_range
    argument = ctx.step_argument(step, "on_max_visits")
    return argument.value_range if argument is not None else ctx.step_range(step)


# ---------------------------------------------------------------- unguarded cycles


def _unguarded_cycles(ctx: WorkflowContext) -> Iterator[LintDiagnostic]:
    from skillkit_core.engine.graph import cyclic_components

    graph = ctx.graph
    order = list(ctx.steps)
    guarded = {
        name
        for name, step in ctx.steps.items()
        if step.max_visits is not None and step.on_max_visits is not None
    }
    for cycle in graph.cycles:
        members = set(cycle) - guarded
        successors = {n: [m for m in graph.successors[n] if m in members] for n in members}
        for component in cyclic_components(successors):
            head = _head(ctx, component, order)
            loop = sorted(component, key=order.index)
            message = unguarded_message(head, loop, ctx.steps[head].max_visits)
            yield ctx.diagnostic(RULE, message, step=head, severity="warning")


def unguarded_message(head: str, loop: list[str], max_visits: int | None) -> str:
    """The finding for an unguarded loop (``loop`` in source order, guarded at ``head``);
    the syntax layer reports the same words before any code runs."""
    from skillkit_core.engine.graph import IMPLICIT_MAX_VISITS

    if len(loop) == 1:
        what = f"step '{head}' {_LOOP_MARKS[0]}"
    else:
        names = ", ".join(f"'{n}'" for n in loop)
        what = f"steps {names} {_LOOP_MARKS[1]}"
    if max_visits is not None:
        return (
            f"{what}; '{head}' has max_visits={max_visits} but no on_max_visits, "
            "so reaching the limit ends the run with an error. Add on_max_visits"
        )
    return (
        f"{what} with no max_visits/on_max_visits; the implicit limit of "
        f"{IMPLICIT_MAX_VISITS} visits ends the run with an error. Add both to '{head}'"
    )


def _head(ctx: WorkflowContext, component: set[str], order: list[str]) -> str:
    """The step to guard: one that already has max_visits (its guard is half done),
    else where the loop is entered from outside, first in source order."""
    started = [name for name in component if ctx.steps[name].max_visits is not None]
    if started:
        return min(started, key=order.index)
    graph = ctx.graph
    entered = {
        edge.target
        for edge in graph.edges
        if edge.target in component and edge.source not in component
    }
    if graph.entry in component:
        entered.add(graph.entry)
    candidates = entered or component
    return min(candidates, key=order.index)


# ---------------------------------------------------------------- fixes


def _fix(ctx: WorkflowContext, diagnostic: LintDiagnostic) -> Fix | None:
    step = diagnostic.step
    if step is None or step not in ctx.steps or ctx.skill is None:
        return None
    if diagnostic.severity == "error":
        target = ctx.steps[step].on_max_visits
        missing = unknown_target(ctx, target) if target and target != "self" else None
        if missing is None or diagnostic.range is None:
            return None
        bare = missing.name
        hint = closest_name(bare, missing.candidates)
        written = ctx.text_at(diagnostic.range)
        if hint is None or written not in (target, bare):
            return None
        prefix = target[: len(target) - len(bare)]  # "topic:", "subskill:" or ""
        # The range holds the whole string or, after a prefix, only the name.
        new_text = prefix + hint if written == target else hint
        return replacement_fix(
            f"Change on_max_visits to '{prefix + hint}'", diagnostic.range, new_text
        )
    if not any(mark in diagnostic.message for mark in _LOOP_MARKS):
        return None
    exits = _exits(ctx, step)
    if len(exits) != 1 or not exits[0][1]:
        return None  # no way out, or one a person must choose: see _suggest
    target = exits[0][0]
    return _guard_fix(ctx, step, target, f"Limit '{step}' and leave the loop for '{target}'")


def _suggest(ctx: WorkflowContext, diagnostic: LintDiagnostic) -> tuple[Fix, ...]:
    """One guard per way out of the loop, when none is unambiguous: going to a step the
    loop reaches under a condition (the "tests passed" branch of a retry loop) claims
    that the condition held, so a person picks where giving up should go."""
    step = diagnostic.step
    if diagnostic.severity == "error" or ctx.skill is None or step not in ctx.steps:
        return ()
    if not any(mark in diagnostic.message for mark in _LOOP_MARKS):
        return ()
    exits = _exits(ctx, step)
    if len(exits) == 1 and exits[0][1]:
        return ()  # the safe fix covers it
    found = (
        _guard_fix(
            ctx,
            step,
            target,
            f"Limit '{step}' and leave the loop for '{target}' (reached when a condition holds)",
        )
        for target, _ in exits
    )
    return tuple(fix for fix in found if fix is not None)


def _guard_fix(ctx: WorkflowContext, step: str, target: str, title: str) -> Fix | None:
    from skillkit_core.engine.graph import IMPLICIT_MAX_VISITS

    arguments = []
    if ctx.steps[step].max_visits is None:
        arguments.append(f"max_visits={IMPLICIT_MAX_VISITS}")
    arguments.append(f"on_max_visits={string_literal(target)}")
    return add_arguments_fix(ctx, step, arguments, title)


def _exits(ctx: WorkflowContext, step: str) -> list[tuple[str, bool]]:
    """The steps outside ``step``'s loop that the loop can go to (terminal ones first),
    each with whether it is unambiguous to leave for: reached only as a fallback (a
    ``branch`` without ``when``, taken when no condition holds: the loop goes on under a
    condition and ends by default), never under a ``when`` or a callable ``next``."""
    graph = ctx.graph
    loop = next((set(c) for c in graph.cycles if step in c), {step})
    fallback: dict[str, bool] = {}

    def leave(target: str, by_fallback: bool) -> None:
        if target not in loop and target in ctx.steps:
            fallback[target] = fallback.get(target, True) and by_fallback

    for name in ctx.steps:
        if name not in loop:
            continue
        nxt = ctx.steps[name].next
        if isinstance(nxt, str):
            leave(nxt, True)
        elif isinstance(nxt, tuple):
            for b in nxt:
                leave(name if b.to == "self" else b.to, b.when is None)
                if b.when is None:
                    break  # the engine never looks past a branch without when
        else:
            guard = ctx.steps[name].on_max_visits
            for target in graph.successors[name]:
                if target != guard:
                    leave(target, False)
    order = list(ctx.steps)
    return sorted(
        fallback.items(), key=lambda item: (item[0] not in graph.terminal, order.index(item[0]))
    )


RULE = Rule(
    id="cycle-guard",
    severity="warning",
    summary="A loop lacks max_visits + on_max_visits, or its guard names no valid step.",
    rationale=(
        "A step on a cycle may be entered again and again. Without a declared limit the "
        "engine stops the run with an error after its implicit limit of visits; with "
        "max_visits and on_max_visits it leaves the loop for a step you chose. --fix adds "
        "a guard only when the way out is unambiguous: the loop's one way out, reached as "
        "its fallback (a branch without when); a step reached under a condition (the "
        "'tests passed' branch of a retry loop) is offered to choose, never applied. A guard "
        "whose on_max_visits names no step (or the step itself) can never work: that is "
        "an error."
    ),
    bad=(
        '.step("poll", prompt="Is the deploy done?", response=Status,\n'
        '      next=[branch("poll", when=lambda ctx: not ctx.response.done), branch("report")])'
    ),
    good=(
        '.step("poll", prompt="Is the deploy done?", response=Status,\n'
        '      next=[branch("poll", when=lambda ctx: not ctx.response.done), branch("report")],\n'
        '      max_visits=5, on_max_visits="report")'
    ),
    check=_check,
    target="workflow",
    fix=_fix,
    suggest=_suggest,
)
