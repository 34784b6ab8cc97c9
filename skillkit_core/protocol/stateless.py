"""Stateless mode: every call rebuilds the run from ``--params`` and ``--history``.

Replay restores the store and visit counts without running actions or observers (a
recorded ``actionResult`` is reused), so the agent can call again and again with the
growing history and nothing happens twice.
"""

from __future__ import annotations

from typing import Any

from skillkit_core.composite import SEPARATOR
from skillkit_core.definitions import SkillDefinition
from skillkit_core.hosts import Handshake
from skillkit_core.protocol.args import MISSING, Invocation
from skillkit_core.protocol.engines import needs_event_loop, open_engine, run_sync
from skillkit_core.protocol.output import Reply, result_reply


def start(definition: SkillDefinition, inv: Invocation, handshake: Handshake) -> Reply:
    """The first result of a new run (with the preamble)."""
    engine = open_engine(definition, handshake, _params(inv), inv.subskill)
    result = run_sync(engine.start(), event_loop=needs_event_loop(definition))
    return result_reply(result.to_wire())


def advance(definition: SkillDefinition, inv: Invocation, handshake: Handshake) -> Reply:
    """Replay ``--history``, then submit ``--output`` for ``--step``.

    Raises ``HistoryError`` when the history does not fit the skill.
    """
    history = [] if inv.history is MISSING else inv.history
    step = submitted_step(inv)
    subskill = inv.subskill or direct_subskill_of(definition, history, step)
    engine = open_engine(definition, handshake, _params(inv), subskill)
    loop = needs_event_loop(definition)
    run_sync(engine.replay(history), event_loop=loop)
    result = run_sync(engine.advance(step, inv.output), event_loop=loop)
    return result_reply(result.to_wire())


def submitted_step(inv: Invocation) -> Any:
    """``--step``, prefixed with the sub-skill for ``<subskill> advance --step inner``."""
    step = inv.step
    if inv.subskill and isinstance(step, str) and SEPARATOR not in step:
        return f"{inv.subskill}{SEPARATOR}{step}"
    return step


def direct_subskill_of(definition: SkillDefinition, history: list[Any], step: Any) -> str | None:
    """The sub-skill a run was started on directly, read from its first step.

    A run routed by the dispatcher always has dispatcher steps first (the routing step is
    the first sub-skill result's ``completed``), so a history, or a first advance, that
    begins inside a sub-skill belongs to a direct ``<subskill> start``: its params are the
    sub-skill's, and must stay so on every call.
    """
    if not definition.subskills:
        return None
    first = history[0].get("step") if history and isinstance(history[0], dict) else step
    if not isinstance(first, str) or SEPARATOR not in first:
        return None
    name = first.split(SEPARATOR, 1)[0]
    return name if definition.subskill(name) is not None else None


def _params(inv: Invocation) -> Any:
    return None if inv.params is MISSING else inv.params
