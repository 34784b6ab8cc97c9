"""``act.confirm``: a yes/no approval, optionally flagged as destructive."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from skillkit_core.hosts import tag_candidates
from skillkit_core.primitives.base import (
    PrimitiveConfig,
    PrimitiveSpec,
    element,
    require_bool,
    require_choice,
    require_text,
)

WHERE = "act.confirm"


@dataclass(frozen=True)
class ConfirmConfig(PrimitiveConfig):
    """A validated ``confirm`` directive."""

    message: str
    destructive: bool = False
    default_answer: Literal["yes", "no"] = "no"
    kind: ClassVar[str] = "confirm"


def create(message: str, *, destructive: bool = False, default_answer: str = "no") -> ConfirmConfig:
    """Validate author input."""
    return ConfirmConfig(
        message=require_text(WHERE, "message", message),
        destructive=require_bool(WHERE, "destructive", destructive),
        default_answer=require_choice(WHERE, "default_answer", default_answer, ("yes", "no")),  # type: ignore[arg-type]
    )


def render(config: ConfirmConfig, *, skill_name: str | None = None) -> str:
    """``<confirm default="…" [destructive="true"]>message</confirm>``."""
    attrs = [
        ("default", config.default_answer),
        ("destructive", "true" if config.destructive else None),
    ]
    return element("confirm", attrs, config.message)


PRIMITIVE = PrimitiveSpec(
    kind="confirm",
    tag="confirm",
    tools=tag_candidates("confirm"),
    config_type=ConfirmConfig,
    render=render,
    usage_with_tool=(
        "Get a yes or no through the tool; if the answer is unclear, take the `default`. "
        'With `destructive="true"`, first say plainly what will be lost or changed.'
    ),
    usage_without_tool=(
        "Ask a yes/no question in chat, marking the `default` (`[y/N]` or `[Y/n]`). "
        'With `destructive="true"`, first say plainly what will be lost or changed.'
    ),
)
