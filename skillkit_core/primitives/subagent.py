"""``act.subagent``: hand a self-contained task to an isolated agent."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from skillkit_core.hosts import tag_candidates
from skillkit_core.primitives.base import (
    PrimitiveConfig,
    PrimitiveSpec,
    element,
    fail,
    require_bool,
    require_text,
)

WHERE = "act.subagent"


@dataclass(frozen=True)
class SubagentConfig(PrimitiveConfig):
    """A validated ``subagent`` directive.

    ``output`` is the schema the subagent's result must satisfy (a pydantic model or
    any type pydantic's ``TypeAdapter`` accepts).
    """

    prompt: str
    output: Any
    allow_recursion: bool = False
    kind: ClassVar[str] = "subagent"

    def output_json_schema(self) -> dict[str, Any]:
        """The JSON Schema of ``output``."""
        from pydantic import TypeAdapter

        return TypeAdapter(self.output).json_schema()


def create(prompt: str, output: Any, *, allow_recursion: bool = False) -> SubagentConfig:
    """Validate author input; ``output`` must be a schema pydantic can use."""
    text = require_text(WHERE, "prompt", prompt)
    if output is None:
        raise fail(WHERE, "output must be a schema (a pydantic model or a type), got None")
    _check_schema(output)
    return SubagentConfig(
        prompt=text,
        output=output,
        allow_recursion=require_bool(WHERE, "allow_recursion", allow_recursion),
    )


def _check_schema(output: Any) -> None:
    # pydantic is only imported when a subagent is defined; the skill module that
    # defines one uses pydantic for its schemas anyway.
    from pydantic import BaseModel, TypeAdapter

    if isinstance(output, type) and issubclass(output, BaseModel):
        return
    try:
        TypeAdapter(output)
    except Exception as exc:  # pydantic raises several kinds for unusable types
        raise fail(WHERE, f"output is not a usable schema ({output!r:.60}): {exc}") from None


def render(config: SubagentConfig, *, skill_name: str | None = None) -> str:
    """``<subagent [no-recurse="skill"]>prompt</subagent>``; the guard names the running
    skill unless recursion is allowed (and is left out when no skill name is known)."""
    guard = None if config.allow_recursion else skill_name
    return element("subagent", [("no-recurse", guard)], config.prompt)


PRIMITIVE = PrimitiveSpec(
    kind="subagent",
    tag="subagent",
    tools=tag_candidates("subagent"),
    config_type=SubagentConfig,
    render=render,
    usage_with_tool=(
        "Start a separate agent with the tool for the enclosed task and return what it "
        "reports. If `no-recurse` names a skill, instruct that agent not to run it."
    ),
    usage_without_tool=(
        "No subagent is available: do the enclosed task yourself as a separate, focused "
        "piece of work and return its result. If `no-recurse` names a skill, do not run it."
    ),
)
