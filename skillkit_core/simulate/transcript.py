"""Turn what the recorder saw during one engine call into transcript records."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from skillkit_core.definitions import SUBSKILL_PREFIX, TOPIC_PREFIX, StepDefinition, Terminal
from skillkit_core.engine.results import DoneResult
from skillkit_core.safe_text import code_span
from skillkit_core.simulate.report import ActionRecord, TransitionRecord
from skillkit_core.simulate.transitions import callable_source


def records(
    events: list[dict[str, Any]], result: Any, steps: Mapping[str, StepDefinition]
) -> tuple[list[TransitionRecord], list[ActionRecord]]:
    """The transitions and action results behind ``result``.

    ``events`` are the recorder's (branch matches, ``next`` returns, transitions, stubbed
    actions); ``steps`` maps every step name, sub-skill steps as ``sub/step``.
    """
    transitions: list[TransitionRecord] = []
    chosen: dict[str, tuple[str, Any]] = {}
    generated: dict[str, dict[str, Any]] = {}
    for event in events:
        kind = event["kind"]
        if kind == "branch" and event["matched"]:
            chosen.setdefault(event["step"], ("branch", event["position"]))
        elif kind == "next":
            chosen[event["step"]] = ("next", event["value"])
        elif kind == "action":
            generated[event["step"]] = event
        elif kind == "transition":
            source = event["source"]
            via, intended = how_it_went(steps.get(source), chosen.pop(source, None))
            reason = event["reason"]
            transitions.append(
                TransitionRecord(
                    source,
                    event["target"],
                    reason,
                    via,
                    intended if reason == "max_visits" else None,
                )
            )
    if isinstance(result, DoneResult):
        last = result.auto_advanced[-1] if result.auto_advanced else result.completed
        routed = bool(transitions and transitions[-1].reason == "route")
        if last is not None and not routed:
            transitions.append(TransitionRecord(last.step, None, "terminal", "terminal"))
    return transitions, _actions(result, generated, steps)


def _actions(
    result: Any, generated: dict[str, dict[str, Any]], steps: Mapping[str, StepDefinition]
) -> list[ActionRecord]:
    completed = [getattr(result, "completed", None), *getattr(result, "auto_advanced", ())]
    found = []
    for item in completed:
        if item is None or not item.has_action:
            continue
        stub = generated.get(item.step)
        step = steps.get(item.step)
        name = stub["action"] if stub else (step.action.name if step and step.action else "?")
        found.append(ActionRecord(item.step, name, item.action_result, stub is not None))
    return found


def how_it_went(
    step: StepDefinition | None, chosen: tuple[str, Any] | None
) -> tuple[str, str | None]:
    """How a step's ``next`` picked its target (``via``), and the target it aimed at."""
    if step is None:
        return "next", None
    nxt = step.next
    if isinstance(nxt, Terminal):
        return "terminal", None
    if isinstance(nxt, str):
        return "next", _resolve(step, nxt)
    if isinstance(nxt, tuple):
        position = chosen[1] if chosen and chosen[0] == "branch" else None
        if position is None:
            position = next((i for i, arm in enumerate(nxt, 1) if arm.when is None), None)
        if position is None:
            return "branch", None
        arm = nxt[position - 1]
        if arm.when is None:
            return f"branch {position} (otherwise)", _resolve(step, arm.to)
        return f"branch {position}: {code_span(callable_source(arm.when))}", _resolve(step, arm.to)
    value = chosen[1] if chosen and chosen[0] == "next" else None
    text = code_span(callable_source(nxt))
    if value is None:
        return f"{text} decided", None
    return f"{text} returned '{value}'", _resolve(step, value)


def _resolve(step: StepDefinition, target: str) -> str:
    """A target as the transcript names it: ``self`` resolved, sub-skill steps prefixed."""
    if target == "self":
        return step.name
    if target.startswith((SUBSKILL_PREFIX, TOPIC_PREFIX)):
        return target
    prefix = step.name.rsplit("/", 1)[0] + "/" if "/" in step.name else ""
    return prefix + target
