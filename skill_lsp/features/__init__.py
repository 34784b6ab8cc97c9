"""One module per capability; :func:`register_all` wires them into a server.

Each module has ``register(server)``, which declares its LSP methods with
``@server.feature`` (or commands with ``@server.command``). Features read frozen document
snapshots from ``server.documents`` and never change shared state except through the
server's documents, settings, semantic layer and diagnostics hub.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

FEATURES = (
    "lifecycle",
    "documents",
    "diagnostics",
    "completion",
    "hover",
    "navigation",
    "document_links",
    "symbols",
    "folding",
    "code_lens",
    "code_actions",
    "commands",
)


def register_all(server: Any) -> None:
    """Register every feature module's handlers on ``server``."""
    for name in FEATURES:
        import_module(f"skill_lsp.features.{name}").register(server)
