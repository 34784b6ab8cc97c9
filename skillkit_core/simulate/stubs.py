"""Simulation copies of a definition: the real engine runs them, with a recorder attached.

A copy differs from the author's definition in three labelled ways, all made with
``dataclasses.replace`` so the engine itself is untouched:

- unless actions are to run, each action's ``run`` is swapped for a stub that returns an
  example generated from the action's output schema (its input is still mapped and
  validated for real) and records that it did so;
- branch conditions and callable ``next`` functions are wrapped to record which branch
  matched and what ``next`` returned (``functools.wraps`` keeps ``__wrapped__``, so the
  graph analysis reads the same step names);
- observers are replaced by a transition recorder (the author's observers are kept only
  when actions run, since they are side effects too).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from skillkit_core.definitions import (
    ActionDefinition,
    Branch,
    SkillDefinition,
    StepAction,
    StepDefinition,
    Terminal,
)
from skillkit_core.simulate.examples import example_value, seed_for


@dataclass
class Recorder:
    """Collects what the instrumented copy reports while the engine runs it."""

    events: list[dict[str, Any]] = field(default_factory=list)

    def add(self, **event: Any) -> None:
        self.events.append(event)

    def take(self) -> list[dict[str, Any]]:
        """The events since the last call."""
        taken, self.events = self.events, []
        return taken


@dataclass(frozen=True)
class CopyOptions:
    """How to make a simulation copy."""

    seed: int = 0
    run_actions: bool = False
    keep_observers: bool = False


def simulation_copy(
    definition: SkillDefinition, recorder: Recorder, options: CopyOptions, prefix: str = ""
) -> SkillDefinition:
    """The instrumented copy of ``definition`` (and of its sub-skills, step names prefixed
    ``sub/`` in the recorder's events)."""
    steps = {
        name: _instrument(step, recorder, options, prefix)
        for name, step in definition.steps.items()
    }
    observers: dict[str, Callable[[Any], Any]] = (
        dict(definition.observers) if options.keep_observers else {}
    )
    observers["on_transition"] = _transition_observer(
        recorder, prefix, observers.get("on_transition")
    )
    subskills = tuple(
        replace(sub, definition=simulation_copy(sub.definition, recorder, options, f"{sub.name}/"))
        for sub in definition.subskills
    )
    return replace(
        definition,
        steps=MappingProxyType(steps),
        observers=MappingProxyType(observers),
        subskills=subskills,
    )


def _transition_observer(
    recorder: Recorder, prefix: str, author: Callable[[Any], Any] | None
) -> Callable[[Any], Any]:
    def on_transition(event: Any) -> Any:
        to_step = event.to_step
        if to_step and event.reason != "route":
            to_step = prefix + to_step
        recorder.add(
            kind="transition",
            source=prefix + (event.from_step or ""),
            target=to_step,
            reason=event.reason,
        )
        return author(event) if author is not None else None

    return on_transition


def _instrument(
    step: StepDefinition, recorder: Recorder, options: CopyOptions, prefix: str
) -> StepDefinition:
    name = prefix + step.name
    changes: dict[str, Any] = {}
    if isinstance(step.next, tuple):
        changes["next"] = tuple(
            _watched_branch(arm, position, name, recorder)
            for position, arm in enumerate(step.next, start=1)
        )
    elif callable(step.next) and not isinstance(step.next, Terminal):
        changes["next"] = _watched_next(step.next, name, recorder)
    if step.action is not None and not options.run_actions:
        changes["action"] = _stub_action(step.action, name, recorder, options.seed)
    return replace(step, **changes) if changes else step


def _watched_branch(arm: Branch, position: int, step: str, recorder: Recorder) -> Branch:
    if arm.when is None:
        return arm
    when = arm.when

    @functools.wraps(when)
    def watched(ctx: Any) -> Any:
        value = when(ctx)
        recorder.add(kind="branch", step=step, position=position, matched=bool(value))
        return value

    return Branch(arm.to, watched)


def _watched_next(fn: Callable[[Any], Any], step: str, recorder: Recorder) -> Callable[[Any], Any]:
    @functools.wraps(fn)
    def watched(ctx: Any) -> Any:
        value = fn(ctx)
        shown = value if isinstance(value, str) else repr(value)
        recorder.add(kind="next", step=step, value=shown)
        return value

    return watched


def _stub_action(action: StepAction, step: str, recorder: Recorder, seed: int) -> StepAction:
    declared = action.declared
    output = declared.output if declared is not None else None
    name = action.name

    def stub(ctx: Any) -> Any:
        # Seeded by the input, so the same input always "returns" the same example.
        basis = json.dumps(_plain(ctx.input), sort_keys=True, default=str)
        value = (
            example_value(output, seed=seed_for(seed, step, "action", basis))
            if output is not None
            else None
        )
        recorder.add(
            kind="action",
            step=step,
            action=name,
            output=value,
            generated=True,
            schema_less=output is None,
        )
        return value

    if declared is not None:
        return replace(action, run=replace(declared, run=stub))
    return replace(action, run=ActionDefinition(name, None, None, stub))


def _plain(value: Any) -> Any:
    from pydantic_core import to_jsonable_python

    from skillkit_core.records import unwrap

    try:
        return to_jsonable_python(unwrap(value))
    except Exception:  # an exotic input type: fall back to its text
        return repr(value)
