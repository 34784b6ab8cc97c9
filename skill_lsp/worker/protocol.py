"""The worker's wire format: one JSON object per line each way.

Requests are ``{"id": N, "op": NAME, ...arguments}``; answers are ``{"id": N, "ok": true,
"result": ...}`` or ``{"id": N, "ok": false, "error": MESSAGE}``. The worker's first line
is ``{"ready": true, "pid": PID}`` once its imports are done. Every request carries
``memory_limit`` (MiB, 0 for none); an answer with ``"ending": true`` is the worker's
last (it left too many threads running, or uses more memory than that).
"""

from __future__ import annotations

import json
from typing import Any

OP_ANALYZE = "analyze"
OP_SIMULATE = "simulate"
OP_PREVIEW = "preview"
OP_RENDER = "render"
OP_PING = "ping"
MEMORY_LIMIT = "memory_limit"


_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=str)
"""Made before the worker imports a skill module, which may rebind ``json.dumps`` (to
indent: a message over several lines is no message)."""


def encode(message: dict[str, Any]) -> bytes:
    """One line of compact JSON (non-ASCII kept as is, lone surrogates escaped)."""
    text = _ENCODER.encode(message)
    return text.encode("utf-8", "backslashreplace") + b"\n"


def decode(line: bytes) -> dict[str, Any]:
    """The object on one line; raises ValueError for anything else."""
    value = json.loads(line.decode("utf-8", "replace"))
    if not isinstance(value, dict):
        raise ValueError("a worker message must be a JSON object")
    return value
