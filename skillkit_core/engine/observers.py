"""Observer dispatch: awaited in order, failures logged to stderr and never propagated."""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ObserverEvent:
    """One lifecycle event; only the fields of that event are set."""

    event: str
    step: str | None = None
    params: Any = None
    response: Any = None
    duration_ms: float | None = None
    raw: Any = None
    error: str | None = None
    attempt: int | None = None
    from_step: str | None = None
    to_step: str | None = None
    reason: str | None = None
    path: tuple[str, ...] | None = None
    final_output: Any = None


async def notify(observers: Mapping[str, Callable[[Any], Any]], event: ObserverEvent) -> None:
    """Call the observer for ``event.event`` if any; its failure never changes the run."""
    observer = observers.get(event.event)
    if observer is None:
        return
    try:
        outcome = observer(event)
        if inspect.isawaitable(outcome):
            await outcome
    except Exception as error:  # an observer must never break the run
        print(f"skillkit: observer {event.event} failed: {error!r}", file=sys.stderr)
