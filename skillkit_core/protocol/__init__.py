"""The agent protocol: ``scripts/run`` (stateless and session modes) and MCP.

``main(definition, argv) -> exit code`` serves one call; ``run_entry(entry, argv)`` loads
``file.py[:attr]`` first (``skillkit run`` and ``python -m skillkit_core.protocol``).
"""

from __future__ import annotations

__all__ = ["main", "run_entry"]

# No typing import: a call served from build-time data (precomputed_start) imports this
# package and little else.
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

    from skillkit_core.protocol.runner import main, run_entry


def __getattr__(name: str) -> Any:
    if name in __all__:
        from skillkit_core.protocol import runner as module

        return getattr(module, name)
    raise AttributeError(f"module 'skillkit_core.protocol' has no attribute {name!r}")
