"""The list of primitives, rendering by kind, and tool resolution per handshake."""

from __future__ import annotations

from skillkit_core.errors import SkillDefinitionError
from skillkit_core.hosts import Handshake, choose_tool, host_info
from skillkit_core.primitives import ask_user, checklist, confirm, plan, subagent, survey
from skillkit_core.primitives.base import PrimitiveConfig, PrimitiveSpec

# Order matters: it is the order of the primitive rows in the preamble table.
PRIMITIVES: tuple[PrimitiveSpec, ...] = (
    ask_user.PRIMITIVE,
    confirm.PRIMITIVE,
    plan.PRIMITIVE,
    checklist.PRIMITIVE,
    subagent.PRIMITIVE,
    survey.PRIMITIVE,
)

BY_KIND: dict[str, PrimitiveSpec] = {spec.kind: spec for spec in PRIMITIVES}
BY_TAG: dict[str, PrimitiveSpec] = {spec.tag: spec for spec in PRIMITIVES}

# Every tool name some primitive may resolve to (each host's tools for each tag, with
# their older names).
PRIMITIVE_TOOL_NAMES: frozenset[str] = frozenset(t for spec in PRIMITIVES for t in spec.tools)


def primitive_for(config: object) -> PrimitiveSpec:
    """The registry entry for a primitive config (or an ``ActSegment`` holding one)."""
    config = getattr(config, "primitive", config)
    spec = BY_KIND.get(getattr(config, "kind", None) or "")
    if spec is None or not isinstance(config, spec.config_type):
        raise SkillDefinitionError(
            f"not a primitive config: {type(config).__name__} "
            f"(expected the result of act.{'/'.join(BY_KIND)})"
        )
    return spec


def render_primitive(config: PrimitiveConfig | object, *, skill_name: str | None = None) -> str:
    """Render a primitive config (or an ``ActSegment``) to its XML tag."""
    spec = primitive_for(config)
    return spec.render(getattr(config, "primitive", config), skill_name=skill_name)


def tools_in_scope(handshake: Handshake) -> tuple[str, ...]:
    """The tools the agent is taken to have, by the three-way rule.

    1. no tools reported: the host's registry inventory;
    2. tools reported by a subagent: exactly those (a subagent really has a subset);
    3. tools reported otherwise: those plus the registry inventory (top-level agents
       tend to under-report).
    """
    reported = tuple(handshake.tools_available or ())
    if not reported:
        return host_info(handshake.host).tools
    if handshake.is_subagent:
        return reported
    registry = host_info(handshake.host).tools
    return reported + tuple(tool for tool in registry if tool not in reported)


def resolve_choices(handshake: Handshake) -> dict[str, tuple[str | None, str | None]]:
    """Map each primitive tag to ``(tool, note)``: the tool to use (None: plain
    conversation) and the host's note about it, by the rules of
    :func:`skillkit_core.hosts.choose_tool`."""
    return {spec.tag: choose_tool(handshake, spec.tag) for spec in PRIMITIVES}


def resolve_tools(handshake: Handshake) -> dict[str, str | None]:
    """Map each primitive tag (``"ask-user"``, ...) to the tool to use, or None."""
    return {tag: tool for tag, (tool, _note) in resolve_choices(handshake).items()}
