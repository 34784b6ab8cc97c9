"""Known agent hosts and their tool inventories, and the handshake a run starts with."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Handshake:
    """What the calling agent told us about itself.

    ``host`` is a host id from the registry (unknown ids are treated as ``generic``),
    ``tools_available`` the tools the agent reported, ``is_subagent`` whether the caller
    is a subagent whose reported tools are authoritative.
    """

    host: str = "generic"
    tools_available: tuple[str, ...] = field(default_factory=tuple)
    is_subagent: bool = False
