"""The server's settings: what the client sent at start, then ``workspace/configuration``.

Settings live under the ``skillkit`` section. Clients send them nested
(``{"lint": {"select": [...]}}``) or with dotted keys (``{"lint.select": [...]}``); both
are read. Bad values are ignored one by one (the default stays), never fatal: a typo in
a settings file must not stop the server.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

DEFAULT_HOST = "claude-code"
DEFAULT_WORKER_TIMEOUT = 10.0
#: MiB of resident memory above which the worker is replaced after its answer.
DEFAULT_WORKER_MEMORY_LIMIT = 1024
Trace = Literal["off", "messages", "verbose"]
_TRACES = ("off", "messages", "verbose")


@dataclass(frozen=True)
class Settings:
    """Every setting the server honours.

    ``execute_code`` is the user's switch; ``workspace_trusted`` is what the client said
    about the workspace (in ``initializationOptions``). Author code runs only when both
    are true (:attr:`semantic_enabled`). A client that says nothing about trust gets an
    untrusted workspace: a file nobody opened must not run because an editor forgot.
    """

    host: str = DEFAULT_HOST
    tools: tuple[str, ...] = ()
    execute_code: bool = True
    workspace_trusted: bool = False
    lint_select: tuple[str, ...] = ()
    lint_ignore: tuple[str, ...] = ()
    trace: Trace = "off"
    worker_timeout: float = DEFAULT_WORKER_TIMEOUT
    worker_memory_limit: int = DEFAULT_WORKER_MEMORY_LIMIT
    ignored: tuple[str, ...] = field(default=(), compare=False)

    @property
    def semantic_enabled(self) -> bool:
        """True when the server may execute the author's modules."""
        return self.execute_code and self.workspace_trusted

    def with_host(self, host: str) -> Settings:
        """These settings with another preview host."""
        return replace(self, host=host)


def _flatten(values: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in values.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            flat.update(_flatten(value, f"{name}."))
        else:
            flat[name] = value
    return flat


def _strings(value: Any) -> tuple[str, ...] | None:
    if isinstance(value, str):
        value = [part for part in value.replace(",", " ").split() if part]
    if isinstance(value, list | tuple) and all(isinstance(item, str) for item in value):
        return tuple(item.strip() for item in value if item.strip())
    return None


def _host(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _boolean(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def _trace(value: Any) -> str | None:
    return value if value in _TRACES else None


def _timeout(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if 0.1 <= value <= 600 else None


def _memory_limit(value: Any) -> int | None:
    """MiB, or 0 for no limit (below 64 MiB no worker could even start)."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return int(value) if value == 0 or 64 <= value <= 1 << 20 else None


# setting key -> (Settings field, reader returning None for a bad value)
_READERS: dict[str, tuple[str, Any]] = {
    "host": ("host", _host),
    "tools": ("tools", _strings),
    "executeCode": ("execute_code", _boolean),
    "workspaceTrusted": ("workspace_trusted", _boolean),
    "lint.select": ("lint_select", _strings),
    "lint.ignore": ("lint_ignore", _strings),
    "trace.server": ("trace", _trace),
    "worker.timeout": ("worker_timeout", _timeout),
    "worker.memoryLimit": ("worker_memory_limit", _memory_limit),
}

#: Every setting the server reads, dotted (what clients must be able to send).
SETTING_KEYS: tuple[str, ...] = tuple(_READERS)


def merge_settings(base: Settings, values: Any, *, from_client: bool = False) -> Settings:
    """``base`` updated with the recognised, well-formed entries of ``values``.

    ``values`` is the ``skillkit`` section, or an object holding it under ``skillkit``.
    Unknown keys are left alone; malformed values are listed in ``ignored``. Only the
    client itself (``from_client``: its ``initializationOptions``) may say whether the
    workspace is trusted: a settings file inside the workspace could claim anything.
    """
    if not isinstance(values, Mapping):
        return base
    if isinstance(values.get("skillkit"), Mapping):
        values = values["skillkit"]
    flat = _flatten(values)
    changes: dict[str, Any] = {}
    ignored: list[str] = []
    for key, value in flat.items():
        reader = _READERS.get(key)
        if reader is None or value is None:
            continue
        if key == "workspaceTrusted" and not from_client:
            continue
        name, read = reader
        parsed = read(value)
        if parsed is None:
            ignored.append(key)
        else:
            changes[name] = parsed
    return replace(base, **changes, ignored=tuple(ignored))
