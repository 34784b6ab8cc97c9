"""Reading rows and items that may be mappings, pydantic models, dataclasses or
read-only step results."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from skillkit_core.errors import SkillDefinitionError


def as_mapping(row: Any, where: str) -> Mapping[str, Any]:
    """``row`` as a mapping of field name to value."""
    if isinstance(row, Mapping):
        return row
    dump = getattr(row, "model_dump", None)
    if callable(dump):
        return dump()
    if dataclasses.is_dataclass(row) and not isinstance(row, type):
        return {f.name: getattr(row, f.name) for f in dataclasses.fields(row)}
    keys = getattr(row, "keys", None)
    if callable(keys):
        return {key: row[key] for key in keys()}
    raise SkillDefinitionError(
        f"{where}: expected a dict-like row, got {type(row).__name__} ({row!r:.60})"
    )


def cell_text(value: Any) -> str:
    """A value as short display text (None is empty, booleans lower-case, lists joined)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple | set | frozenset):
        return ", ".join(cell_text(item) for item in value)
    return str(value)
