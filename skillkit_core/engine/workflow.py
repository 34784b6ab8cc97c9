"""The workflow engine: a deterministic, replayable state machine over a definition."""

from __future__ import annotations

import inspect
import time
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any, Final

from skillkit_core.definitions import (
    SUBSKILL_PREFIX,
    TOPIC_PREFIX,
    SkillDefinition,
    StepDefinition,
    Terminal,
)
from skillkit_core.engine.context import CancellationSignal, StepContext
from skillkit_core.engine.graph import analyze
from skillkit_core.engine.observers import ObserverEvent, notify
from skillkit_core.engine.results import (
    DoneResult,
    EngineResult,
    ErrorResult,
    PromptResult,
    RedirectResult,
    StepResult,
)
from skillkit_core.engine.store import Store
from skillkit_core.errors import (
    HistoryError,
    ParamsError,
    SkillkitError,
    SkillRuntimeError,
    where,
)
from skillkit_core.hosts import Handshake
from skillkit_core.raised import skill_raised
from skillkit_core.schema import format_validation_error


class _EndOfRun:
    """The transition target meaning "the run is over" (``terminal``).

    An object, not a string: every string is a possible step name (the seeds' own example
    routes ``next="done"`` into a step called ``done``).
    """

    def __repr__(self) -> str:
        return "<end of run>"


_DONE: Final = _EndOfRun()


class _Refused(Exception):
    """Internal: a step could not complete; carries the error result to return."""

    def __init__(self, result: ErrorResult) -> None:
        super().__init__(result.message)
        self.result = result


