"""Schemas: a pydantic model class or any type pydantic's ``TypeAdapter`` accepts.

A ``Schema`` wraps the author's type and builds its ``TypeAdapter`` on first use, so that
defining a skill stays cheap (the built ``scripts/run`` imports the skill on every call).
"""

from __future__ import annotations

import re
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

    __slots__ = (
        "_adapter",
        "_closed",
        "_dump_replays",
        "_json_schema",
        "_kind_checker",
        "_problem",
        "source",
    )

    def __init__(self, source: Any) -> None:
        self.source = source
        self._adapter: Any = None
        self._kind_checker: Any = None
        self._closed: bool | None = None
        self._json_schema: dict[str, Any] | None = None
        self._problem: str | None = None
        self._dump_replays: bool | None = None

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

    def problem(self) -> str | None:
        """Why pydantic cannot make a schema of the type (None when it can); cached.

        Plain builtin types and complete pydantic models are known good without asking
        pydantic, so checking a skill's schemas at ``.build()`` stays cheap.
        """
        if self._adapter is not None or _known_good(self.source):
            return None
        if self._problem is None:
            try:
                self.adapter  # noqa: B018 - builds (and keeps) the TypeAdapter
            except Exception as error:  # pydantic raises several kinds; each is the author's
                lines = str(error).strip().splitlines()
                first = lines[0].strip('"') if lines else repr(error)
                self._problem = f"{type(error).__name__}: {first}"
                return self._problem
            return None
        return self._problem

    def validate(self, data: Any, *, from_agent: bool = False) -> Any:
        """Validate plain data; raises ``pydantic.ValidationError`` on failure.

        ``from_agent`` is for what an agent sends (responses and params), which must fit
        the JSON Schema it was given: a key the schema does not declare is an error instead
        of being dropped silently (see :meth:`closed`), and values are taken as JSON in
        pydantic's strict mode, so ``"yes"`` or ``1`` is no boolean and ``"3"`` no integer
        (lax mode would turn them into ones; zod, behind the TypeScript SDK, refuses them
        too). Data that is not plain JSON (Python objects a test passes) is validated as
        Python.
        """
        if not from_agent:
            return self.adapter.validate_python(data)
        return self.validate_answer(data)[0]

    def validate_answer(self, data: Any) -> tuple[Any, Any]:
        """Validate what an agent sent (as ``validate(data, from_agent=True)``):
        ``(value, answer)``, where ``answer`` is the JSON data that was accepted (a whole
        number an integer field took written as an integer), which validates again to the
        same value: what a stateless agent passes back as history. ``answer`` is ``None``
        for data that is not plain JSON."""
        extra = "forbid" if self.closed() else None
        text = _as_json(data)
        if text is None:
            return self.adapter.validate_python(data, extra=extra), None
        from pydantic import ValidationError

        try:
            value = self.adapter.validate_json(text, strict=True, extra=extra)
        except ValidationError as error:
            # JSON Schema counts 3.0 as an integer (JavaScript cannot tell them apart):
            # only a whole number an error is about is read as an integer, so 1.0 stays a
            # float elsewhere.
            fixed = _whole_numbers_at(data, error.errors(include_url=False))
            whole = _as_json(fixed)
            if whole is None or whole == text:
                raise
            try:
                value = self.adapter.validate_json(whole, strict=True, extra=extra)
            except ValidationError:
                pass
            else:
                self._check_kinds(whole, data, extra)
                self._check_finite(whole, value)
                return value, fixed
            raise  # the error of what the agent wrote
        self._check_kinds(text, data, extra)
        self._check_finite(text, value)
        return value, data

    def _check_finite(self, text: str, value: Any) -> None:
        """Refuse an integer too large for the float field that took it: pydantic makes it
        an infinity, which no JSON can hold (a reply would print ``Infinity``). Only an
        answer with a number of 309 digits or more can be one, so others are not dumped."""
        if not _LONG_NUMBER.search(text):
            return
        found = non_finite_at(self.adapter.dump_python(value, mode="json", by_alias=True))
        if found is not None:
            raise _not_finite(found)

    def _check_kinds(self, text: str, data: Any, extra: str | None) -> None:
        """Refuse a boolean given for a literal or enum of numbers, or a number for one of
        booleans, which pydantic takes (:func:`~skillkit_core.schema_core.json_kind_checker`)."""
        if self._kind_checker is None:
            from skillkit_core.schema_core import json_kind_checker

            self._kind_checker = json_kind_checker(self.adapter.core_schema) or False
        if self._kind_checker is False:
            return
        from skillkit_core.schema_core import kind_errors

        errors = kind_errors(self._kind_checker, text, data, extra)
        if errors:
            from pydantic_core import PydanticCustomError, ValidationError

            details = [
                {
                    "type": PydanticCustomError("literal_error", error["msg"]),
                    "loc": error["loc"],
                    "input": error["input"],
                }
                for error in errors
            ]
            raise ValidationError.from_exception_data(self.name, details)

    def closed(self) -> bool:
        """True when an agent's answer may hold no key the schema does not declare: no
        model, TypedDict or dataclass in the type lets undeclared keys in by its own
        ``extra`` policy (``ConfigDict(extra="allow")`` or ``"ignore"``) or by a
        ``json_schema_extra`` saying ``additionalProperties``. pydantic refuses undeclared
        keys in the whole answer or nowhere, so one such policy leaves every part to its
        own (by default, undeclared keys are dropped); the JSON Schema says which
        (cached)."""
        if self._closed is None:
            from skillkit_core.schema_core import agent_json_schema, lets_extra_keys_in

            core_schema = self.adapter.core_schema
            opened = lets_extra_keys_in(core_schema)
            if opened is None:  # only the JSON Schema can tell
                try:
                    schema, opened = agent_json_schema(core_schema, closed=True)
                except Exception:  # a type without one (InstanceOf): keys stay refused
                    opened = False
                else:
                    if not opened:
                        self._json_schema = schema
            self._closed = not opened
        return self._closed

    def dump(self, value: Any) -> Any:
        """Turn a validated value back into plain JSON data."""
        return self.adapter.dump_python(value, mode="json")

    def dump_replays(self) -> bool:
        """Whether :meth:`dump` of a value validates back to that value as an agent's
        answer (:func:`~skillkit_core.schema_core.dump_replays`; cached)."""
        if self._dump_replays is None:
            from skillkit_core.schema_core import dump_replays

            self._dump_replays = dump_replays(self.adapter.core_schema)
        return self._dump_replays

    def json_schema(self) -> dict[str, Any]:
        """The JSON Schema sent to the agent (cached): when the schema is :meth:`closed`,
        each object a model, TypedDict or dataclass describes says
        ``"additionalProperties": false``, as validation holds it to."""
        if self._json_schema is None:
            from skillkit_core.schema_core import agent_json_schema

            closed = self.closed()
            self._json_schema, _ = agent_json_schema(self.adapter.core_schema, closed=closed)
        return self._json_schema

    @property
    def name(self) -> str:
        return getattr(self.source, "__name__", None) or repr(self.source)

    def __repr__(self) -> str:
        return f"Schema({self.name})"


