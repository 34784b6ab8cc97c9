"""Drive skills to completion in tests: ``run_skill``, ``run_composite`` and ``mock_model``."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from skillkit_core.definitions import SkillDefinition
from skillkit_core.engine.results import (
    DoneResult,
    ErrorResult,
    PromptResult,
    RedirectResult,
    StepResult,
)
from skillkit_core.errors import SkillkitError
from skillkit_core.hosts import Handshake

MAX_TURNS = 10_000


class SkillRunError(SkillkitError):
    """A test run could not finish: an error result, an exhausted mock, a runaway loop."""

    code = "run"


class ModelAdapter(Protocol):
    """Anything that answers a step's prompt."""

    def respond(self, step: str, prompt: str, schema: dict[str, Any] | None) -> Any: ...


class MockModel:
    """Canned answers per step: a value, a list consumed one per visit, or ``prompt -> value``.

    To answer with a list itself, wrap it: ``{"step": [[1, 2]]}``.
    """

    def __init__(self, answers: Mapping[str, Any]) -> None:
        self.answers = dict(answers)
        self.calls: dict[str, int] = {}

    def respond(self, step: str, prompt: str, schema: dict[str, Any] | None = None) -> Any:
        if step not in self.answers:
            known = ", ".join(self.answers) or "none"
            raise SkillRunError(
                f"mock_model has no answer for step '{step}' (answers for: {known})"
            )
        answer = self.answers[step]
        visit = self.calls.get(step, 0)
        self.calls[step] = visit + 1
        if isinstance(answer, list):
            if visit >= len(answer):
                raise SkillRunError(
                    f"mock_model answers for step '{step}' are exhausted: visit {visit + 1} "
                    f"but only {len(answer)} answer(s) given"
                )
            answer = answer[visit]
        if callable(answer):
            answer = answer(prompt)
        return answer


def mock_model(answers: Mapping[str, Any]) -> MockModel:
    """A model that answers from a mapping of step name to answer(s)."""
    return MockModel(answers)


@dataclass
class RunResult:
    """What a finished run produced."""

    path: list[str]
    outputs: dict[str, Any]
    response: Any
    history: tuple[StepResult, ...]
    store: Any
    prompts: dict[str, str] = field(default_factory=dict)
    results: list[dict[str, Any]] = field(default_factory=list)
    """Every result an agent would have received, as wire JSON, in order."""
    redirected_to: dict[str, str] | None = None


def handshake_of(host: str | Handshake | None) -> Handshake:
    """Accept a host id, a ``Handshake`` or ``None`` (generic)."""
    if host is None:
        return Handshake()
    if isinstance(host, Handshake):
        return host
    return Handshake(host=host)


async def _answer(model: Any, step: str, prompt: str, schema: Any) -> Any:
    respond = model.respond if hasattr(model, "respond") else model
    answer = respond(step, prompt, schema)
    if inspect.isawaitable(answer):
        answer = await answer
    return answer


async def drive(
    start: Callable[[], Any],
    advance: Callable[[str, Any], Any],
    model: Any,
    run: RunResult,
) -> Any:
    """Feed prompts to ``model`` until done; returns the last result. Shared by the helpers."""
    result = await start()
    for _ in range(MAX_TURNS):
        run.results.append(result.to_wire())
        if isinstance(result, ErrorResult):
            raise SkillRunError(f"step '{result.step}' failed ({result.error}): {result.message}")
        if not isinstance(result, PromptResult):
            return result
        run.prompts[result.step] = result.prompt
        output = await _answer(model, result.step, result.prompt, result.schema)
        run.outputs[result.step] = output
        result = await advance(result.step, output)
    raise SkillRunError(f"the run did not finish within {MAX_TURNS} turns")


async def run_skill_async(
    definition: SkillDefinition,
    *,
    model: Any,
    params: Any = None,
    host: str | Handshake | None = None,
    refs: Any = None,
) -> RunResult:
    """Run ``definition`` to completion with ``model`` answering every prompt."""
    from skillkit_core.engine.workflow import WorkflowEngine

    engine = WorkflowEngine(definition, handshake_of(host), params, refs)
    run = RunResult(path=engine.path, outputs={}, response=None, history=(), store=engine.store)
    final = await drive(engine.start, engine.advance, model, run)
    if isinstance(final, RedirectResult):
        raise SkillRunError(
            f"the skill routed to '{final.redirect}'; composites run with run_composite()"
        )
    assert isinstance(final, DoneResult)
    run.response = final.final_output
    run.history = engine.store.steps.history
    return run


def run_skill(
    definition: SkillDefinition,
    *,
    model: Any,
    params: Any = None,
    host: str | Handshake | None = None,
    refs: Any = None,
) -> RunResult:
    """Synchronous ``run_skill_async`` (use the async one inside a running event loop)."""
    return asyncio.run(
        run_skill_async(definition, model=model, params=params, host=host, refs=refs)
    )


async def run_composite_async(
    definition: SkillDefinition,
    *,
    model: Any,
    params: Any = None,
    host: str | Handshake | None = None,
    refs: Any = None,
    direct_subskill: str | None = None,
) -> RunResult:
    """Run a composite skill (dispatcher → sub-skill or topic); sub-skill steps are named
    ``sub/step`` in the path, the outputs and the model's calls."""
    from skillkit_core.composite import CompositeEngine

    engine = CompositeEngine(
        definition, handshake_of(host), params, refs, direct_subskill=direct_subskill
    )
    run = RunResult(path=[], outputs={}, response=None, history=(), store=None)
    final = await drive(engine.start, engine.advance, model, run)
    assert isinstance(final, DoneResult)
    run.path = engine.path
    run.response = final.final_output
    run.history = engine.history()
    run.store = engine.sub.store if engine.sub is not None else engine.dispatcher.store
    run.redirected_to = engine.redirected_to
    return run


def run_composite(
    definition: SkillDefinition,
    *,
    model: Any,
    params: Any = None,
    host: str | Handshake | None = None,
    refs: Any = None,
    direct_subskill: str | None = None,
) -> RunResult:
    """Synchronous ``run_composite_async``."""
    return asyncio.run(
        run_composite_async(
            definition,
            model=model,
            params=params,
            host=host,
            refs=refs,
            direct_subskill=direct_subskill,
        )
    )