class WorkflowEngine:
    """Runs one skill for one agent: ``start()``, then ``advance(step, output)`` per step.

    ``replay(history)`` rebuilds the state of an earlier run without running actions or
    observers, so a stateless caller can continue where it left off.
    """

    def __init__(
        self,
        definition: SkillDefinition,
        handshake: Handshake | None = None,
        params: Any = None,
        refs: Any = None,
    ) -> None:
        if definition.problems:
            raise SkillRuntimeError(
                f"{where(definition.name)}cannot run a skill with definition problems:\n"
                + "\n".join(definition.problems)
            )
        self.definition = definition
        self.handshake = handshake or Handshake()
        self.graph = analyze(definition)
        self.params, self.params_data = validate_params(definition, params)
        self.refs = default_refs(definition, refs)
        self.store = Store(definition)
        self.current: str | None = None
        self.finished = False
        self.path: list[str] = []
        self.visits: Counter[str] = Counter()
        self.signal = CancellationSignal()
        """The signal of the action running now (or of the last one); fresh for each run."""
        self._running: CancellationSignal | None = None
        self._failures: Counter[str] = Counter()
        self.redirect: RedirectResult | None = None
        self._preamble_pending = True
        self._started_at = time.perf_counter()
        self._step_started_at = self._started_at

    # -- public API ---------------------------------------------------------------

    async def start(self) -> EngineResult:
        """Enter the entry step and return its prompt (with the preamble)."""
        if self.current is not None or self.finished:
            return self._state_error("this run has already started")
        try:
            await self._enter(self.definition.entry, quiet=False)
            return await self._settle(None, quiet=False)
        except _Refused as refused:
            return refused.result

    async def advance(self, step: str, output: Any) -> EngineResult:
        """Submit the agent's ``output`` for ``step`` and return what comes next."""
        refused = self._check_turn(step)
        if refused is not None:
            return refused
        step_def = self.definition.steps[step]
        try:
            completed, target = await self._complete(step_def, output, replay=None)
        except _Refused as refused_step:
            return refused_step.result
        try:
            return await self._after(completed, target, quiet=False)
        except _Refused as later:
            return later.result

    async def replay(self, history: Iterable[Mapping[str, Any]]) -> None:
        """Rebuild the state of a run from its history (``{step, response, actionResult?}``
        entries; ``output`` is accepted for ``response``). Raises ``HistoryError``."""
        if self.current is None and not self.finished:
            await self._enter(self.definition.entry, quiet=True)
        self._preamble_pending = False
        for index, entry in enumerate(history):
            step, output, recorded = _history_entry(index, entry)
            await self._replay_prompt_less(until=step)
            if self.finished:
                raise HistoryError(f"history entry {index} ('{step}') comes after the run ended")
            if step != self.current:
                raise HistoryError(
                    f"history entry {index} is for step '{step}', but the workflow is at step "
                    f"'{self.current}' there; pass the entries in the order they completed"
                )
            step_def = self.definition.steps[step]
            try:
                completed, target = await self._complete(step_def, output, replay=recorded)
                await self._after(completed, target, quiet=True)
            except _Refused as refused:
                raise HistoryError(
                    f"history entry {index} ('{step}'): {refused.result.message}"
                ) from None
        await self._replay_prompt_less(until=None)

    def snapshot(self) -> dict[str, Any]:
        """The run's state as JSON-ready data (see ``restore``)."""
        from skillkit_core.engine.snapshot import take

        return take(self)

    def restore(self, snapshot: Any) -> None:
        """Load a ``snapshot()`` into this fresh engine; ``HistoryError`` when it misfits."""
        from skillkit_core.engine.snapshot import restore

        restore(self, snapshot)

    def cancel(self, reason: str = "cancelled") -> None:
        """Signal the running action (if any) to stop; its step is refused with
        ``retry: true`` and the next attempt runs the action with a fresh signal.

        Cancelling the asyncio task that awaits ``advance()`` sets the signal as well."""
        if self._running is not None:
            self._running.cancel(reason)

    # -- turn checks --------------------------------------------------------------

    def _check_turn(self, step: Any) -> ErrorResult | None:
        if not isinstance(step, str) or step not in self.definition.steps:
            return ErrorResult(
                "unknown_step",
                f"{where(self.definition.name)}'{step}' is not a step of this skill "
                f"(steps: {', '.join(self.definition.steps)})",
                step=step if isinstance(step, str) else None,
                retry=self.current is not None and not self.finished,
            )
        if self.finished:
            return self._state_error("this run has already finished; start a new one", step)
        if self.current is None:
            return self._state_error("this run has not started; call start first", step)
        if step != self.current:
            return self._state_error(
                f"step '{step}' is not the current step; the workflow is waiting for "
                f"'{self.current}'",
                step,
                retry=True,  # the same output for the current step can succeed
            )
        return None

    def _state_error(
        self, message: str, step: str | None = None, *, retry: bool = False
    ) -> ErrorResult:
        return ErrorResult("state", f"{where(self.definition.name)}{message}", step, retry=retry)

    # -- entering steps -----------------------------------------------------------

    async def _enter(self, name: str, *, quiet: bool) -> None:
        self.current = name
        self.visits[name] += 1
        self._failures[name] = 0
        self.path.append(name)
        self._step_started_at = time.perf_counter()
        if not quiet:
            await self._notify("on_step_start", step=name, params=self.params)

    def _limited_target(self, source: str, target: str) -> str:
        """Apply visit limits to a transition into ``target`` (following ``on_max_visits``)."""
        seen = []
        while True:
            step = self.definition.steps[target]
            limit = self.graph.visit_limit(step)
            if limit is None or self.visits[target] < limit:
                return target
            seen.append(target)
            fallback = step.on_max_visits
            if fallback is None:
                raise self._runtime(
                    source,
                    f"moving to step '{target}' would exceed its visit limit of {limit}, and it "
                    "has no on_max_visits; add on_max_visits=... or raise max_visits",
                )
            fallback = target if fallback == "self" else fallback
            if fallback not in self.definition.steps or fallback in seen:
                raise self._runtime(
                    source,
                    f"step '{target}' reached its visit limit and on_max_visits leads to "
                    f"'{fallback}', which cannot be entered",
                )
            target = fallback

    # -- completing a step --------------------------------------------------------

    async def _complete(
        self, step: StepDefinition, output: Any, *, replay: _Recorded | None
    ) -> tuple[StepResult, str | _EndOfRun]:
        """Validate, run the action, save, and resolve the transition, all or nothing."""
        response, answer = await self._validate(step, output, quiet=replay is not None)
        ctx = self._ctx(step.name, response=response)
        action_value, action_data = await self._action(step, ctx, replay)
        ctx = self._ctx(step.name, response=response, action_result=action_value)
        mark = self.store.checkpoint()
        try:
            result = self._save(step, ctx, response, answer, action_data)
            self.store.append(result)
            target = self._transition(
                step, self._ctx(step.name, response=response, action_result=action_value)
            )
            if target is _DONE:
                self._final_output(step, result)
            else:
                self._check_target(step, target)
        except _Refused:
            self.store.rollback(mark)
            raise
        except SkillkitError as error:
            self.store.rollback(mark)
            raise _Refused(ErrorResult(error.code, error.message, step.name, retry=False)) from None
        if replay is None:
            await self._notify(
                "on_step_complete",
                step=step.name,
                response=response,
                duration_ms=(time.perf_counter() - self._step_started_at) * 1000,
            )
        return result, target

    async def _validate(self, step: StepDefinition, output: Any, *, quiet: bool) -> tuple[Any, Any]:
        """``(value for ctx.response, the answer as accepted)``: the answer is what the
        ``completed`` object and a history entry carry (``None``: not plain JSON)."""
        if step.response is None:
            output = output if output is not None else {}
            return output, output
        from pydantic import ValidationError

        try:
            return step.response.validate_answer(output)
        except ValidationError as error:
            message = format_validation_error(error, output)
            self._failures[step.name] += 1
            if not quiet:
                await self._notify(
                    "on_step_validation_failed",
                    step=step.name,
                    raw=output,
                    error=message,
                    attempt=self._failures[step.name],
                )
            raise _Refused(ErrorResult("validation", message, step.name, retry=True)) from None
        except BaseException as error:  # a validator that raised neither ValueError nor
            # AssertionError: pydantic lets it through
            raise self._runtime(
                step.name, f"validating its response raised {skill_raised(error)}"
            ) from None

    async def _action(
        self, step: StepDefinition, ctx: StepContext, replay: _Recorded | None
    ) -> tuple[Any, Any]:
        """``(value for ctx.action_result, plain data for the record)``."""
        if step.action is None:
            return None, None
        from skillkit_core.engine.actions import replay_action, run_action

        try:
            if replay is not None:
                return replay_action(
                    self.definition.name, step, replay.action_result, replay.has_action
                )
            self.signal = self._running = CancellationSignal()
            return await run_action(self.definition.name, step, ctx, self.signal)
        except SkillkitError as error:
            raise _Refused(
                ErrorResult(error.code, error.message, step.name, retry=error.code == "action")
            ) from None
        finally:
            self._running = None

    def _save(
        self, step: StepDefinition, ctx: StepContext, response: Any, answer: Any, action_data: Any
    ) -> StepResult:
        """The step's record: ``response`` is the validated value's dump, or the answer as
        the agent gave it where that dump would not replay as history (:func:`_replayable`).
        """
        dumped = _to_json(step.response.dump(response) if step.response else response)
        result = action_data if step.action is not None else dumped
        if step.save is not None:
            saved = self._call(step.name, "save", step.save, ctx)
            if saved is not None and not isinstance(saved, Mapping):
                raise self._runtime(
                    step.name,
                    f"save() must return a dict such as {{'step': ..., '<store>': {{...}}}}; "
                    f"it returned {type(saved).__name__}",
                )
            for key, value in (saved or {}).items():
                data = self._saved_json(step.name, key, value)
                if key == "step":
                    result = data
                else:
                    self.store.write(step.name, key, data)
        return StepResult(
            step=step.name,
            response=_replayable(step, dumped, answer),
            result=result,
            action_result=action_data,
            has_action=step.action is not None,
        )

    def _saved_json(self, step: str, key: str, value: Any) -> Any:
        """A value ``save()`` returned as plain JSON data; a runtime error if it has none."""
        from skillkit_core.engine.actions import finite

        try:
            return finite(f"save() returned {{'{key}': …}} with", _to_json(value))
        except SkillRuntimeError as error:
            raise self._runtime(step, error.message) from None
        except ValueError as error:  # pydantic_core's PydanticSerializationError
            raise self._runtime(
                step,
                f"save() returned {{'{key}': <{type(value).__name__}>}}, which cannot be "
                f"stored as JSON ({_first_line(str(error) or type(error).__name__)}); return "
                "plain data (dict, list, str, number, bool, None) or a pydantic model instead",
            ) from None

    def _transition(self, step: StepDefinition, ctx: StepContext) -> str | _EndOfRun:
        nxt = step.next
        if isinstance(nxt, Terminal):
            return _DONE
        if isinstance(nxt, str):
            target = nxt
        elif isinstance(nxt, tuple):
            target = next(
                (
                    b.to
                    for b in nxt
                    if b.when is None or self._call(step.name, "branch", b.when, ctx)
                ),
                None,
            )
            if target is None:
                raise self._runtime(
                    step.name, "no branch matched; end the list with a branch without when="
                )
        else:
            target = self._call(step.name, "next", nxt, ctx)
            if isinstance(target, Terminal):
                return _DONE
        if not isinstance(target, str):
            raise self._runtime(
                step.name, f"next returned {target!r}; it must return a step name or terminal"
            )
        return step.name if target == "self" else target

    def _check_target(self, step: StepDefinition, target: str) -> None:
        if target.startswith(SUBSKILL_PREFIX):
            if self.definition.subskill(target[len(SUBSKILL_PREFIX) :]) is None:
                raise self._runtime(step.name, f"next named '{target}', an unknown sub-skill")
            return
        if target.startswith(TOPIC_PREFIX):
            if self.definition.topic(target[len(TOPIC_PREFIX) :]) is None:
                raise self._runtime(step.name, f"next named '{target}', an unknown topic")
            return
        if target not in self.definition.steps:
            raise self._runtime(
                step.name,
                f"next named '{target}', which is not a step "
                f"(steps: {', '.join(self.definition.steps)})",
            )
        self._limited_target(step.name, target)

    def _final_output(self, step: StepDefinition, result: StepResult) -> None:
        schema = self.definition.final_output
        if schema is None:
            return
        from pydantic import ValidationError

        try:
            schema.validate(self._final_value(step, result))
        except ValidationError as error:
            raise _Refused(
                ErrorResult(
                    "validation",
                    f"the final output does not match the skill's final_output schema: "
                    f"{format_validation_error(error)}",
                    step.name,
                    retry=True,
                )
            ) from None
        except BaseException as error:
            raise self._runtime(
                step.name, f"validating the final output raised {skill_raised(error)}"
            ) from None

    @staticmethod
    def _final_value(step: StepDefinition, result: StepResult) -> Any:
        return result.response if step.response is not None else result.result

    # -- after a step -------------------------------------------------------------

    async def _after(
        self, completed: StepResult, target: str | _EndOfRun, *, quiet: bool
    ) -> EngineResult:
        source = completed.step
        if target is _DONE:
            return await self._finish(completed, (), quiet=quiet)
        if target.startswith((SUBSKILL_PREFIX, TOPIC_PREFIX)):
            self.finished = True
            self.current = None
            if not quiet:
                await self._notify(
                    "on_transition", from_step=source, to_step=target, reason="route"
                )
            self.redirect = RedirectResult(target, completed, self.store)
            return self.redirect
        entered = self._limited_target(source, target)
        reason = "next" if entered == target else "max_visits"
        if not quiet:
            await self._notify("on_transition", from_step=source, to_step=entered, reason=reason)
        await self._enter(entered, quiet=quiet)
        if quiet:
            return PromptResult(entered, "", None)
        return await self._settle(completed, quiet=quiet)

    async def _settle(self, completed: StepResult | None, *, quiet: bool) -> EngineResult:
        """Auto-advance through prompt-less steps, then return the next result."""
        auto: list[StepResult] = []
        while self.current is not None:
            step = self.definition.steps[self.current]
            if step.has_prompt:
                return self._prompt(step, completed, tuple(auto))
            result, target = await self._complete(step, {}, replay=None)
            auto.append(result)
            if target is _DONE:
                return await self._finish(completed, tuple(auto), quiet=quiet, last=result)
            if target.startswith((SUBSKILL_PREFIX, TOPIC_PREFIX)):
                self.finished = True
                self.current = None
                await self._notify(
                    "on_transition", from_step=step.name, to_step=target, reason="route"
                )
                self.redirect = RedirectResult(target, completed, self.store, tuple(auto))
                return self.redirect
            entered = self._limited_target(step.name, target)
            await self._notify(
                "on_transition",
                from_step=step.name,
                to_step=entered,
                reason="next" if entered == target else "max_visits",
            )
            await self._enter(entered, quiet=False)
        raise AssertionError("settle without a current step")  # pragma: no cover

    async def _finish(
        self,
        completed: StepResult | None,
        auto: tuple[StepResult, ...],
        *,
        quiet: bool,
        last: StepResult | None = None,
    ) -> DoneResult:
        final_step = last or completed
        assert final_step is not None
        step_def = self.definition.steps[final_step.step]
        final_output = self._final_value(step_def, final_step)
        self.finished = True
        self.current = None
        if not quiet:
            await self._notify(
                "on_skill_complete",
                path=tuple(self.path),
                final_output=final_output,
                duration_ms=(time.perf_counter() - self._started_at) * 1000,
            )
        return DoneResult(final_output, completed, auto)

    def _prompt(
        self, step: StepDefinition, completed: StepResult | None, auto: tuple[StepResult, ...]
    ) -> PromptResult:
        preamble = None
        if self._preamble_pending:
            from skillkit_core.preamble import generate_preamble

            preamble = generate_preamble(
                self.handshake, system=self.definition.system, skill_name=self.definition.name
            )
            self._preamble_pending = False
        return PromptResult(
            step=step.name,
            prompt=self.render_prompt(step),
            schema=self._json_schema(step),
            preamble=preamble,
            completed=completed,
            auto_advanced=auto,
        )

    def _json_schema(self, step: StepDefinition) -> dict[str, Any] | None:
        """The JSON Schema of the step's response; a definition error when it has none."""
        if step.response is None:
            return None
        try:
            return step.response.json_schema()
        except BaseException as error:  # pydantic raises several kinds; each is the author's
            raise self._runtime(
                step.name,
                f"response={step.response.name} cannot produce a JSON Schema for the agent "
                f"({_first_line(skill_raised(error))}); use types pydantic can "
                "describe as JSON",
            ) from None

    def render_prompt(self, step: StepDefinition) -> str:
        """The XML-tagged prompt of ``step`` in the current state."""
        from skillkit_core.prompts.assemble import render_prompt

        ctx = self._ctx(step.name)
        try:
            return render_prompt(step.prompt, ctx, skill_name=self.definition.name)
        except SkillkitError as error:
            raise self._runtime(step.name, f"its prompt could not be built: {error}") from None
        except BaseException as error:
            message = f"its prompt function raised {skill_raised(error)}"
            raise self._runtime(step.name, message) from None

    async def _replay_prompt_less(self, until: str | None) -> None:
        """During replay, pass prompt-less steps whose entries the history left out."""
        while self.current is not None and self.current != until:
            step = self.definition.steps[self.current]
            if step.has_prompt:
                return
            if step.action is not None:
                raise HistoryError(
                    f"the history has no entry for step '{step.name}', which runs an action; "
                    "include the autoAdvanced entries of earlier results"
                )
            try:
                completed, target = await self._complete(step, {}, replay=_Recorded(None, False))
                await self._after(completed, target, quiet=True)
            except _Refused as refused:
                raise HistoryError(f"step '{step.name}': {refused.result.message}") from None

    # -- helpers ------------------------------------------------------------------

    def _ctx(self, step: str, **fields: Any) -> StepContext:
        from skillkit_core.prompts import system

        return StepContext(
            step=step,
            attempts=self.visits[step],
            params=self.params,
            store=self.store,
            refs=self.refs,
            host=self.handshake,
            system=system,
            **fields,
        )

    def _call(self, step: str, what: str, fn: Any, ctx: StepContext) -> Any:
        try:
            value = fn(ctx)
        except SkillkitError:
            raise
        except BaseException as error:
            raise self._runtime(step, f"its {what} callback raised {skill_raised(error)}") from None
        if inspect.isawaitable(value):
            close = getattr(value, "close", None)
            if close:
                close()
            raise self._runtime(step, f"its {what} callback must not be async")
        return value

    def _runtime(self, step: str, message: str) -> _Refused:
        return _Refused(
            ErrorResult("runtime", f"{where(self.definition.name, step)}{message}", step)
        )

    async def _notify(self, event: str, **fields: Any) -> None:
        if self.definition.observers:
            await notify(self.definition.observers, ObserverEvent(event, **fields))


