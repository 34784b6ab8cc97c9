"""Building the right engine for a call, and running its coroutines from sync code."""

from __future__ import annotations

import sys
from collections.abc import Coroutine
from typing import Any

from skillkit_core.definitions import ReferenceDefinition, SkillDefinition
from skillkit_core.errors import UsageError
from skillkit_core.hosts import Handshake, detect_host, normalize_host

Engine = Any
"""A ``WorkflowEngine`` or a ``CompositeEngine`` (same coroutines and attributes)."""


def make_handshake(
    host: str | None, tools: tuple[str, ...] | list[str] | None, subagent: bool
) -> Handshake:
    """The handshake from the protocol's flags; an unknown host becomes ``generic`` with a
    warning on stderr (a new host must never break a run).

    Without ``--host`` (``host`` is None) the host is detected from an environment
    variable it is documented to set for the commands it runs, saying so on stderr, and
    is ``generic`` when none is set; ``--host`` always wins.
    """
    if host is None:
        detected = detect_host()
        if detected is not None:
            host, reason = detected
            print(f"skillkit: host: {host} (detected: {reason})", file=sys.stderr)
    return Handshake(
        host=normalize_host(host), tools_available=tuple(tools or ()), is_subagent=bool(subagent)
    )


def workflow_of(definition: SkillDefinition | ReferenceDefinition) -> SkillDefinition:
    """The definition as a workflow, or a usage error for a reference skill."""
    if isinstance(definition, ReferenceDefinition):
        raise UsageError(
            f"'{definition.name}' is a reference skill: it has topics, not steps; use "
            "'topics' to list them and 'topic NAME' to read one"
        )
    return definition


def open_engine(
    definition: SkillDefinition,
    handshake: Handshake,
    params: Any,
    subskill: str | None = None,
) -> Engine:
    """A fresh engine; composites (and direct sub-skill starts) get the composite layer.

    Raises ``ParamsError`` for params that fail the schema, and for any params of a skill
    that declares none: every key is then undeclared, which the protocol refuses rather
    than drop (inside a run, a dispatcher may still hand a sub-skill without a schema
    whatever its mapping returns).
    """
    # A direct sub-skill start's params are the sub-skill's.
    sub = definition.subskill(subskill) if subskill is not None else None
    started = sub.definition if sub is not None else definition
    unknown_sub = subskill is not None and sub is None  # the composite engine says so
    if not unknown_sub and started.params is None and params not in (None, {}):
        from skillkit_core.errors import ParamsError

        given = ", ".join(sorted(map(str, params))) if isinstance(params, dict) else "a value"
        raise ParamsError(
            f"skill '{started.name}' declares no params, so it takes none; leave --params "
            f"out (given: {given})"
        )
    if subskill is not None or definition.is_composite:
        from skillkit_core.composite import CompositeEngine

        return CompositeEngine(definition, handshake, params, direct_subskill=subskill)
    from skillkit_core.engine.workflow import WorkflowEngine

    return WorkflowEngine(definition, handshake, params)


def needs_event_loop(definition: SkillDefinition) -> bool:
    """Whether running ``definition`` may await author code (actions or observers).

    Everything else the engine calls is synchronous, so its coroutines finish without
    ever suspending and can be driven without asyncio, whose import costs a noticeable
    slice of a ``scripts/run`` call.
    """
    definitions = (definition, *(sub.definition for sub in definition.subskills))
    return any(
        d.observers or any(step.action is not None for step in d.steps.values())
        for d in definitions
    )


def run_sync(coroutine: Coroutine[Any, Any, Any], *, event_loop: bool) -> Any:
    """Run an engine coroutine to completion and return its value."""
    if event_loop:
        import asyncio

        return asyncio.run(coroutine)
    try:
        coroutine.send(None)
    except StopIteration as finished:
        return finished.value
    coroutine.close()
    raise RuntimeError(
        "an engine call suspended although the skill has no actions or observers"
    )  # pragma: no cover - guarded by needs_event_loop
