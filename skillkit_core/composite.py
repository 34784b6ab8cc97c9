"""Composite skills: a dispatcher that routes to sub-skills and topics.

The engines stay unaware of each other. This layer starts a sub-skill's own engine when
the dispatcher routes to ``subskill:X``, shows its steps as ``X/step`` (and strips the
prefix on the way back), and answers ``topic:X`` with the topic's content.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from skillkit_core.definitions import (
    ReferenceDefinition,
    SkillDefinition,
    Topic,
)
from skillkit_core.engine.context import StepContext
from skillkit_core.engine.results import (
    DoneResult,
    EngineResult,
    ErrorResult,
    PromptResult,
    RedirectResult,
    StepResult,
)
from skillkit_core.engine.workflow import WorkflowEngine, default_refs
from skillkit_core.errors import (
    HistoryError,
    ParamsError,
    SkillkitError,
    SkillRuntimeError,
    where,
)
from skillkit_core.hosts import Handshake
from skillkit_core.raised import skill_raised
from skillkit_core.records import wrap

SEPARATOR = "/"


def topic_content(
    owner: SkillDefinition | ReferenceDefinition,
    topic: Topic,
    refs: Any,
    host: Handshake | None = None,
) -> str:
    """Resolve a topic's (lazy) content to text."""
    if isinstance(topic.content, str):
        return topic.content
    try:
        content = topic.content(StepContext(refs=refs, host=host or Handshake()))
    except SkillkitError as error:  # a refused reference path, say: as a step prompt's
        raise SkillRuntimeError(
            f"{where(owner.name)}topic '{topic.name}' content could not be built: {error.message}"
        ) from None
    except BaseException as error:
        raise SkillRuntimeError(
            f"{where(owner.name)}topic '{topic.name}' content raised {skill_raised(error)}"
        ) from None
    if not isinstance(content, str):
        raise SkillRuntimeError(
            f"{where(owner.name)}topic '{topic.name}' content must be text; got "
            f"{type(content).__name__}"
        )
    return content


def split_step(step: str) -> tuple[str | None, str]:
    """``"doctor/diagnose"`` → ``("doctor", "diagnose")``; ``"choose"`` → ``(None, "choose")``."""
    if SEPARATOR in step:
        sub, inner = step.split(SEPARATOR, 1)
        return sub, inner
    return None, step


def _prefixed(sub: str, result: StepResult) -> StepResult:
    return result.renamed(f"{sub}{SEPARATOR}{result.step}")


