"""``act.plan``: a summary and ordered steps the user approves before work starts."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from skillkit_core.hosts import tag_candidates
from skillkit_core.primitives.base import (
    PrimitiveConfig,
    PrimitiveSpec,
    element,
    fail,
    open_tag,
    require_list,
    require_text,
)

WHERE = "act.plan"


@dataclass(frozen=True)
class PlanConfig(PrimitiveConfig):
    """A validated ``plan`` directive."""

    summary: str
    steps: tuple[str, ...]
    kind: ClassVar[str] = "plan"


def create(summary: str, steps: Sequence[str]) -> PlanConfig:
    """Validate author input: a summary and at least one step."""
    text = require_text(WHERE, "summary", summary)
    items = require_list(WHERE, "steps", steps)
    if not items:
        raise fail(WHERE, "a plan needs at least one step")
    return PlanConfig(
        summary=text,
        steps=tuple(require_text(WHERE, f"step {i + 1}", s) for i, s in enumerate(items)),
    )


def render(config: PlanConfig, *, skill_name: str | None = None) -> str:
    """``<plan summary="…">`` with one ``<step>`` per line."""
    lines = [
        open_tag("plan", [("summary", config.summary)]),
        *(element("step", [], step) for step in config.steps),
        "</plan>",
    ]
    return "\n".join(lines)


PRIMITIVE = PrimitiveSpec(
    kind="plan",
    tag="plan",
    tools=tag_candidates("plan"),
    config_type=PlanConfig,
    render=render,
    usage_with_tool=(
        "Put the `summary` and the `<step>` children, in order, into the tool, then wait "
        "for the user to approve or change the plan before acting on it."
    ),
    usage_without_tool=(
        "Show the `summary`, then the `<step>` children as a numbered list, and wait for "
        "the user to approve or change the plan before acting on it."
    ),
)
