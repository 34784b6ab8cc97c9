"""unknown-step: every transition target and store lookup names an existing step."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from skillkit_core.lint.diagnostic import Fix, LintDiagnostic, SourceRange
from skillkit_core.lint.rule import Rule
from skillkit_core.lint.workflow import (
    UnknownTarget,
    WorkflowContext,
    replacement_fix,
    unknown_target,
)
from skillkit_core.source.diagnostics import closest_name, unknown_name_message
from skillkit_core.source.model import Role, Target

# The definitions and the engine load on first use (every ``skillkit check`` imports
# the rule registry, also for SKILL.md folders only).

_TRANSITIONS = ("next", "branch")
_STORE_ROLES = ("store-subscript", "store-get", "store-all", "store-ran")


def _check(ctx: WorkflowContext) -> Iterator[LintDiagnostic]:
    from skillkit_core.definitions import PARENT
    from skillkit_core.engine.graph import literal_targets

    skill = ctx.skill
    if skill is None or not ctx.steps:
        return
    if skill.entry not in ctx.steps:
        entry = ctx.chain.entry if ctx.chain is not None else None
        where = entry.name_range if entry is not None else ctx.chain_range
        problem = UnknownTarget(Target.STEP, skill.entry, list(ctx.steps))
        yield _unknown(ctx, Role.ENTRY, None, skill.entry, problem, where)
    for step in ctx.steps.values():
        for role, target in literal_targets(step):
            if role == "on_max_visits":
                continue  # cycle-guard reports a broken guard
            if target == PARENT:
                said = "a branch to" if role.startswith("branch") else role
                where = _written_at(ctx, step.name, target)
                yield _never_replaced(ctx, step.name, f"{said} '{target}'", where)
                continue
            problem = _problem(ctx, target)
            if problem is not None:
                kind = Role.BRANCH if role.startswith("branch") else Role.NEXT
                where = _written_at(ctx, step.name, target)
                yield _unknown(ctx, kind, step.name, target, problem, where)
    yield from _dynamic_returns(ctx)
    yield from _store_lookups(ctx)


def _problem(ctx: WorkflowContext, target: str) -> UnknownTarget | None:
    from skillkit_core.definitions import PARENT

    return None if target in ("self", PARENT) else unknown_target(ctx, target)


def _unknown(
    ctx: WorkflowContext,
    role: Role,
    step: str | None,
    written: str,
    problem: UnknownTarget,
    where: SourceRange | None,
) -> LintDiagnostic:
    hint = closest_name(problem.name, problem.candidates)
    message = unknown_name_message(role, step, written, problem.kind, hint)
    return ctx.diagnostic(RULE, message, step=step, range=where)


def _written_at(ctx: WorkflowContext, step: str, target: str) -> SourceRange | None:
    """Where the step writes ``target``: a next/branch literal, or a .register(next=...)."""
    for ref in ctx.refs(_TRANSITIONS):
        if _text(ref) == target and any(name == step for name, _ in ctx.owned(ref.owners)):
            return ref.name_range
    if ctx.chain is not None:
        for registration in ctx.chain.registrations:
            ref = registration.next
            if ref is not None and _text(ref) == target:
                return ref.name_range
    return ctx.step_range(step)


def _text(ref: object) -> str:
    from skillkit_core.definitions import PARENT, SUBSKILL_PREFIX, TOPIC_PREFIX

    target = getattr(ref, "target", "step")
    name = getattr(ref, "name", "")
    if target == "subskill":
        return SUBSKILL_PREFIX + name
    if target == "topic":
        return TOPIC_PREFIX + name
    if target == "parent":
        return PARENT
    return name


def _never_replaced(
    ctx: WorkflowContext, step: str, what: str, where: SourceRange | None
) -> LintDiagnostic:
    return ctx.diagnostic(
        RULE,
        f"step '{step}': {what} was never replaced; give next= when you .extend() a "
        "step(...) template or .register() a module",
        step=step,
        range=where,
    )


def _dynamic_returns(ctx: WorkflowContext) -> Iterator[LintDiagnostic]:
    """Literals a ``next`` callable returns (read from the source)."""
    from skillkit_core.definitions import PARENT

    for ref in ctx.refs(("next-return",)):
        target = _text(ref)
        steps = [name for name, _ in ctx.owned(ref.owners)]
        step = steps[0] if steps else None
        if target == PARENT:
            # .register()/.extend() wrap the callable so that it returns their next=
            # instead: only an unwrapped one really hands the sentinel to the engine.
            if step is not None and not hasattr(ctx.steps[step].next, "__wrapped__"):
                where = ref.name_range
                yield _never_replaced(ctx, step, f"next returns '{target}', which", where)
            continue
        problem = _problem(ctx, target)
        if problem is not None:
            yield _unknown(ctx, Role.NEXT_RETURN, step, target, problem, ref.name_range)


def _store_lookups(ctx: WorkflowContext) -> Iterator[LintDiagnostic]:
    """``ctx.store.steps[...]`` / ``.get`` / ``.all`` / ``.ran`` with a name that is no step."""
    for ref in ctx.refs(_STORE_ROLES):
        if ref.target != "step" or ref.name in ctx.steps:
            continue
        steps = [name for name, _ in ctx.owned(ref.owners)]
        if not steps:
            continue
        problem = UnknownTarget(Target.STEP, ref.name, list(ctx.steps))
        yield _unknown(ctx, Role(ref.role), steps[0], ref.name, problem, ref.name_range)


def _fix(ctx: WorkflowContext, diagnostic: LintDiagnostic) -> Fix | None:
    from skillkit_core.definitions import SUBSKILL_PREFIX, TOPIC_PREFIX

    where = diagnostic.range
    if where is None or where.line != where.end_line or ctx.skill is None:
        return None
    name = ctx.text_at(where)
    if not name:
        return None
    lines = ctx.files.lines(ctx.file)
    before = lines[where.line][: where.column] if where.line < len(lines) else ""
    if before.endswith(SUBSKILL_PREFIX):
        candidates: Iterable[str] = [s.name for s in ctx.skill.subskills]
    elif before.endswith(TOPIC_PREFIX):
        candidates = [t.name for t in ctx.skill.topics]
    else:
        candidates = ctx.steps
    hint = closest_name(name, candidates)
    if hint is None or hint == name:
        return None
    return replacement_fix(f"Change '{name}' to '{hint}'", where, hint)


RULE = Rule(
    id="unknown-step",
    severity="error",
    summary="A transition, entry or store lookup names a step that does not exist.",
    rationale=(
        "Steps are named string keys, so a typo in next=, a branch, the entry, a literal a "
        "next callable returns, or a ctx.store.steps lookup is only found when the run "
        "gets there. The linter finds it now and suggests the closest step name."
    ),
    bad='.step("choose", prompt="Pick one.", response=Choice, next="verfiy")',
    good='.step("choose", prompt="Pick one.", response=Choice, next="verify")',
    check=_check,
    target="workflow",
    fix=_fix,
)
