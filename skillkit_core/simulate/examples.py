"""Example data from schemas: deterministic, valid values for responses, params and actions.

Values come from polyfactory (a maintained generator that understands pydantic models,
constraints, dataclasses and typed dicts); a type that is not a model is generated as the
field of a one-field wrapper model. The same schema and seed always give the same value,
and every value is validated against its schema before it is returned.

Simulation needs more than one value per step to cover branches: :func:`choice_points`
lists the fields whose values are a small closed set (``Literal``, ``Enum``, ``bool``,
optionally ``None``), and :func:`variants` gives one example per value of each such field.
"""

from __future__ import annotations

import collections.abc
import copy
import dataclasses
import enum
import json
import types
import typing
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from skillkit_core.schema import Schema
from skillkit_core.simulate.errors import ExampleError

# A model validator may reject a random value; a few other seeds usually get past it.
_ATTEMPTS = 8
# Literal types with more values than this are not enumerated (no branch needs them all).
MAX_CHOICES = 24
# Nested models deeper than this are not searched for choice points.
_MAX_DEPTH = 4


def seed_for(*parts: object) -> int:
    """A stable seed from ``parts`` (the same in every process, unlike ``hash``)."""
    return zlib.crc32("\x00".join(str(part) for part in parts).encode("utf-8"))


def as_schema(schema: Schema | Any) -> Schema:
    """Accept a ``Schema`` or anything a ``Schema`` wraps."""
    return schema if isinstance(schema, Schema) else Schema(schema)


def example_value(schema: Schema | Any, *, seed: int = 0, use_defaults: bool = False) -> Any:
    """A valid example of ``schema`` as plain JSON data; the same for the same ``seed``.

    With ``use_defaults`` fields keep their declared defaults (what a caller gets without
    passing them; used for params). Raises ``ExampleError`` when no valid value results.
    """
    wrapped = as_schema(schema)
    model, unwrap = _generator_model(wrapped.source)
    factory = _factory(model, use_defaults, wrapped.name)
    last_error = "no attempt"
    for attempt in range(_ATTEMPTS):
        factory.seed_random(seed + attempt)
        try:
            instance = factory.build()
            data = wrapped.dump(wrapped.validate(_plain(instance, unwrap)))
        except Exception as error:  # polyfactory and validators raise many kinds
            last_error = f"{type(error).__name__}: {error}"
            continue
        try:  # as an agent's answer is read
            wrapped.validate(data, from_agent=True)
        except Exception as error:
            last_error = (
                "its JSON form is not read back as an answer (a serializer that writes "
                "another form than the schema reads?; give the step its answer with "
                f"--responses): {type(error).__name__}: {error}"
            )
            continue
        return data
    raise ExampleError(
        f"could not generate a valid example of {wrapped.name}: {last_error.splitlines()[0]}"
    )


def _plain(instance: Any, unwrap: bool) -> Any:
    value = instance.value if unwrap else instance
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    return value


def _generator_model(source: Any) -> tuple[type, bool]:
    """``(pydantic model to generate, whether the value sits in its 'value' field)``."""
    from pydantic import BaseModel, create_model

    if isinstance(source, type) and issubclass(source, BaseModel):
        return source, False
    try:
        return create_model("Example", value=(source, ...)), True
    except Exception as error:
        raise ExampleError(f"cannot generate examples of {source!r}: {error}") from None


def _factory(model: type, use_defaults: bool, name: str) -> Any:
    try:
        return _base_factory().create_factory(model, __use_defaults__=use_defaults)
    except Exception as error:
        raise ExampleError(f"cannot generate examples of {name}: {error}") from None


_BASE: Any = None


def _base_factory() -> Any:
    """polyfactory's model factory with readable words for free-form strings."""
    global _BASE
    if _BASE is None:
        from polyfactory.factories.pydantic_factory import ModelFactory

        class ExampleFactory(ModelFactory):  # type: ignore[type-arg]
            __is_base_factory__ = True

            @classmethod
            def get_provider_map(cls) -> dict[Any, Any]:
                providers = super().get_provider_map()
                # Two dictionary words read better in a previewed prompt than 20 random
                # letters; constrained strings (patterns, lengths) keep polyfactory's own.
                providers[str] = lambda: " ".join(cls.__faker__.words(2))
                return providers

        _BASE = ExampleFactory
    return _BASE


# -- choice points -------------------------------------------------------------------


@dataclass(frozen=True)
class ChoicePoint:
    """A field whose value is one of a few: each value may send the run another way."""

    path: tuple[str | int, ...]
    """Keys into the JSON data: field names, and ``0`` for a list's first item."""
    values: tuple[Any, ...]
    """JSON values (enum members as their values)."""

    @property
    def label(self) -> str:
        return ".".join(str(part) for part in self.path) or "(value)"


def choice_points(schema: Schema | Any) -> list[ChoicePoint]:
    """Every ``Literal``/``Enum``/``bool`` field of ``schema``, nested models included."""
    return list(_points(as_schema(schema).source, (), 0))