class CompositeEngine:
    """Runs a dispatcher and the sub-skill it routes to, as one run for the agent.

    With ``direct_subskill`` the dispatcher is skipped and ``params`` are the sub-skill's.
    """

    def __init__(
        self,
        definition: SkillDefinition,
        handshake: Handshake | None = None,
        params: Any = None,
        refs: Any = None,
        *,
        direct_subskill: str | None = None,
    ) -> None:
        self.definition = definition
        self.handshake = handshake or Handshake()
        self.refs = default_refs(definition, refs)
        self.direct = direct_subskill
        self.sub_name: str | None = None
        self.sub: WorkflowEngine | None = None
        self.redirected_to: dict[str, str] | None = None
        self.topic_result: DoneResult | None = None
        if direct_subskill is not None:
            self.dispatcher = None
            self._open_subskill(direct_subskill, params)
        else:
            self.dispatcher = WorkflowEngine(definition, self.handshake, params, self.refs)

    # -- state the protocol layer reads -----------------------------------------------

    @property
    def current(self) -> str | None:
        """The step waiting for the agent, prefixed when it belongs to a sub-skill."""
        if self.sub is not None:
            return f"{self.sub_name}{SEPARATOR}{self.sub.current}" if self.sub.current else None
        return self.dispatcher.current if self.dispatcher else None

    @property
    def finished(self) -> bool:
        if self.sub is not None:
            return self.sub.finished
        return self.topic_result is not None or bool(self.dispatcher and self.dispatcher.finished)

    @property
    def path(self) -> list[str]:
        path = list(self.dispatcher.path) if self.dispatcher else []
        if self.sub is not None:
            path += [f"{self.sub_name}{SEPARATOR}{s}" for s in self.sub.path]
        return path

    @property
    def params_data(self) -> Any:
        """The validated params of the run's first engine (what a session header stores)."""
        engine = self.dispatcher or self.sub
        assert engine is not None
        return engine.params_data

    def history(self) -> tuple[StepResult, ...]:
        """Every completed step, sub-skill steps prefixed."""
        own = self.dispatcher.store.steps.history if self.dispatcher else ()
        sub = self.sub.store.steps.history if self.sub else ()
        return (*own, *(_prefixed(self.sub_name or "", r) for r in sub))

    # -- the protocol -------------------------------------------------------------------

    async def start(self) -> EngineResult:
        """Start the dispatcher (or the direct sub-skill)."""
        if self.dispatcher is None:
            assert self.sub is not None
            return self._from_sub(await self.sub.start())
        return await self._resolve(await self.dispatcher.start())

    async def advance(self, step: str, output: Any) -> EngineResult:
        """Advance the dispatcher, or the sub-skill for ``sub/step`` names."""
        if not isinstance(step, str):
            message = f"step must be a string; got {step!r}"
            return ErrorResult("unknown_step", message, None, retry=self.current is not None)
        sub, inner = split_step(step)
        if sub is None:
            if self.sub is not None and step not in self.definition.steps:
                return self._unqualified(step)
            if self.sub is not None:  # a step of the router while a sub-skill runs
                return self._not_here(step)
            if self.dispatcher is None:
                return self._not_here(step)
            before = self.dispatcher.snapshot()
            return await self._resolve(await self.dispatcher.advance(step, output), before)
        if self.definition.subskill(sub) is None:
            return ErrorResult(
                "unknown_step",
                f"{where(self.definition.name)}'{sub}' is not a sub-skill of this skill "
                f"(sub-skills: {', '.join(s.name for s in self.definition.subskills) or 'none'})",
                step,
                retry=self.current is not None,  # as for an unknown step of the skill
            )
        if self.sub is None or sub != self.sub_name:
            return self._not_here(step)
        return self._from_sub(await self.sub.advance(inner, output))

    async def replay(self, history: Iterable[Mapping[str, Any]]) -> None:
        """Rebuild a composite run: dispatcher entries, then ``sub/step`` entries."""
        own, subs, sub_name = _partition(history)
        if self.dispatcher is None:
            if own:
                raise HistoryError(
                    f"history has dispatcher steps, but this run started sub-skill "
                    f"'{self.sub_name}' directly"
                )
        else:
            await self.dispatcher.replay(own)
            redirect = self.dispatcher.redirect
            if redirect is not None and redirect.target_kind == "subskill":
                self.redirected_to = {"kind": "subskill", "name": redirect.target}
                self._open_subskill(redirect.target, self._mapped_params(redirect.target, redirect))
        if subs and sub_name != self.sub_name:
            raise HistoryError(
                f"history continues in sub-skill '{sub_name}', but the run is "
                + (f"in '{self.sub_name}'" if self.sub_name else "not in a sub-skill")
            )
        if self.sub is not None:
            await self.sub.replay(subs)

    def snapshot(self) -> dict[str, Any]:
        """The composite run's state as JSON-ready data."""
        return {
            "dispatcher": self.dispatcher.snapshot() if self.dispatcher else None,
            "subName": self.sub_name,
            "subParams": self.sub.params_data if self.sub else None,
            "sub": self.sub.snapshot() if self.sub else None,
            "redirectedTo": self.redirected_to,
            "topicResult": self.topic_result.to_wire() if self.topic_result else None,
        }

    def restore(self, snapshot: Any) -> None:
        """Load a ``snapshot()`` into this fresh composite engine."""
        if not isinstance(snapshot, Mapping) or "dispatcher" not in snapshot:
            raise HistoryError("snapshot has an unknown format")
        if (snapshot["dispatcher"] is None) != (self.dispatcher is None):
            raise HistoryError("snapshot and run disagree about a direct sub-skill start")
        if self.dispatcher is not None:
            self.dispatcher.restore(snapshot["dispatcher"])
        name = snapshot.get("subName")
        if name is not None:
            if self.direct is not None and name != self.direct:
                raise HistoryError("snapshot is for another sub-skill")
            self._open_subskill(name, snapshot.get("subParams"))
            assert self.sub is not None
            self.sub.restore(snapshot.get("sub"))
        self.redirected_to = snapshot.get("redirectedTo")
        topic = snapshot.get("topicResult")
        if topic is not None:
            self.topic_result = DoneResult(topic.get("finalOutput"))

    # -- routing ------------------------------------------------------------------------

    def _open_subskill(self, name: str, params: Any) -> None:
        registration = self.definition.subskill(name)
        if registration is None:
            known = ", ".join(s.name for s in self.definition.subskills) or "none"
            raise SkillRuntimeError(
                f"{where(self.definition.name)}no sub-skill '{name}' (sub-skills: {known})"
            )
        self.sub_name = name
        self.sub = WorkflowEngine(registration.definition, self.handshake, params, self.refs)

    def _mapped_params(self, name: str, redirect: RedirectResult) -> Any:
        registration = self.definition.subskill(name)
        assert registration is not None
        if registration.params is None:
            return None
        response = wrap(redirect.completed.response) if redirect.completed else None
        try:
            return registration.params(response, redirect.store)
        except SkillkitError:
            raise
        except BaseException as error:
            raise ParamsError(
                f"{where(self.definition.name)}params mapping of sub-skill '{name}' raised "
                f"{skill_raised(error)}"
            ) from None

    async def _resolve(
        self, result: EngineResult, before: dict[str, Any] | None = None
    ) -> EngineResult:
        """Follow a dispatcher's route. ``before`` is the dispatcher's state before the
        agent's answer: a route that cannot be followed rewinds to it, so the answer can be
        corrected instead of leaving a finished dispatcher and no sub-skill."""
        if not isinstance(result, RedirectResult):
            return result
        kind, name = result.target_kind, result.target
        self.redirected_to = {"kind": kind, "name": name}
        try:
            if kind == "topic":
                return self._topic(result, name)
            self._open_subskill(name, self._mapped_params(name, result))
        except SkillkitError as error:
            return self._route_refused(error, result, before)
        assert self.sub is not None
        try:
            first = self._from_sub(await self.sub.start())
        except SkillkitError as error:
            return ErrorResult(
                error.code, error.message, result.completed.step if result.completed else None
            )
        return _with_dispatcher_progress(first, result)

    def _route_refused(
        self, error: SkillkitError, redirect: RedirectResult, before: dict[str, Any] | None
    ) -> ErrorResult:
        """The route's target could not be opened (its params mapping raised, its params
        were rejected, its topic content failed): put the dispatcher back where it was."""
        step = redirect.completed.step if redirect.completed else None
        self.redirected_to = None
        self.sub_name = None
        self.sub = None
        if before is None or self.dispatcher is None:
            return ErrorResult(error.code, error.message, step)
        dispatcher = WorkflowEngine(
            self.definition, self.handshake, self.dispatcher.params_data, self.refs
        )
        dispatcher.restore(before)
        self.dispatcher = dispatcher
        waiting = dispatcher.current
        retry = error.code == "params" and waiting is not None
        message = error.message
        if retry:
            message += (
                f"; the answer to step '{waiting}' was not accepted and the run is still at "
                "that step: correct the answer and advance it again"
            )
        return ErrorResult(error.code, message, waiting or step, retry)

    def _topic(self, redirect: RedirectResult, name: str) -> DoneResult:
        topic = self.definition.topic(name)
        assert topic is not None  # the engine checked the route
        content = topic_content(self.definition, topic, self.refs, self.handshake)
        self.topic_result = DoneResult(
            {"topic": name, "content": content}, redirect.completed, redirect.auto_advanced
        )
        return self.topic_result

    def _from_sub(self, result: EngineResult) -> EngineResult:
        """Prefix a sub-skill result's step names."""
        name = self.sub_name or ""
        auto = tuple(_prefixed(name, r) for r in getattr(result, "auto_advanced", ()))
        completed = getattr(result, "completed", None)
        completed = _prefixed(name, completed) if completed is not None else None
        if isinstance(result, PromptResult):
            return PromptResult(
                f"{name}{SEPARATOR}{result.step}",
                result.prompt,
                result.schema,
                result.preamble,
                completed,
                auto,
            )
        if isinstance(result, DoneResult):
            return DoneResult(result.final_output, completed, auto)
        if isinstance(result, ErrorResult):
            step = f"{name}{SEPARATOR}{result.step}" if result.step else None
            return ErrorResult(result.error, result.message, step, result.retry)
        return ErrorResult(
            "runtime",
            f"sub-skill '{name}' tried to route to "
            f"'{result.redirect}'; sub-skills cannot route further",
            None,
        )

    def _unqualified(self, step: str) -> ErrorResult:
        """A step named without its sub-skill while a sub-skill runs: say the right name."""
        assert self.sub is not None and self.sub_name is not None
        name, waiting = self.sub_name, self.current
        steps = ", ".join(f"{name}{SEPARATOR}{s}" for s in self.sub.definition.steps)
        if step in self.sub.definition.steps:
            message = (
                f"'{step}' is a step of sub-skill '{name}', where the run is now: call it "
                f"'{name}{SEPARATOR}{step}'"
            )
        else:
            message = (
                f"'{step}' is not a step of this skill or of sub-skill '{name}', where the run "
                f"is now (its steps: {steps})"
            )
        if waiting is not None and waiting != f"{name}{SEPARATOR}{step}":
            message += f"; the run is waiting for '{waiting}'"
        return ErrorResult(
            "unknown_step",
            f"{where(self.definition.name)}{message}",
            step,
            retry=waiting is not None,
        )

    def _not_here(self, step: str) -> ErrorResult:
        waiting = self.current
        message = (
            f"step '{step}' is not the current step; the workflow is waiting for '{waiting}'"
            if waiting
            else "this run has already finished; start a new one"
        )
        return ErrorResult(
            "state", f"{where(self.definition.name)}{message}", step, retry=waiting is not None
        )