_PLAIN_TYPES: frozenset[Any] = frozenset(
    {str, int, float, bool, bytes, dict, list, tuple, set, frozenset, type(None), None, Any}
)
_PLAIN_ORIGINS: frozenset[Any] = frozenset(
    {dict, list, tuple, set, frozenset, typing.Union, types.UnionType}
)


def _known_good(source: Any) -> bool:
    """True when pydantic surely makes a schema of ``source`` (without importing it)."""
    try:
        if source in _PLAIN_TYPES:
            return True
    except TypeError:  # an unhashable typing construct: ask pydantic
        return False
    if isinstance(source, type):
        # A pydantic model's schema is built (or refused) when its class is defined.
        return getattr(source, "__pydantic_complete__", False) is True
    origin = typing.get_origin(source)
    if origin is typing.Literal:
        return True
    if origin in _PLAIN_ORIGINS:
        return all(arg is Ellipsis or _known_good(arg) for arg in typing.get_args(source))
    return False


# pydantic's error types for a key the schema does not declare (models, dataclasses).
_EXTRA_KEY_ERRORS = frozenset({"extra_forbidden", "unexpected_keyword_argument"})


def format_validation_error(error: Any, data: Any = None) -> str:
    """One line per problem, each with its field path (pydantic's message kept). With the
    ``data`` that was validated, a path names only keys and indexes of it: pydantic's
    union member tags (``pet.cat.meows``, ``v.int``) say which member a problem is of
    instead, as ``pet.meows (as cat)``."""
    from skillkit_core.schema_core import answer_path

    lines = []
    for item in error.errors(include_url=False):
        loc = tuple(item.get("loc", ()))
        members: list[str] = []
        if data is not None:
            loc, members, key = answer_path(loc, data, missing=item.get("type") == "missing")
        else:
            key = bool(loc) and loc[-1] == "[key]"
            loc = loc[:-1] if key else loc
        where = ".".join(str(part) for part in loc) or "(root)"
        where += " (the key)" if key else ""
        shown = [member for member in members if _plain_tag(member)]
        if shown:
            where += f" (as {' / '.join(shown)})"
        if item.get("type") in _EXTRA_KEY_ERRORS:
            # Of one member of a union, the key may be another member's: no advice.
            advice = f"not a field of {shown[-1]}" if shown else "not a field of the schema"
            lines.append(f"{where}: {advice}{'' if shown else '; leave it out'}")
            continue
        lines.append(f"{where}: {item.get('msg', 'invalid')}")
    return "; ".join(lines) if lines else str(error)