def _points(tp: Any, path: tuple[str | int, ...], depth: int) -> Iterator[ChoicePoint]:
    values = closed_values(tp)
    if values is not None:
        yield ChoicePoint(path, values)
        return
    if depth >= _MAX_DEPTH:
        return
    tp = _strip(tp)
    inner = _optional_of(tp)
    if inner is not None:
        # An optional field that is absent may send the run elsewhere.
        yield ChoicePoint(path, (None,))
        tp = _strip(inner)
    item = _item_type(tp)
    if item is not None:
        # So may an empty list; the example's first item is searched further.
        yield ChoicePoint(path, ([],))
        yield from _points(item, (*path, 0), depth + 1)
        return
    for name, field_type in _fields(tp):
        yield from _points(field_type, (*path, name), depth + 1)


def _optional_of(tp: Any) -> Any:
    """``X`` for ``X | None``; ``None`` for any other type."""
    if typing.get_origin(tp) not in (typing.Union, types.UnionType):
        return None
    args = typing.get_args(tp)
    options = [a for a in args if a is not type(None)]
    return options[0] if len(options) == 1 and len(options) < len(args) else None


def _item_type(tp: Any) -> Any:
    """The item type of ``list[X]``, ``set[X]``, ``tuple[X, ...]`` or ``Sequence[X]``."""
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (list, set, frozenset, collections.abc.Sequence) and len(args) == 1:
        return args[0]
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return args[0]
    return None


def closed_values(tp: Any) -> tuple[Any, ...] | None:
    """The values of a closed type (``Literal``, ``Enum``, ``bool``, ``X | None`` of one),
    as JSON data; ``None`` for any other type."""
    tp = _strip(tp)
    origin = typing.get_origin(tp)
    if origin is typing.Literal:
        values = tuple(_json_value(v) for v in typing.get_args(tp))
    elif tp is bool:
        values = (True, False)
    elif isinstance(tp, type) and issubclass(tp, enum.Enum):
        values = tuple(_json_value(member) for member in tp)
    elif origin in (typing.Union, types.UnionType):
        args = typing.get_args(tp)
        options = [a for a in args if a is not type(None)]
        if len(options) != 1:
            return None
        inner = closed_values(options[0])
        if inner is None:
            return None
        values = (*inner, None) if len(options) < len(args) else inner
    else:
        return None
    return values if 0 < len(values) <= MAX_CHOICES else None


def _strip(tp: Any) -> Any:
    """``Annotated[X, ...]`` → ``X``."""
    while typing.get_origin(tp) is typing.Annotated:
        tp = typing.get_args(tp)[0]
    return tp


def _fields(tp: Any) -> list[tuple[str, Any]]:
    from pydantic import BaseModel

    if not isinstance(tp, type):
        return []
    if issubclass(tp, BaseModel):
        return [(name, info.annotation) for name, info in tp.model_fields.items()]
    if dataclasses.is_dataclass(tp) or typing.is_typeddict(tp):
        try:
            return list(typing.get_type_hints(tp, include_extras=True).items())
        except Exception:  # unresolvable forward references: no choice points there
            return []
    return []


def _json_value(value: Any) -> Any:
    return value.value if isinstance(value, enum.Enum) else value


# -- variants ------------------------------------------------------------------------


@dataclass(frozen=True)
class Example:
    """One example response: its data and what makes it differ from the base example."""

    data: Any
    label: str


def variants(schema: Schema | Any, *, seed: int = 0, base: Any = None) -> list[Example]:
    """The base example first, then one example per value of each choice point.

    Each variant is the base with one field changed; variants that fail validation (a
    model validator may tie fields together) and duplicates are left out.
    """
    wrapped = as_schema(schema)
    if base is None:
        base = example_value(wrapped, seed=seed)
    found = [Example(base, "example")]
    seen = {canonical(base)}
    for point in choice_points(wrapped):
        for value in point.values:
            data = with_value(base, point.path, value)
            if data is None:
                continue
            key = canonical(data)
            if key in seen or not is_valid(wrapped, data):
                continue
            seen.add(key)
            found.append(Example(data, f"{point.label}={json.dumps(value)}"))
    return found


def with_value(data: Any, path: Sequence[str | int], value: Any) -> Any:
    """A copy of ``data`` with ``path`` set to ``value``; ``None`` when the path is absent
    (an optional object or an empty list in the example). Digit strings index lists."""
    if not path:
        return copy.deepcopy(value)
    result = copy.deepcopy(data)
    target = result
    for key in path[:-1]:
        target = _child(target, key)
        if target is None:
            return None
    last = path[-1]
    if isinstance(target, dict):
        target[str(last)] = copy.deepcopy(value)
    elif isinstance(target, list) and _index(last) is not None and _index(last) < len(target):
        target[_index(last)] = copy.deepcopy(value)
    else:
        return None
    return result


def _child(container: Any, key: str | int) -> Any:
    if isinstance(container, dict):
        child = container.get(str(key))
    elif isinstance(container, list) and _index(key) is not None and _index(key) < len(container):
        child = container[_index(key)]
    else:
        return None
    return child if isinstance(child, dict | list) else None


def _index(key: str | int) -> int | None:
    if isinstance(key, int):
        return key
    return int(key) if key.isdigit() else None


def is_valid(schema: Schema, data: Any) -> bool:
    """Whether ``data`` passes ``schema``."""
    try:
        schema.validate(data)
    except Exception:  # pydantic's ValidationError, or a validator's own error
        return False
    return True


def canonical(data: Any) -> str:
    """A stable text form of JSON data, for comparing and de-duplicating values."""
    return json.dumps(data, sort_keys=True, default=str)
