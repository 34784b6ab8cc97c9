"""Preview a skill per host: the preamble, and for every step what the agent receives.

A static prompt is rendered as is. A dynamic prompt (a callable) is rendered by the real
engine against example data: the steps guaranteed to have run before it (the graph's
dominators) are answered with example responses, in order, on a copy of the definition
whose ``next`` is rewired along that chain and whose actions return generated output.
Such prompts are labelled as examples, with the example responses that built the store.

A definition from a lenient build (``.build(strict=False)``, with ``problems``) is
previewed as far as it goes: whatever fails for one step becomes a note on that step.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from skillkit_core.definitions import (
    ReferenceDefinition,
    SkillDefinition,
    StepDefinition,
    terminal,
)
from skillkit_core.engine.graph import SkillGraph
from skillkit_core.engine.graph_source import analyze_source
from skillkit_core.engine.results import ErrorResult, PromptResult
from skillkit_core.errors import SkillkitError
from skillkit_core.hosts import Handshake, normalize_host
from skillkit_core.simulate.examples import example_value, seed_for
from skillkit_core.simulate.stubs import CopyOptions, Recorder, simulation_copy
from skillkit_core.simulate.transitions import TransitionInfo, step_transitions

PARAMS_GIVEN = "given"
PARAMS_EXAMPLE = "example"
PARAMS_NONE = "none"


@dataclass
class ExampleData:
    """What a dynamic prompt was rendered against (all of it example data)."""

    params_source: str
    store: list[tuple[str, Any]] = field(default_factory=list)
    """``(step, example response)`` in the order they were given."""

    def to_data(self) -> dict[str, Any]:
        return {
            "params": self.params_source,
            "store": [{"step": step, "response": data} for step, data in self.store],
        }


@dataclass
class StepPreview:
    """One step as an agent on the previewed host meets it."""

    name: str
    entry: bool
    reachable: bool
    prompt: str | None
    prompt_kind: str
    """``static``, ``dynamic`` (rendered against example data) or ``none`` (prompt-less)."""
    example: ExampleData | None
    schema: dict[str, Any] | None
    schema_name: str | None
    transitions: list[TransitionInfo]
    guaranteed: list[str]
    visit_limit: int | None
    visit_limit_implicit: bool
    action: dict[str, Any] | None
    notes: list[str] = field(default_factory=list)

    def to_data(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "entry": self.entry,
            "reachable": self.reachable,
            "prompt": self.prompt,
            "promptKind": self.prompt_kind,
            "example": self.example.to_data() if self.example else None,
            "schema": self.schema,
            "schemaName": self.schema_name,
            "transitions": [t.to_data() for t in self.transitions],
            "guaranteedBefore": self.guaranteed,
            "visitLimit": self.visit_limit,
            "visitLimitImplicit": self.visit_limit_implicit,
            "action": self.action,
            "notes": self.notes,
        }


@dataclass
class TopicPreview:
    """A topic's label and resolved content."""

    name: str
    label: str
    content: str | None
    tokens: int | None
    notes: list[str] = field(default_factory=list)

    def to_data(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "label": self.label,
            "content": self.content,
            "tokens": self.tokens,
            "notes": self.notes,
        }


@dataclass
class SkillPreview:
    """Everything ``preview`` shows for one skill (sub-skills nested, steps prefixed)."""

    name: str
    kind: str
    """``skill``, ``composite`` or ``reference``."""
    description: str | None
    host: str
    tools: tuple[str, ...]
    subagent: bool
    preamble: str | None
    params: Any
    params_source: str
    steps: list[StepPreview] = field(default_factory=list)
    subskills: list[SkillPreview] = field(default_factory=list)
    topics: list[TopicPreview] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_data(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "description": self.description,
            "host": self.host,
            "tools": list(self.tools),
            "subagent": self.subagent,
            "preamble": self.preamble,
            "params": self.params,
            "paramsSource": self.params_source,
            "problems": self.problems,
            "notes": self.notes,
            "steps": [s.to_data() for s in self.steps],
            "subskills": [s.to_data() for s in self.subskills],
            "topics": [t.to_data() for t in self.topics],
        }