def _plain_tag(member: str) -> bool:
    """A member tag worth showing: a name or a tag value, not pydantic's description of a
    validator (``function-after[...]``)."""
    return bool(member) and "[" not in member and len(member) <= 40


def _as_json(data: Any) -> str | None:
    """``data`` as JSON text, ``None`` when it holds more than JSON values. A NaN or an
    infinity (which Python's JSON parser reads, as the MCP transport's does, and no JSON
    can hold) is a validation error where it is."""
    import json

    try:
        return json.dumps(data, allow_nan=False)
    except (TypeError, RecursionError):
        return None
    except ValueError:  # "Out of range float values", or a reference cycle
        found = non_finite_at(data)
        if found is None:
            return None
    raise _not_finite(found)


# A run of digits only a number beyond ±1.8e308 (or a long string) has.
_LONG_NUMBER = re.compile(r"\d{309}")


def _not_finite(found: tuple[tuple[Any, ...], float]) -> Exception:
    """The validation error for the NaN or infinity ``found`` (path, number)."""
    from pydantic_core import PydanticCustomError, ValidationError

    message = "a number that JSON cannot hold (NaN, or beyond ±1.8e308)"
    path, number = found
    details = [
        {"type": PydanticCustomError("finite_number", message), "loc": path, "input": number}
    ]
    return ValidationError.from_exception_data("answer", details)


def non_finite_at(data: Any) -> tuple[tuple[Any, ...], float] | None:
    """The first NaN or infinity in plain data (dicts, lists, tuples) and where it is, or
    ``None`` (also for data that holds itself)."""
    try:
        return _non_finite_at(data, ())
    except RecursionError:
        return None


def _non_finite_at(data: Any, path: tuple[Any, ...]) -> tuple[tuple[Any, ...], float] | None:
    if isinstance(data, float):
        return (path, data) if data - data != 0.0 else None
    if isinstance(data, dict):
        items: Any = data.items()
    elif isinstance(data, list | tuple):
        items = enumerate(data)
    else:
        return None
    for key, value in items:
        found = _non_finite_at(value, (*path, key))
        if found is not None:
            return found
    return None


_EXACT = 2**53
"""Up to here every whole float is the integer its JSON text wrote; beyond, ``1e300``
would become a different integer (the float's binary value), so it stays a float and
is refused where an integer is expected."""


def _whole_numbers_at(data: Any, errors: list[dict[str, Any]]) -> Any:
    """``data`` with each number with a zero fraction that one of ``errors`` is about
    made an integer."""
    from skillkit_core.schema_core import data_path

    for error in errors:
        path = data_path(tuple(error.get("loc", ())), data)
        data = _with_whole_number(data, path)
    return data


def _with_whole_number(data: Any, path: tuple[Any, ...]) -> Any:
    """``data`` with the whole number at ``path`` an integer (copied along the path);
    ``data`` itself when no whole number is there."""
    if not path:
        whole = isinstance(data, float) and data.is_integer() and abs(data) <= _EXACT
        return int(data) if whole else data
    key, rest = path[0], path[1:]
    inner = _with_whole_number(data[key], rest)
    if inner is data[key]:
        return data
    copy = dict(data) if isinstance(data, dict) else list(data)
    copy[key] = inner
    return copy
