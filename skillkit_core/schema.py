"""Schemas: a pydantic model class or any type pydantic's ``TypeAdapter`` accepts.

A ``Schema`` wraps the author's type and builds its ``TypeAdapter`` on first use, so that
defining a skill stays cheap (the built ``scripts/run`` imports the skill on every call).
"""

from __future__ import annotations

import types
import typing
from typing import Any

from skillkit_core.errors import SkillDefinitionError


def is_schema_like(value: object) -> bool:
    """True for anything that plausibly names a type: classes and typing constructs."""
    if isinstance(value, type):
        return True
    if value is Any or isinstance(value, types.UnionType | typing.TypeVar):
        return True
    return typing.get_origin(value) is not None


class Schema:
    """A validated, JSON-Schema-producing view of an author-supplied type."""

    __slots__ = ("_adapter", "_json_schema", "source")

    def __init__(self, source: Any) -> None:
        self.source = source
        self._adapter: Any = None
        self._json_schema: dict[str, Any] | None = None

    @classmethod
    def of(cls, source: Any, *, what: str) -> Schema | None:
        """Wrap ``source`` (``None`` stays ``None``); ``what`` names the field for errors."""
        if source is None:
            return None
        if isinstance(source, Schema):
            return source
        if not is_schema_like(source):
            raise SkillDefinitionError(
                f"{what} must be a pydantic model class or a type such as dict[str, int]; "
                f"got {source!r} ({type(source).__name__})"
            )
        return cls(source)

    @property
    def adapter(self) -> Any:
        if self._adapter is None:
            from pydantic import TypeAdapter

            self._adapter = TypeAdapter(self.source)
        return self._adapter

    def validate(self, data: Any) -> Any:
        """Validate plain data; raises ``pydantic.ValidationError`` on failure."""
        return self.adapter.validate_python(data)

    def dump(self, value: Any) -> Any:
        """Turn a validated value back into plain JSON data."""
        return self.adapter.dump_python(value, mode="json")

    def json_schema(self) -> dict[str, Any]:
        """The JSON Schema sent to the agent (cached)."""
        if self._json_schema is None:
            self._json_schema = self.adapter.json_schema()
        return self._json_schema

    @property
    def name(self) -> str:
        return getattr(self.source, "__name__", None) or repr(self.source)

    def __repr__(self) -> str:
        return f"Schema({self.name})"


def format_validation_error(error: Any) -> str:
    """One line per problem, each with its field path (pydantic's message kept)."""
    lines = []
    for item in error.errors(include_url=False):
        loc = ".".join(str(part) for part in item.get("loc", ())) or "(root)"
        lines.append(f"{loc}: {item.get('msg', 'invalid')}")
    return "; ".join(lines) if lines else str(error)
