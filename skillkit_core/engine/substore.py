"""Checking partial writes to a sub-store against its schema.

A sub-store fills up across steps, so a single write is usually incomplete: for a model
schema each written field is checked on its own; other schemas check the written value.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from skillkit_core.errors import SkillRuntimeError
from skillkit_core.schema import Schema, format_validation_error


@lru_cache(maxsize=512)
def _field_adapter(model: type, field: str) -> Any:
    from pydantic import TypeAdapter

    info = model.model_fields[field]  # type: ignore[attr-defined]
    return TypeAdapter(info.annotation)


def check_write(schema: Schema, name: str, data: Mapping[str, Any], at: str) -> dict[str, Any]:
    """Validated plain JSON data for one write, or a ``SkillRuntimeError`` naming the field."""
    from pydantic import BaseModel, ValidationError

    model = schema.source
    try:
        if isinstance(model, type) and issubclass(model, BaseModel):
            checked = {}
            for key, value in data.items():
                if key not in model.model_fields:
                    fields = ", ".join(model.model_fields)
                    raise SkillRuntimeError(
                        f"{at}save() wrote field '{key}' to sub-store '{name}', which has no "
                        f"such field (fields: {fields})"
                    )
                adapter = _field_adapter(model, key)
                checked[key] = adapter.dump_python(adapter.validate_python(value), mode="json")
            return checked
        return schema.dump(schema.validate(dict(data)))
    except ValidationError as error:
        raise SkillRuntimeError(
            f"{at}save() wrote invalid data to sub-store '{name}': {format_validation_error(error)}"
        ) from None
