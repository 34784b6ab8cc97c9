"""Stateless mode: every call rebuilds the run from ``--params`` and ``--history``.

Replay restores the store and visit counts without running actions or observers (a
recorded ``actionResult`` is reused), so the agent can call again and again with the
growing history and nothing happens twice.

An action's result can steer the run (a branch reads ``ctx.action_result``), and the agent
holds the history, so every printed entry with an ``actionResult`` carries an
``actionTag``: an HMAC-SHA256 of the skill, the step and the result under the per-user key
of the session folder. A history entry whose ``actionResult`` has no matching tag is a
``history`` error: an action result the agent edited cannot change the route.
"""

from __future__ import annotations

import functools
from typing import Any

from skillkit_core.composite import SEPARATOR
from skillkit_core.definitions import SkillDefinition
from skillkit_core.errors import HistoryError
from skillkit_core.hosts import Handshake
from skillkit_core.protocol.args import MISSING, Invocation
from skillkit_core.protocol.engines import needs_event_loop, open_engine, run_sync
from skillkit_core.protocol.output import Reply, json_line, result_reply


def start(definition: SkillDefinition, inv: Invocation, handshake: Handshake) -> Reply:
    """The first result of a new run (with the preamble)."""
    engine = open_engine(definition, handshake, _params(inv), inv.subskill)
    result = run_sync(engine.start(), event_loop=needs_event_loop(definition))
    return result_reply(_tagged(definition, result.to_wire()))


def advance(definition: SkillDefinition, inv: Invocation, handshake: Handshake) -> Reply:
    """Replay ``--history``, then submit ``--output`` for ``--step``.

    Raises ``HistoryError`` when the history does not fit the skill.
    """
    history = [] if inv.history is MISSING else inv.history
    step = submitted_step(inv)
    subskill = inv.subskill or direct_subskill_of(definition, history, step)
    engine = open_engine(definition, handshake, _params(inv), subskill)
    _check_action_tags(definition, history)
    loop = needs_event_loop(definition)
    run_sync(engine.replay(history), event_loop=loop)
    result = run_sync(engine.advance(step, inv.output), event_loop=loop)
    return result_reply(_tagged(definition, result.to_wire()))


ACTION_TAG = "actionTag"


def _tagged(definition: SkillDefinition, wire: dict[str, Any]) -> dict[str, Any]:
    """``wire`` with an ``actionTag`` on every history entry that holds an action result."""
    entries = [wire["completed"]] if isinstance(wire.get("completed"), dict) else []
    entries += [e for e in wire.get("autoAdvanced", ()) if isinstance(e, dict)]
    recorded = [entry for entry in entries if "actionResult" in entry]
    if recorded:
        key = _key()
        for entry in recorded:
            entry[ACTION_TAG] = _action_tag(key, definition.name, entry)
    return wire


def _check_action_tags(definition: SkillDefinition, history: list[Any]) -> None:
    recorded = [
        (index, entry)
        for index, entry in enumerate(history)
        if isinstance(entry, dict) and "actionResult" in entry
    ]
    if not recorded:
        return
    import hmac

    key = _key()
    for index, entry in recorded:
        tag = entry.get(ACTION_TAG)
        expected = _action_tag(key, definition.name, entry)
        if not isinstance(tag, str) or not hmac.compare_digest(tag, expected):
            raise HistoryError(
                f"history entry {index} ('{entry.get('step')}'): its actionResult is not one "
                f"scripts/run printed (its {ACTION_TAG} is missing or does not match); pass the "
                "completed and autoAdvanced objects back exactly as they were printed"
            )


def _action_tag(key: bytes, skill: str, entry: dict[str, Any]) -> str:
    import hmac

    message = json_line([skill, entry.get("step"), entry.get("actionResult")])
    return hmac.new(key, message.encode("utf-8"), "sha256").hexdigest()


@functools.cache
def _key() -> bytes:
    """The per-user key, read once per process (checking the history and tagging the
    result both need it)."""
    from skillkit_core.protocol.session_store import session_dir, snapshot_key

    return snapshot_key(session_dir(None, create=True))[0]


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