@dataclass(frozen=True)
class _Context:
    """What every step preview of one skill shares."""

    definition: SkillDefinition
    graph: SkillGraph
    handshake: Handshake
    params: Any
    params_source: str
    seed: int
    refs: Any


def preview(
    definition: SkillDefinition | ReferenceDefinition,
    host: str | Handshake = "generic",
    tools: Sequence[str] = (),
    subagent: bool = False,
    params: Any = None,
    *,
    step: str | None = None,
    seed: int = 0,
    refs: Any = None,
) -> SkillPreview:
    """What an agent on ``host`` will see of ``definition``, step by step.

    ``params`` default to an example generated from the params schema (said so in the
    result). ``step`` limits the steps shown to one (``sub/step`` for a sub-skill's).
    """
    return asyncio.run(
        preview_async(definition, host, tools, subagent, params, step=step, seed=seed, refs=refs)
    )


async def preview_async(
    definition: SkillDefinition | ReferenceDefinition,
    host: str | Handshake = "generic",
    tools: Sequence[str] = (),
    subagent: bool = False,
    params: Any = None,
    *,
    step: str | None = None,
    seed: int = 0,
    refs: Any = None,
) -> SkillPreview:
    """The coroutine behind :func:`preview`."""
    handshake = (
        host
        if isinstance(host, Handshake)
        else Handshake(normalize_host(host), tuple(tools), subagent)
    )
    if isinstance(definition, ReferenceDefinition):
        return _reference_preview(definition, handshake, refs)
    _check_step_filter(definition, step)
    # The preamble belongs to a whole run; a one-step preview leaves it out.
    return await _skill_preview(
        definition, handshake, params, seed=seed, refs=refs, only=step, prefix="", top=step is None
    )


def _check_step_filter(definition: SkillDefinition, step: str | None) -> None:
    if step is None:
        return
    names = list(definition.steps)
    for sub in definition.subskills:
        names += [f"{sub.name}/{name}" for name in sub.definition.steps]
    if step not in names:
        from skillkit_core.simulate.errors import SimulationError

        raise SimulationError(
            f"no step '{step}' in skill '{definition.name}' (steps: {', '.join(names)})",
            code="preview",
        )


async def _skill_preview(
    definition: SkillDefinition,
    handshake: Handshake,
    params: Any,
    *,
    seed: int,
    refs: Any,
    only: str | None,
    prefix: str,
    top: bool,
) -> SkillPreview:
    notes: list[str] = []
    params, params_source = _params(definition, params, seed, notes)
    result = SkillPreview(
        name=definition.name,
        kind="composite" if definition.is_composite else "skill",
        description=definition.description,
        host=handshake.host,
        tools=handshake.tools_available,
        subagent=handshake.is_subagent,
        preamble=_preamble(definition, handshake, notes) if top else None,
        params=params,
        params_source=params_source,
        problems=list(definition.problems),
        notes=notes,
    )
    graph = analyze_source(definition)
    context = _Context(definition, graph, handshake, params, params_source, seed, refs)
    base = _preview_copy(definition, seed)
    for name, step in definition.steps.items():
        if only is None or only == prefix + name:
            result.steps.append(await _step_preview(base, step, context, prefix))
    for sub in definition.subskills:
        sub_prefix = f"{prefix}{sub.name}/"
        if only is not None and not only.startswith(sub_prefix):
            continue
        sub_preview = await _skill_preview(
            sub.definition,
            handshake,
            None,
            seed=seed,
            refs=refs,
            only=only,
            prefix=sub_prefix,
            top=top,  # a routed sub-skill's first prompt brings its own preamble
        )
        result.subskills.append(sub_preview)
    if only is None:
        result.topics = [_topic_preview(definition, t, refs, handshake) for t in definition.topics]
    return result


