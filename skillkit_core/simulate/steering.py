"""Steering a simulation: ``choose`` (a field value or the next step, per step) and
``path`` (the steps to follow in order)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from skillkit_core.composite import split_step
from skillkit_core.definitions import SUBSKILL_PREFIX, TOPIC_PREFIX, SkillDefinition, StepDefinition
from skillkit_core.simulate.errors import SimulationError
from skillkit_core.simulate.examples import choice_points


@dataclass
class StepSteering:
    """What ``choose`` says about one step."""

    fields: dict[tuple[str, ...], Any] = field(default_factory=dict)
    """Field path → value to put into the generated response."""
    target: str | None = None
    """The step (or ``subskill:X``/``topic:X``) the response must lead to."""
    described: list[str] = field(default_factory=list)
    """The ``choose`` entries as given, for labels."""


def resolve_choices(
    definition: SkillDefinition,
    steps: Mapping[str, StepDefinition],
    choose: Mapping[str, Any],
) -> dict[str, StepSteering]:
    """Read ``choose`` (``step`` or ``step.field`` → value) against the skill.

    For ``step=value`` the value names a value of exactly one closed field of the step's
    response (``Literal``/``Enum``/``bool``), or else a step or route to go to next.
    """
    steering: dict[str, StepSteering] = {}
    for key, value in choose.items():
        step, field_path = _split_key(key, steps)
        steer = steering.setdefault(step, StepSteering())
        steer.described.append(f"{key}={json.dumps(value, default=str)}")
        if field_path:
            steer.fields[field_path] = value
            continue
        schema = steps[step].response
        points = [p for p in choice_points(schema) if value in p.values] if schema else []
        targets = steerable_targets(definition, step)
        if len(points) == 1:
            steer.fields[tuple(str(part) for part in points[0].path)] = value
        elif len(points) > 1:
            fields = ", ".join(f"{step}.{p.label}" for p in points)
            raise SimulationError(
                f"choose {key}={value!r}: several fields take that value ({fields}); "
                "name one as step.field=value"
            )
        elif isinstance(value, str) and value in targets:
            steer.target = value
        else:
            raise SimulationError(_no_such_choice(step, key, value, schema, targets))
    return steering


def _split_key(key: str, steps: Mapping[str, StepDefinition]) -> tuple[str, tuple[str, ...]]:
    if key in steps:
        return key, ()
    for name in sorted(steps, key=len, reverse=True):
        if key.startswith(name + "."):
            return name, tuple(key[len(name) + 1 :].split("."))
    raise SimulationError(f"choose names unknown step {key!r} (steps: {', '.join(steps)})")


def steerable_targets(definition: SkillDefinition, step: str) -> set[str]:
    """The names ``choose`` may steer ``step`` towards: steps of the same skill (prefixed
    for a sub-skill's), and a dispatcher's ``subskill:X``/``topic:X`` routes."""
    sub, _ = split_step(step)
    if sub is None:
        found = set(definition.steps)
        found |= {f"{SUBSKILL_PREFIX}{s.name}" for s in definition.subskills}
        found |= {f"{TOPIC_PREFIX}{t.name}" for t in definition.topics}
        return found
    registration = definition.subskill(sub)
    return {f"{sub}/{name}" for name in registration.definition.steps} if registration else set()


def _no_such_choice(step: str, key: str, value: Any, schema: Any, targets: set[str]) -> str:
    points = choice_points(schema) if schema else []
    fields = "; ".join(f"{p.label}: {', '.join(json.dumps(v) for v in p.values)}" for p in points)
    return (
        f"choose {key}={value!r}: no field of step '{step}' takes that value and no step or "
        f"route has that name (closed fields: {fields or 'none'}; steps and routes: "
        f"{', '.join(sorted(targets))})"
    )


@dataclass(frozen=True)
class PathGuide:
    """Follows a given path; prompt-less steps may be left out of it."""

    path: tuple[str, ...]
    prompt_less: frozenset[str]

    def consumed(self, actual: Sequence[str]) -> int | None:
        """How much of the path ``actual`` has followed; ``None`` when it strayed."""
        index = 0
        for name in actual:
            if index < len(self.path) and name == self.path[index]:
                index += 1
            elif index < len(self.path) and name not in self.prompt_less:
                return None
        return index

    def pending(self, actual: Sequence[str]) -> bool:
        """Whether ``actual`` has yet to reach the end of the path."""
        count = self.consumed(actual)
        return count is not None and count < len(self.path)

    def allows(self, actual: Sequence[str], finished: bool) -> bool:
        """Whether a run at ``actual`` stays on the path (and, if it ``finished``, has
        followed all of it)."""
        count = self.consumed(actual)
        return count is not None and (not finished or count == len(self.path))