class _Recorded:
    """A history entry's recorded action result."""

    __slots__ = ("action_result", "has_action")

    def __init__(self, action_result: Any, has_action: bool) -> None:
        self.action_result = action_result
        self.has_action = has_action


def _history_entry(index: int, entry: Any) -> tuple[str, Any, _Recorded]:
    if not isinstance(entry, Mapping):
        raise HistoryError(f"history entry {index} must be an object {{step, response}}")
    step = entry.get("step")
    if not isinstance(step, str):
        raise HistoryError(f"history entry {index} has no 'step' string")
    if "response" in entry:
        output = entry["response"]
    elif "output" in entry:
        output = entry["output"]
    else:
        raise HistoryError(f"history entry {index} ('{step}') has no 'response'")
    return step, output, _Recorded(entry.get("actionResult"), "actionResult" in entry)


def validate_params(definition: SkillDefinition, params: Any) -> tuple[Any, Any]:
    """``(value for ctx.params, plain JSON data)``; raises ``ParamsError``."""
    if definition.params is None:
        if params not in (None, {}) and not isinstance(params, Mapping):
            raise ParamsError(f"{where(definition.name)}params must be an object")
        data = dict(params or {})
        return data, data
    from pydantic import ValidationError

    try:
        value = definition.params.validate(params if params is not None else {}, from_agent=True)
    except ValidationError as error:
        raise ParamsError(
            f"{where(definition.name)}invalid params: {format_validation_error(error)}"
        ) from None
    except BaseException as error:
        raise SkillRuntimeError(
            f"{where(definition.name)}validating params raised {skill_raised(error)}"
        ) from None
    return value, definition.params.dump(value)


def default_refs(definition: SkillDefinition, refs: Any = None) -> Any:
    """The references a run reads: ``refs`` when given (an object with ``load`` and
    ``asset``, or a mapping of file name to text), else the ``references/`` folder beside
    the file that defined the skill."""
    if refs is None:
        from skillkit_core.refs import ReferenceLoader

        return ReferenceLoader.beside(definition.source_file)
    if isinstance(refs, Mapping):
        from skillkit_core.refs import MappingReferences

        return MappingReferences(dict(refs))
    return refs


def _first_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[0] if lines else text


def _replayable(step: StepDefinition, dumped: Any, answer: Any) -> Any:
    """What a history entry carries for a response: the dump of the validated value when
    it validates back to that value (defaults filled in, undeclared keys dropped), else
    the agent's own answer, which does. A dump writes field names where the agent writes
    aliases, adds computed fields, leaves out excluded ones and applies serializers, and a
    validator may change a value again: the entry would fail or differ when a stateless
    agent passes it back."""
    if step.response is None or answer is None or step.response.dump_replays():
        return dumped
    return _to_json(answer)


def _to_json(value: Any) -> Any:
    from pydantic_core import to_jsonable_python

    from skillkit_core.records import unwrap

    return to_jsonable_python(unwrap(value))
