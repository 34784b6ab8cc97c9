"""``act.checklist``: a task list the agent tracks while it works."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from skillkit_core.hosts import tag_candidates
from skillkit_core.primitives.base import (
    PrimitiveConfig,
    PrimitiveSpec,
    element,
    fail,
    fields_of,
    require_choice,
    require_list,
    require_text,
)

WHERE = "act.checklist"
STATUSES = ("pending", "in_progress", "completed")


@dataclass(frozen=True)
class ChecklistItem:
    """One task: its title and status (pending, in_progress or completed)."""

    title: str
    status: Literal["pending", "in_progress", "completed"] = "pending"


@dataclass(frozen=True)
class ChecklistConfig(PrimitiveConfig):
    """A validated ``checklist`` directive."""

    create: tuple[ChecklistItem, ...]
    kind: ClassVar[str] = "checklist"


def _parse_item(where: str, item: Any) -> ChecklistItem:
    raw = fields_of(where, item, ChecklistItem, ("title",), ("status",))
    status = raw["status"] if raw["status"] is not None else "pending"
    return ChecklistItem(
        title=require_text(where, "title", raw["title"]),
        status=require_choice(where, "status", status, STATUSES),  # type: ignore[arg-type]
    )


def create(create: Sequence[Any]) -> ChecklistConfig:
    """Validate author input: at least one item (``status`` defaults to pending)."""
    items = require_list(WHERE, "create", create)
    if not items:
        raise fail(WHERE, "a checklist needs at least one item")
    return ChecklistConfig(
        create=tuple(_parse_item(f"{WHERE}, item {i + 1}", it) for i, it in enumerate(items))
    )


def render(config: ChecklistConfig, *, skill_name: str | None = None) -> str:
    """``<checklist>`` with one ``<item status="…">`` per line."""
    lines = [
        "<checklist>",
        *(element("item", [("status", item.status)], item.title) for item in config.create),
        "</checklist>",
    ]
    return "\n".join(lines)


PRIMITIVE = PrimitiveSpec(
    kind="checklist",
    tag="checklist",
    tools=tag_candidates("checklist"),
    config_type=ChecklistConfig,
    render=render,
    usage_with_tool=(
        "Record every `<item>` with the tool, keeping its `status`, and update each one "
        "as soon as it is done."
    ),
    usage_without_tool=(
        "Write the `<item>` children as a markdown checklist (`- [ ]` open, `- [x]` done) "
        "and post it again with boxes ticked as the work progresses."
    ),
)
