"""unknown-step: every transition target and store lookup names an existing step."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from skillkit_core.lint.diagnostic import Fix, LintDiagnostic, SourceRange
from skillkit_core.lint.rule import Rule
from skillkit_core.lint.workflow import WorkflowContext, closest, replacement_fix

# The definitions and the engine load on first use (every ``skillkit check`` imports
# the rule registry, also for SKILL.md folders only).

_TRANSITIONS = ("next", "branch")
_STORE_ROLES = ("store-subscript", "store-get", "store-all", "store-ran")


def _check(ctx: WorkflowContext) -> Iterator[LintDiagnostic]:
    from skillkit_core.engine.graph import literal_targets

    skill = ctx.skill
    if skill is None or not ctx.steps:
        return
    if skill.entry not in ctx.steps:
        entry = ctx.chain.entry if ctx.chain is not None else None
        yield _unknown(
            ctx,
            f"entry '{skill.entry}' is not a step",
            skill.entry,
            ctx.steps,
            None,
            entry.name_range if entry is not None else ctx.chain_range,
        )
    for step in ctx.steps.values():
        for role, target in literal_targets(step):
            if role == "on_max_visits":
                continue  # cycle-guard reports a broken guard
            problem = _problem(ctx, target)
            if problem is not None:
                predicate, candidates = problem
                where = _written_at(ctx, step.name, target)
                said = "a branch to" if role.startswith("branch") else role
                yield _unknown(
                    ctx,
                    f"step '{step.name}': {said} '{target}' {predicate}",
                    target,
                    candidates,
                    step.name,
                    where,
                )
    yield from _dynamic_returns(ctx)
    yield from _store_lookups(ctx)


def _problem(ctx: WorkflowContext, target: str) -> tuple[str, Iterable[str]] | None:
    """What is wrong with a literal target (said after the target), and the names it
    could have meant."""
    from skillkit_core.definitions import PARENT, SUBSKILL_PREFIX, TOPIC_PREFIX

    skill = ctx.skill
    assert skill is not None
    if target == "self":
        return None
    if target == PARENT:
        return (
            "was never replaced; give next= when you .extend() a step(...) template or "
            ".register() a module",
            (),
        )
    if target.startswith(SUBSKILL_PREFIX):
        names = [s.name for s in skill.subskills]
        if target[len(SUBSKILL_PREFIX) :] in names:
            return None
        return "names no registered sub-skill", names
    if target.startswith(TOPIC_PREFIX):
        names = [t.name for t in skill.topics]
        if target[len(TOPIC_PREFIX) :] in names:
            return None
        return "names no registered topic", names
    if target in ctx.steps:
        return None
    return "is not a step", ctx.steps


def _unknown(
    ctx: WorkflowContext,
    message: str,
    name: str,
    candidates: Iterable[str],
    step: str | None,
    where: SourceRange | None,
) -> LintDiagnostic:
    from skillkit_core.definitions import PARENT, SUBSKILL_PREFIX, TOPIC_PREFIX

    bare = name.split(":", 1)[1] if name.startswith((SUBSKILL_PREFIX, TOPIC_PREFIX)) else name
    hint = closest(bare, candidates) if name != PARENT else None
    if hint is not None:
        message += f"; did you mean '{hint}'?"
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


def _dynamic_returns(ctx: WorkflowContext) -> Iterator[LintDiagnostic]:
    """Literals a ``next`` callable returns (read from the source)."""
    for ref in ctx.refs(("next-return",)):
        target = _text(ref)
        problem = _problem(ctx, target)
        if problem is None:
            continue
        steps = [name for name, _ in ctx.owned(ref.owners)]
        step = steps[0] if steps else None
        predicate, candidates = problem
        prefix = f"step '{step}': " if step else ""
        yield _unknown(
            ctx,
            f"{prefix}next returns '{target}', which {predicate}",
            target,
            candidates,
            step,
            ref.name_range,
        )


def _store_lookups(ctx: WorkflowContext) -> Iterator[LintDiagnostic]:
    """``ctx.store.steps[...]`` / ``.get`` / ``.all`` / ``.ran`` with a name that is no step."""
    for ref in ctx.refs(_STORE_ROLES):
        if ref.target != "step" or ref.name in ctx.steps:
            continue
        steps = [name for name, _ in ctx.owned(ref.owners)]
        if not steps:
            continue
        yield _unknown(
            ctx,
            f"step '{steps[0]}': the store lookup '{ref.name}' names no step, so it never "
            "finds a result",
            ref.name,
            ctx.steps,
            steps[0],
            ref.name_range,
        )


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
    hint = closest(name, candidates)
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