def _params(
    definition: SkillDefinition, params: Any, seed: int, notes: list[str]
) -> tuple[Any, str]:
    if params is not None:
        return params, PARAMS_GIVEN
    if definition.params is None:
        return None, PARAMS_NONE
    try:
        value = example_value(definition.params, seed=seed, use_defaults=True)
    except SkillkitError as error:
        notes.append(f"no example params: {error.message}")
        return None, PARAMS_NONE
    notes.append(f"params are an example generated from {definition.params.name}")
    return value, PARAMS_EXAMPLE


def _preamble(definition: SkillDefinition, handshake: Handshake, notes: list[str]) -> str | None:
    from skillkit_core.preamble import generate_preamble

    try:
        return generate_preamble(handshake, system=definition.system, skill_name=definition.name)
    except SkillkitError as error:
        notes.append(f"the preamble could not be built: {error.message}")
        return None


def _preview_copy(definition: SkillDefinition, seed: int) -> SkillDefinition:
    """Actions stubbed, observers off, problems cleared (the steps that matter are
    rewired per preview, so a broken target elsewhere does not stop the engine)."""
    copy = simulation_copy(definition, Recorder(), CopyOptions(seed=seed))
    return replace(
        copy,
        observers=MappingProxyType({}),
        problems=(),
        final_output=None,
        subskills=(),
        topics=(),
    )


async def _step_preview(
    base: SkillDefinition,
    step: StepDefinition,
    context: _Context,
    prefix: str,
) -> StepPreview:
    notes: list[str] = []
    graph = context.graph
    limit = graph.visit_limit(step)
    guaranteed = _ordered(graph, step.name)
    dynamic = callable(step.prompt) and not isinstance(step.prompt, type)
    preview = StepPreview(
        name=prefix + step.name,
        entry=step.name == base.entry,
        reachable=step.name in graph.reachable,
        prompt=None,
        prompt_kind="none" if not step.has_prompt else ("dynamic" if dynamic else "static"),
        example=None,
        schema=_schema(step, notes),
        schema_name=step.response.name if step.response is not None else None,
        transitions=[_prefixed(t, prefix, base) for t in step_transitions(step, graph)],
        guaranteed=[prefix + g for g in guaranteed],
        visit_limit=limit,
        visit_limit_implicit=limit is not None and step.max_visits is None,
        action=_action(step),
        notes=notes,
    )
    if not step.has_prompt:
        return preview
    if not dynamic:
        preview.prompt = await _render(base, step, [], context, None, notes)
        return preview
    preview.example = ExampleData(context.params_source)
    preview.prompt = await _render_on_a_path(step, context, preview.example)
    if preview.prompt is None:
        preview.example.store.clear()
        preview.prompt = await _render(base, step, guaranteed, context, preview.example, notes)
    preview.example.store = [(prefix + name, data) for name, data in preview.example.store]
    return preview


def _prefixed(info: TransitionInfo, prefix: str, owner: SkillDefinition) -> TransitionInfo:
    """A sub-skill's transition with its target named ``sub/step``, as agents see it."""
    if prefix and info.target in owner.steps:
        return replace(info, target=prefix + info.target)
    return info


def _ordered(graph: SkillGraph, name: str) -> list[str]:
    """The steps guaranteed before ``name``, in the order every path meets them."""
    before = graph.guaranteed_before(name)
    return sorted(before, key=lambda g: len(graph.guaranteed_before(g)))


def _schema(step: StepDefinition, notes: list[str]) -> dict[str, Any] | None:
    if step.response is None:
        return None
    try:
        return step.response.json_schema()
    except Exception as error:  # pydantic cannot describe some types as JSON Schema
        notes.append(f"no JSON Schema for {step.response.name}: {type(error).__name__}: {error}")
        return None


