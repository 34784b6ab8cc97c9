"""missing-response-schema: a step whose answer is used as a record declares its shape.

Without ``response=`` the agent is sent ``"schema": null`` and may answer anything, and
the engine hands the answer over unchecked. Reported when:

- a step's own routing, ``save`` or action input reads ``ctx.response.<field>``, or any
  step's code reads ``store.steps["s"].<field>`` (or ``steps.get("s").<field>``), helpers
  they call included (a few levels deep);
- a step asks a structured ``act.ask_user`` question (options to choose from);
- the skill declares ``final_output`` and a terminal step with a prompt (and no action
  whose result would be the output) has no response.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.lint.rule import Rule
from skillkit_core.lint.workflow import WorkflowContext

# Instructions that sit between the loads a read is made of and say nothing about it.
_SKIPPED = frozenset(
    {"CACHE", "EXTENDED_ARG", "NOP", "PUSH_NULL", "PRECALL", "KW_NAMES", "RESUME", "COPY_FREE_VARS"}
)
_LOADS = frozenset({"LOAD_ATTR", "LOAD_FAST", "LOAD_GLOBAL", "LOAD_DEREF", "LOAD_NAME"})
_DEPTH = 3  # how many calls deep helpers are read (as simulate's routing does)


def _attribute(ins: Any) -> str | None:
    """The field an instruction reads as an attribute (not a method it calls)."""
    if ins.opname != "LOAD_ATTR" or "NULL" in (ins.argrepr or ""):
        return None
    name = str(ins.argval)
    return None if name.startswith("_") else name


def _subscript(ins: Any) -> bool:
    return ins.opname == "BINARY_SUBSCR" or (ins.opname == "BINARY_OP" and "[]" in ins.argrepr)


def record_reads(function: Callable[..., Any]) -> tuple[set[str], dict[str, set[str]]]:
    """The fields ``function`` (and the helpers it calls) reads from ``…response`` and,
    per step name, from ``steps["s"]`` / ``steps.get("s")``."""
    import dis

    from skillkit_core.simulate.routing import code_closure

    own: set[str] = set()
    stored: dict[str, set[str]] = {}
    for code in code_closure(function, _DEPTH, set()):
        found = [i for i in dis.get_instructions(code) if i.opname not in _SKIPPED]
        for at, ins in enumerate(found):
            if ins.opname not in _LOADS:
                continue
            after = found[at + 1 : at + 6]
            if ins.argval == "response" and after and _of_a_variable(found, at):
                field = _attribute(after[0])
                if field:
                    own.add(field)
            elif ins.argval == "steps" and len(after) >= 3:
                read = _stored_read(after)
                if read is not None:
                    stored.setdefault(read[0], set()).add(read[1])
    return own, stored


def _of_a_variable(found: list[Any], at: int) -> bool:
    """True when ``found[at]`` is ``<variable>.response`` (``ctx.response``), not a
    response attribute of something else (``ctx.action_result.response``)."""
    if found[at].opname != "LOAD_ATTR" or at == 0:
        return False
    return found[at - 1].opname in ("LOAD_FAST", "LOAD_DEREF", "LOAD_GLOBAL", "LOAD_NAME")


def _stored_read(after: list[Any]) -> tuple[str, str] | None:
    first = after[0]
    if first.opname == "LOAD_CONST" and isinstance(first.argval, str) and _subscript(after[1]):
        field = _attribute(after[2])
        return (first.argval, field) if field else None
    if first.opname in ("LOAD_ATTR", "LOAD_METHOD") and first.argval == "get":
        key = after[1]
        if key.opname != "LOAD_CONST" or not isinstance(key.argval, str):
            return None
        rest = after[2:]
        if rest and rest[0].opname == "LOAD_CONST":  # .get("s", default)
            rest = rest[1:]
        if len(rest) >= 2 and rest[0].opname == "CALL":
            field = _attribute(rest[1])
            return (key.argval, field) if field else None
    return None


def _callables(step: Any) -> tuple[list[Any], list[Any]]:
    """The step's code that runs after its answer (routing, save, action input), and the
    code that runs before it (a callable prompt)."""
    after: list[Any] = []
    if isinstance(step.next, tuple):
        after += [arm.when for arm in step.next if arm.when is not None]
    elif callable(step.next) and not step.is_terminal:
        after.append(step.next)
    if step.save is not None:
        after.append(step.save)
    if step.action is not None and step.action.map_input is not None:
        after.append(step.action.map_input)
    before = [step.prompt] if callable(step.prompt) else []
    return after, before


def _check(ctx: WorkflowContext) -> Iterator[LintDiagnostic]:
    if ctx.skill is None:
        return
    steps = ctx.steps
    # read step -> (reader, through the store) -> fields
    reads: dict[str, dict[tuple[str, bool], set[str]]] = {}
    for name, step in steps.items():
        after, before = _callables(step)
        for function in after + before:
            try:
                own, stored = record_reads(function)
            except (TypeError, ValueError):
                continue
            if function in after and own:
                reads.setdefault(name, {}).setdefault((name, False), set()).update(own)
            for target, fields in stored.items():
                reads.setdefault(target, {}).setdefault((name, True), set()).update(fields)
    for name, step in steps.items():
        if step.response is not None or not step.has_prompt:
            continue
        for (reader, stored), fields in reads.get(name, {}).items():
            listed = ", ".join(sorted(fields))
            who = "its own code" if reader == name else f"step '{reader}'"
            how = (
                f"{who} reads store.steps['{name}'].{min(fields)}"
                if stored
                else f"{who} reads ctx.response.{min(fields)}"
            )
            yield ctx.diagnostic(
                RULE,
                f"step '{name}' has no response schema, but {how} as a record "
                f'(fields: {listed}); the agent is sent "schema": null and may answer '
                "anything: give the step a response model with these fields",
                step=name,
                range=ctx.step_range(name),
            )
        if _asks_a_structured_question(ctx, name, step):
            yield ctx.diagnostic(
                RULE,
                f"step '{name}' asks a structured act.ask_user question but has no response "
                "schema: the chosen option reaches the run unchecked; give it a response "
                "with a Literal field of the option values",
                step=name,
                range=ctx.step_range(name),
            )
        if ctx.skill.final_output is not None and step.is_terminal and step.action is None:
            yield ctx.diagnostic(
                RULE,
                f"the skill declares final_output, but its last step '{name}' has no "
                'response schema: the agent is sent "schema": null for the output the run '
                "ends with; give the step response= the final output's model",
                step=name,
                range=ctx.step_range(name),
            )


def _asks_a_structured_question(ctx: WorkflowContext, name: str, step: Any) -> bool:
    from skillkit_core.lint.rules.workflow_primitive_schema_mismatch import questions

    return bool(questions(ctx, name, step.prompt))


RULE = Rule(
    id="missing-response-schema",
    severity="warning",
    summary="A step whose answer is used as a record has no response schema.",
    rationale=(
        'Without response= the agent is sent "schema": null and may answer in any shape, '
        "and the engine passes the answer on unchecked: code reading ctx.response.field or "
        "store.steps['s'].field then fails at run time, a structured ask_user's choice is "
        "not checked against its options, and a skill's final_output gets no schema for "
        "the agent to follow. Helpers the step's code calls are read too."
    ),
    bad=(
        '.step("review", prompt="Review the change.",\n'
        '      next=[branch("merge", when=lambda ctx: ctx.response.approved), '
        'branch("revise")])'
    ),
    good=(
        "class Review(BaseModel):\n    approved: bool\n\n"
        '.step("review", prompt="Review the change.", response=Review,\n'
        '      next=[branch("merge", when=lambda ctx: ctx.response.approved), '
        'branch("revise")])'
    ),
    check=_check,
    target="workflow",
)
