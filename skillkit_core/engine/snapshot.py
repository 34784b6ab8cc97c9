"""A run's state as JSON-ready data, so a session can continue without replaying.

The snapshot is a cache, never the record: a session file's JSONL lines stay the full,
replayable history, and a snapshot that does not fit is refused (the caller replays).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from skillkit_core.engine.results import RedirectResult, StepResult
from skillkit_core.errors import HistoryError

if TYPE_CHECKING:
    from skillkit_core.engine.workflow import WorkflowEngine

VERSION = 1


def step_result_from_wire(data: Any) -> StepResult:
    """Rebuild a ``StepResult`` from its ``completed`` form."""
    if not isinstance(data, Mapping) or not isinstance(data.get("step"), str):
        raise HistoryError(f"snapshot holds a malformed step result: {data!r}")
    return StepResult(
        step=data["step"],
        response=data.get("response"),
        result=data.get("result"),
        action_result=data.get("actionResult"),
        has_action="actionResult" in data,
    )


def take(engine: WorkflowEngine) -> dict[str, Any]:
    """The engine's state as plain data."""
    store = engine.store
    redirect = engine.redirect
    return {
        "v": VERSION,
        "skill": engine.definition.name,
        "current": engine.current,
        "finished": engine.finished,
        "path": list(engine.path),
        "visits": dict(engine.visits),
        "failures": dict(engine._failures),
        "preamblePending": engine._preamble_pending,
        "history": [r.to_wire() for r in store.steps.history],
        "stores": {name: store.sub_store(name) for name in engine.definition.stores},
        "redirect": None
        if redirect is None
        else {
            "target": redirect.redirect,
            "completed": redirect.completed.to_wire() if redirect.completed else None,
            "autoAdvanced": [r.to_wire() for r in redirect.auto_advanced],
        },
    }


def restore(engine: WorkflowEngine, snapshot: Any) -> None:
    """Load ``snapshot`` into a freshly constructed engine; ``HistoryError`` if it misfits."""
    if not isinstance(snapshot, Mapping) or snapshot.get("v") != VERSION:
        raise HistoryError("snapshot has an unknown format")
    if snapshot.get("skill") != engine.definition.name:
        raise HistoryError("snapshot belongs to another skill")
    if engine.current is not None or engine.finished or engine.path:
        raise HistoryError("a snapshot can only be restored into a fresh engine")
    steps = engine.definition.steps
    current = snapshot.get("current")
    if current is not None and current not in steps:
        raise HistoryError(f"snapshot names unknown step {current!r}")
    history = [step_result_from_wire(item) for item in snapshot.get("history", ())]
    if any(r.step not in steps for r in history):
        raise HistoryError("snapshot history names unknown steps")
    stores = snapshot.get("stores", {})
    if not isinstance(stores, Mapping) or set(stores) != set(engine.definition.stores):
        raise HistoryError("snapshot sub-stores do not match the skill")
    for result in history:
        engine.store.append(result)
    for name, data in stores.items():
        engine.store._stores[name] = dict(data)
    engine.current = current
    engine.finished = bool(snapshot.get("finished"))
    engine.path[:] = [str(s) for s in snapshot.get("path", ())]
    engine.visits = Counter({str(k): int(v) for k, v in snapshot.get("visits", {}).items()})
    engine._failures = Counter({str(k): int(v) for k, v in snapshot.get("failures", {}).items()})
    engine._preamble_pending = bool(snapshot.get("preamblePending"))
    redirect = snapshot.get("redirect")
    if redirect is not None:
        completed = redirect.get("completed")
        engine.redirect = RedirectResult(
            str(redirect["target"]),
            step_result_from_wire(completed) if completed is not None else None,
            engine.store,
            tuple(step_result_from_wire(r) for r in redirect.get("autoAdvanced", ())),
        )
