"""JSON for tools: the ``to_data()`` of a preview, simulation report or tier view."""

from __future__ import annotations

import json
from typing import Any, Protocol


class HasData(Protocol):
    def to_data(self) -> dict[str, Any]: ...


def to_json(value: HasData) -> str:
    """Pretty-printed JSON (UTF-8 kept as is), newline-terminated."""
    # The encoder, not json.dumps, which the skill's module may have rebound.
    encoder = json.JSONEncoder(indent=2, ensure_ascii=False, default=str)
    return encoder.encode(value.to_data()) + "\n"