def _partition(
    history: Iterable[Mapping[str, Any]],
) -> tuple[list[Any], list[Any], str | None]:
    """Split a history into dispatcher entries and unprefixed sub-skill entries."""
    own: list[Any] = []
    subs: list[Any] = []
    sub_name: str | None = None
    for index, entry in enumerate(history):
        step = entry.get("step") if isinstance(entry, Mapping) else None
        sub, inner = split_step(step) if isinstance(step, str) else (None, step)
        if sub is None:
            if subs:
                raise HistoryError(
                    f"history entry {index} ('{step}') is a dispatcher step after sub-skill steps"
                )
            own.append(entry)
        elif sub_name not in (None, sub):
            raise HistoryError(
                f"history entry {index} is for sub-skill '{sub}' after steps of '{sub_name}'"
            )
        else:
            sub_name = sub
            subs.append({**entry, "step": inner})
    return own, subs, sub_name


def _with_dispatcher_progress(first: EngineResult, redirect: RedirectResult) -> EngineResult:
    """The sub-skill's first result reports the dispatcher step that routed to it."""
    auto = (*redirect.auto_advanced, *getattr(first, "auto_advanced", ()))
    if isinstance(first, PromptResult):
        return PromptResult(
            first.step, first.prompt, first.schema, first.preamble, redirect.completed, auto
        )
    if isinstance(first, DoneResult):
        return DoneResult(first.final_output, redirect.completed, auto)
    return first
