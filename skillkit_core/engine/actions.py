"""Running a step's action, and reusing a recorded action result during replay."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import Any

from skillkit_core.definitions import StepDefinition
from skillkit_core.engine.context import CancellationSignal, StepContext
from skillkit_core.errors import HistoryError, SkillkitError, SkillRuntimeError, where
from skillkit_core.raised import skill_raised
from skillkit_core.schema import format_validation_error


class ActionError(SkillkitError):
    """An action failed or its input/output did not fit its schema."""

    code = "action"


PlainActionRunner = Callable[[Callable[[StepContext], Any], StepContext], Awaitable[Any]]
"""Calls a plain ``def`` action with its context, awaitably: ``runner(run, ctx)``."""

plain_action_runner: ContextVar[PlainActionRunner | None] = ContextVar(
    "plain_action_runner", default=None
)
"""How plain ``def`` actions are called in this context: ``None`` (the default) on the
engine's own thread, which suits a one-shot call, where nothing else waits; a server
sets a runner that moves them to a worker thread, so that it goes on answering (and can
be told to cancel) while one runs (see ``skillkit_core.protocol.mcp_tools``)."""


async def run_action(
    skill: str, step: StepDefinition, ctx: StepContext, signal: CancellationSignal
) -> tuple[Any, Any]:
    """Run the action; ``(value for ctx.action_result, plain JSON data)``."""
    from pydantic import ValidationError

    assert step.action is not None
    at = f"{where(skill, step.name)}action '{step.action.name}': "
    declared = step.action.declared
    raw_input = (
        _call(at, "map_input", step.action.map_input, ctx)
        if step.action.map_input is not None
        else _plain(step, ctx.response)
    )
    input_value = raw_input
    if declared is not None and declared.input is not None:
        try:
            input_value = declared.input.validate(raw_input)
        except ValidationError as error:
            raise ActionError(f"{at}invalid input: {format_validation_error(error)}") from None
    if declared is not None:
        run_ctx = StepContext(step=step.name, input=input_value, signal=signal)
        output = await _run(at, declared.run, run_ctx)
    else:
        run_ctx = StepContext(
            step=step.name,
            input=input_value,
            signal=signal,
            response=ctx.response,
            params=ctx.params,
            store=ctx.store,
            refs=ctx.refs,
            host=ctx.host,
            attempts=ctx.attempts,
        )
        output = await _run(at, step.action.run, run_ctx)
    if signal.cancelled:
        raise ActionError(f"{at}cancelled ({signal.reason})")
    return _checked_output(at, declared.output if declared else None, output)


def replay_action(
    skill: str, step: StepDefinition, recorded: Any, has_recorded: bool
) -> tuple[Any, Any]:
    """The recorded result of an action, checked against its output schema; never runs it."""
    assert step.action is not None
    at = f"{where(skill, step.name)}action '{step.action.name}': "
    if not has_recorded:
        raise HistoryError(
            f"{at}the history entry has no actionResult; pass back the 'completed' objects "
            "exactly as they were printed (actions never run twice)"
        )
    declared = step.action.declared
    try:
        return _checked_output(at, declared.output if declared else None, recorded)
    except ActionError as error:
        raise HistoryError(f"recorded actionResult does not fit: {error}") from None


def _checked_output(at: str, schema: Any, output: Any) -> tuple[Any, Any]:
    from pydantic import ValidationError
    from pydantic_core import to_jsonable_python

    from skillkit_core.records import unwrap

    if schema is None:
        try:
            data = to_jsonable_python(unwrap(output))
        except ValueError as error:  # pydantic_core's PydanticSerializationError
            lines = str(error).strip().splitlines()
            raise SkillRuntimeError(
                f"{at}returned a {type(output).__name__} that cannot be recorded as JSON "
                f"({lines[0] if lines else 'not serialisable'}); return plain data (dict, "
                "list, str, number, bool, None) or a pydantic model, or declare an output "
                "schema with action(..., output=...)"
            ) from None
        return output, finite(at + "returned", data)
    try:
        value = schema.validate(output)
    except ValidationError as error:
        raise ActionError(f"{at}invalid output: {format_validation_error(error)}") from None
    return value, finite(at + "returned", schema.dump(value))


def finite(what: str, data: Any) -> Any:
    """``data``, refused with a ``SkillRuntimeError`` when it holds a NaN or an infinity:
    written into a result it would be no JSON (``NaN``), which the next call's history,
    the session file read back, and every strict reader refuse."""
    from skillkit_core.schema import non_finite_at

    found = non_finite_at(data)
    if found is not None:
        path, number = found
        where = "".join(f"[{key!r}]" for key in path)
        raise SkillRuntimeError(
            f"{what} {number!r}{' at ' + where if where else ''}, a number JSON cannot hold; "
            "return a finite number, or the text of it"
        )
    return data


def _plain(step: StepDefinition, response: Any) -> Any:
    return step.response.dump(response) if step.response is not None else response


async def _run(at: str, fn: Any, ctx: StepContext) -> Any:
    runner = plain_action_runner.get()
    try:
        if runner is not None and not _is_async(fn):
            outcome = await runner(fn, ctx)
        else:
            outcome = fn(ctx)
        if inspect.isawaitable(outcome):
            outcome = await _until_cancelled(outcome, ctx.signal)
    except SkillkitError:
        raise
    except BaseException as error:
        raise ActionError(f"{at}failed: {skill_raised(error)}") from None
    return outcome


def _is_async(fn: Any) -> bool:
    """Whether calling ``fn`` only makes a coroutine (an ``async def``, a partial of one,
    or an object whose ``__call__`` is one)."""
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(type(fn).__call__)


async def _until_cancelled(awaitable: Any, signal: CancellationSignal) -> Any:
    """Await an async action in its own task, so that cancelling the task running the
    engine sets ``signal`` *before* the action sees its ``CancelledError``."""
    import asyncio

    task = asyncio.ensure_future(awaitable)
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        current = asyncio.current_task()
        if current is None or not current.cancelling():
            raise  # the action cancelled itself; nothing cancelled us
        signal.cancel("the task running the action was cancelled")
        task.cancel()
        await asyncio.wait({task})  # let the action observe it and clean up
        if not task.cancelled():
            task.exception()  # retrieved: the run is cancelled whatever the action did
        raise


def _call(at: str, what: str, fn: Any, ctx: StepContext) -> Any:
    try:
        return fn(ctx)
    except BaseException as error:
        raise ActionError(f"{at}{what} raised {skill_raised(error)}") from None