def _action(step: StepDefinition) -> dict[str, Any] | None:
    if step.action is None:
        return None
    declared = step.action.declared
    return {
        "name": step.action.name,
        "declared": declared is not None,
        "input": declared.input.name if declared and declared.input else None,
        "output": declared.output.name if declared and declared.output else None,
        "mapsInput": step.action.map_input is not None,
    }


async def _render_on_a_path(
    step: StepDefinition, context: _Context, example: ExampleData
) -> str | None:
    """The prompt as a real run first meets it: generated responses, each picked so the
    step stays reachable, every transition the author's own. ``None`` when no such run
    is found (or the skill has problems, so it cannot run)."""
    from skillkit_core.simulate.simulate import first_prompt_at

    if context.definition.problems:
        return None
    try:
        prompt, given = await first_prompt_at(
            context.definition,
            context.handshake,
            context.params,
            step.name,
            seed=context.seed,
            refs=context.refs,
        )
    except SkillkitError:
        return None
    example.store.extend(given)
    return prompt


async def _render(
    base: SkillDefinition,
    step: StepDefinition,
    chain: list[str],
    context: _Context,
    example: ExampleData | None,
    notes: list[str],
) -> str | None:
    """``step``'s prompt from the real engine, after answering ``chain`` with examples
    on a copy whose ``next`` leads straight along the chain."""
    from skillkit_core.engine.workflow import WorkflowEngine

    sequence = [*chain, step.name]
    steps = dict(base.steps)
    for here, there in itertools.pairwise(sequence):
        steps[here] = _rewired(steps[here], there)
    steps[step.name] = _rewired(steps[step.name], terminal)
    definition = replace(base, entry=sequence[0], steps=MappingProxyType(steps))
    try:
        engine = WorkflowEngine(definition, context.handshake, context.params, context.refs)
        result = await engine.start()
        while isinstance(result, PromptResult) and result.step != step.name:
            earlier = definition.steps[result.step]
            data = (
                example_value(earlier.response, seed=seed_for(context.seed, result.step, 1))
                if earlier.response is not None
                else {}
            )
            if example is not None:
                example.store.append((result.step, data))
            result = await engine.advance(result.step, data)
    except SkillkitError as error:
        notes.append(f"prompt not rendered: {error.message}")
        return None
    except Exception as error:  # author code in params validators, factories...
        notes.append(f"prompt not rendered: {type(error).__name__}: {error}")
        return None
    if isinstance(result, PromptResult):
        return result.prompt
    if isinstance(result, ErrorResult):
        during = "" if result.step == step.name else f" (answering '{result.step}' with an example)"
        notes.append(f"prompt not rendered{during}: {result.message}")
    return None


def _rewired(step: StepDefinition, next_step: Any) -> StepDefinition:
    return replace(step, next=next_step, max_visits=None, on_max_visits=None)


def _topic_preview(
    owner: SkillDefinition | ReferenceDefinition, topic: Any, refs: Any, handshake: Handshake
) -> TopicPreview:
    from skillkit_core.composite import topic_content
    from skillkit_core.engine.workflow import default_refs
    from skillkit_core.manifest.spec import estimate_tokens

    loader = default_refs(owner, refs)  # type: ignore[arg-type]
    try:
        content = topic_content(owner, topic, loader, handshake)
    except SkillkitError as error:
        return TopicPreview(topic.name, topic.label, None, None, [error.message])
    return TopicPreview(topic.name, topic.label, content, estimate_tokens(content))


def _reference_preview(
    definition: ReferenceDefinition, handshake: Handshake, refs: Any
) -> SkillPreview:
    return SkillPreview(
        name=definition.name,
        kind="reference",
        description=definition.description,
        host=handshake.host,
        tools=handshake.tools_available,
        subagent=handshake.is_subagent,
        preamble=None,
        params=None,
        params_source=PARAMS_NONE,
        topics=[_topic_preview(definition, t, refs, handshake) for t in definition.topics],
        problems=list(definition.problems),
    )
