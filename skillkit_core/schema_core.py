"""What a pydantic core schema means for an agent's JSON answer, where pydantic's own
reading differs from the JSON Schema the agent is given.

:mod:`skillkit_core.schema` uses these; they read pydantic's core schema (the documented
structure of ``pydantic_core.core_schema``), never build one from scratch.
"""

from __future__ import annotations

import functools
from typing import Any

# Keys of a core schema node whose values are no schemas: the author's defaults,
# pydantic's metadata (functions), the classes and their configs.
_NOT_SCHEMAS = frozenset({"default", "metadata", "cls", "config", "serialization", "members"})
# Keys whose value maps names the author chose (fields, a tagged union's tags) to nodes:
# a field named "type" or "config" is no key of a node.
_NAMED_NODES = frozenset({"fields", "choices"})


def _children(node: dict[str, Any]) -> list[tuple[str, Any, bool]]:
    """``(key, value, named)`` for each key of ``node`` that holds nodes: ``named`` when
    the value maps names to nodes (:data:`_NAMED_NODES`)."""
    return [
        (key, value, key in _NAMED_NODES and isinstance(value, dict))
        for key, value in node.items()
        if key not in _NOT_SCHEMAS
    ]


def lets_extra_keys_in(core_schema: Any) -> bool | None:
    """Whether some part of a type lets undeclared keys in by its own policy: a config's
    ``extra_fields_behavior`` of ``allow`` or ``ignore`` (a TypedDict's
    ``extra_behavior`` is ``ignore`` unless set, so only its ``allow`` counts). ``None``
    when only the JSON Schema can tell: a model, TypedDict or dataclass has a
    ``json_schema_extra``, which may say ``additionalProperties`` itself."""
    unknown = False
    for node in _nodes(core_schema):
        if node.get("extra_behavior") == "allow":
            return True
        config = node.get("config")
        if isinstance(config, dict) and config.get("extra_fields_behavior") in ("allow", "ignore"):
            return True
        unknown = unknown or _has_schema_extra(node.get("cls"))
    return None if unknown else False


def _has_schema_extra(cls: Any) -> bool:
    config = getattr(cls, "model_config", None) or getattr(cls, "__pydantic_config__", None)
    return isinstance(config, dict) and config.get("json_schema_extra") is not None


def _nodes(core_schema: Any) -> Any:
    """Every dict of a core schema that can be a schema (depth first)."""
    stack = [core_schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            yield node
            for _, value, named in _children(node):
                stack.extend(value.values() if named else [value])
        elif isinstance(node, list | tuple):
            stack.extend(node)


# What makes a dump differ from the answer it came from in a way validation would not
# take back: aliases, computed and excluded fields, serializers and author's code that may
# change a value (validators, a custom __init__ or model_post_init).
_DUMP_CHANGERS = (
    "validation_alias",
    "serialization_alias",
    "computed_fields",
    "serialization_exclude",
    "serialization_exclude_if",
    "exclude_if",
    "serialization",
    "post_init",
)


def dump_replays(core_schema: Any) -> bool:
    """Whether dumping a validated value (``mode="json"``) gives data that validates to
    the same value, judged from the schema alone (``False`` when in doubt): no node has
    an alias, a computed or excluded field, a serializer, a validator function, a custom
    ``__init__``, a ``model_post_init`` or a config that changes how values are written."""
    for node in _nodes(core_schema):
        if str(node.get("type", "")).startswith("function-") or node.get("custom_init"):
            return False
        if any(node.get(key) for key in _DUMP_CHANGERS):
            return False
        config = node.get("config")
        if isinstance(config, dict) and any(
            key.startswith(("ser_", "serialize_", "val_")) for key in config
        ):
            return False
    return True


def agent_json_schema(core_schema: Any, *, closed: bool) -> tuple[dict[str, Any], bool]:
    """The JSON Schema of ``core_schema`` an agent is given: pydantic's, saying three
    things pydantic's validation holds an answer to and its schema leaves out (a
    discriminated union's tag is required even where each member gives it a default; a
    ``dict[int, …]`` takes integer keys; a dataclass's ``init=False`` field is no input),
    and when ``closed`` with ``"additionalProperties": false`` on each
    object a model, TypedDict or dataclass describes; and whether one of them said
    otherwise itself (a ``json_schema_extra``), so that the schema is not closed after all."""
    generator = _agent_schemas()(closed)
    return generator.generate(core_schema, mode="validation"), generator.opened


@functools.cache
def _agent_schemas() -> type:
    from pydantic.json_schema import GenerateJsonSchema

    class AgentSchemas(GenerateJsonSchema):
        """pydantic's JSON Schema generator, as :func:`agent_json_schema` says."""

        opened = False

        def __init__(self, closed: bool) -> None:
            super().__init__()
            self.closing = closed

        def _closed(self, json_schema: Any) -> Any:
            if not self.closing:
                return json_schema
            if isinstance(json_schema, dict) and json_schema.get("type") == "object":
                json_schema.setdefault("additionalProperties", False)
                self.opened = self.opened or json_schema["additionalProperties"] is not False
            return json_schema

        def model_schema(self, schema: Any) -> Any:
            json_schema = super().model_schema(schema)
            # A RootModel is its root's schema (a dict[str, Any] is an open object).
            return json_schema if schema.get("root_model") else self._closed(json_schema)

        def model_fields_schema(self, schema: Any) -> Any:
            json_schema = super().model_fields_schema(schema)
            for name, field in schema.get("fields", {}).items():
                path = _nested_alias(field.get("validation_alias"))
                if path is not None:
                    _move_to_path(json_schema, name, path)
            return json_schema

        def typed_dict_schema(self, schema: Any) -> Any:
            return self._closed(super().typed_dict_schema(schema))

        def tagged_union_schema(self, schema: Any) -> Any:
            json_schema = super().tagged_union_schema(schema)
            discriminator = json_schema.get("discriminator")
            tag = discriminator.get("propertyName") if isinstance(discriminator, dict) else None
            if isinstance(tag, str) and tag not in json_schema.setdefault("required", []):
                json_schema["required"].append(tag)
            return json_schema

        def dict_schema(self, schema: Any) -> Any:
            # pydantic's schema says nothing of keys but strings' patterns, and those only
            # as patternProperties, which leave other keys free: validation refuses them.
            json_schema = super().dict_schema(schema)
            keys = schema.get("keys_schema") or {}
            constraints = set(keys) - {"type", "metadata"}
            names = None if constraints else _KEY_NAMES.get(keys.get("type"))
            if keys.get("type") == "str" and constraints == {"pattern"}:
                names = {"pattern": keys["pattern"]}
            if names is not None:
                json_schema.setdefault("propertyNames", names)
            return json_schema

        def decimal_schema(self, schema: Any) -> Any:
            # pydantic's schema of a Decimal takes any string; validation takes numerals.
            json_schema = super().decimal_schema(schema)
            for branch in json_schema.get("anyOf", ()) if isinstance(json_schema, dict) else ():
                if branch.get("type") == "string":
                    branch.setdefault("pattern", _DECIMAL_NUMERAL)
            return json_schema

        def url_schema(self, schema: Any) -> Any:
            # pydantic's schema of HttpUrl says "format": "uri" and leaves out the
            # schemes it takes: an agent's ftp:// or mailto: answer was refused unwarned.
            json_schema = super().url_schema(schema)
            schemes = schema.get("allowed_schemes")
            if schemes and isinstance(json_schema, dict):
                spelt = "|".join(_any_case(scheme) for scheme in schemes)
                json_schema.setdefault("pattern", f"^(?:{spelt}):")
            return json_schema

        def dataclass_schema(self, schema: Any) -> Any:
            json_schema = super().dataclass_schema(schema)
            fields = schema.get("schema", {}).get("fields", ())
            hidden = {f["name"] for f in fields if f.get("init") is False}
            if hidden and isinstance(json_schema, dict):
                properties = json_schema.get("properties", {})
                for name in hidden:
                    properties.pop(name, None)
                if "required" in json_schema:
                    required = json_schema["required"]
                    json_schema["required"] = [name for name in required if name not in hidden]
            return self._closed(json_schema)

    return AgentSchemas


# Numerals pydantic's Decimal takes from a string (it takes more: spaces around, "_"
# between digits, digits of other scripts).
_DECIMAL_NUMERAL = "^[-+]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(?:[eE][-+]?[0-9]+)?$"


# What an object's keys may be for a dict of these key types, in the JSON Schema shown
# (each a part of what validation takes from a JSON key).
_KEY_NAMES: dict[Any, dict[str, Any]] = {
    "int": {"pattern": "^-?(0|[1-9][0-9]*)$"},
    "float": {"pattern": _DECIMAL_NUMERAL},
    "bool": {"enum": ["true", "false"]},
}


def _nested_alias(alias: Any) -> list[str] | None:
    """The keys of a field's ``AliasPath`` (the first choice of ``AliasChoices``) when it
    leads into nested objects; ``None`` otherwise (pydantic's schema then has it right).
    pydantic's schema shows such a field under its own name, where validation wants
    ``{"data": {"name": …}}`` for ``AliasPath("data", "name")``."""
    if isinstance(alias, list) and alias and isinstance(alias[0], list):
        alias = alias[0]
    if isinstance(alias, list) and len(alias) > 1 and all(isinstance(k, str) for k in alias):
        return alias
    return None


def _move_to_path(json_schema: Any, name: str, path: list[str]) -> None:
    """Move property ``name`` of an object schema to the nested ``path``, its being
    required too (left where it is when a property on the way is no object schema)."""
    properties = json_schema.get("properties") if isinstance(json_schema, dict) else None
    if not isinstance(properties, dict) or name not in properties:
        return
    node = json_schema
    for key in path[:-1]:  # first, whether the way is free
        child = node.get("properties", {}).get(key)
        if child is None:
            break
        if not isinstance(child, dict) or "properties" not in child:
            return
        node = child
    required = name in json_schema.get("required", ())
    if required:
        json_schema["required"].remove(name)
    node = json_schema
    for key in path[:-1]:
        if required and key not in node.setdefault("required", []):
            node["required"].append(key)
        node = node["properties"].setdefault(key, {"type": "object", "properties": {}})
    node["properties"][path[-1]] = properties.pop(name)
    if required:
        node.setdefault("required", []).append(path[-1])


def _any_case(word: str) -> str:
    """``word`` as a JSON Schema (ECMA-262) pattern matching it in any case."""
    import re

    return "".join(
        f"[{char.lower()}{char.upper()}]" if char.isalpha() else re.escape(char) for char in word
    )


def json_kind_checker(core_schema: Any) -> Any | None:
    """A check that each literal and enum of an answer got a boolean only where one is
    expected, and a number only where one is; ``None`` when the type has no literal or
    enum of booleans or numbers (pydantic's validation is then right).

    pydantic matches a literal or an enum by Python equality, where ``True == 1``: in
    strict mode too, ``1`` passes ``Literal[True]`` (a gate opens) and ``true`` passes
    ``Literal[1, 2, 3]`` or an ``IntEnum``, against the JSON Schema's ``enum``/``const``.
    Its validators of models and dataclasses are built with their classes and cannot be
    changed, so the check is a second validator of the answer's shape, with models,
    dataclasses and TypedDicts as plain fields and each such literal or enum guarded;
    only the guards' errors count (see :func:`kind_errors`)."""
    from pydantic_core import SchemaValidator

    try:
        shadow, guarded = _shadow(core_schema)
        return SchemaValidator(shadow) if guarded else None
    except Exception:  # a core schema this module does not know how to take apart
        return None


_KIND_ERROR = "json_kind"


def kind_errors(checker: Any, text: str, data: Any, extra: str | None) -> list[dict[str, Any]]:
    """The guards' errors of validating the JSON ``text`` (``data`` parsed) with
    ``checker``, each with its location in ``data``; the other errors of the shadow
    validator mean nothing (it lacks the author's validators)."""
    from pydantic_core import ValidationError

    try:
        checker.validate_json(text, strict=True, extra=extra)
    except ValidationError as error:
        found = error.errors(include_url=False)
    except Exception:  # an author's before-validator, run on the shadow: nothing to say
        return []
    else:
        return []
    return [
        {**item, "loc": data_path(item["loc"], data)}
        for item in found
        if item["type"] == _KIND_ERROR
    ]


def data_path(loc: tuple[Any, ...], data: Any) -> tuple[Any, ...]:
    """An error's ``loc`` without the parts that name no key or index of ``data`` (a
    union's member tags, such as ``int`` or ``function-wrap[…]``)."""
    return answer_path(loc, data)[0]


def answer_path(
    loc: tuple[Any, ...], data: Any, *, missing: bool = False
) -> tuple[tuple[Any, ...], list[str], bool]:
    """An error's ``loc`` read against the ``data`` validated: the keys and indexes of
    ``data`` it goes through, the parts that name none (a union's member tags), and
    whether the error is of a key (pydantic's trailing ``[key]``). With ``missing`` (a
    missing field's error), its last part, the field's name, is kept."""
    kept: list[Any] = []
    members: list[str] = []
    key = False
    for index, part in enumerate(loc):
        last = index == len(loc) - 1
        in_list = isinstance(data, list) and isinstance(part, int) and 0 <= part < len(data)
        if in_list or (isinstance(data, dict) and part in data):
            data = data[part]
            kept.append(part)
        elif last and part == "[key]":
            key = True
        elif last and missing:
            kept.append(part)
        else:
            members.append(str(part))
    return tuple(kept), members, key


# Nodes whose validator comes with a class: the shadow keeps their inner schema.
_CLASS_NODES = frozenset({"model", "dataclass"})
# The author's validators around a schema: the shadow keeps the inner schema alone (an
# after or wrap validator would get a plain value where it expects an instance, and none
# of the author's code runs twice for one answer).
_AUTHOR_FUNCTIONS = frozenset({"function-before", "function-after", "function-wrap"})


def _shadow(node: Any) -> tuple[Any, bool]:
    """``node`` as the shadow validator's schema, and whether a guard was put in it;
    copies only what changes (the author's core schema is shared)."""
    if isinstance(node, list):
        items = [_shadow(item) for item in node]
        return [item for item, _ in items], any(guarded for _, guarded in items)
    if not isinstance(node, dict):
        return node, False
    kind = node.get("type") if isinstance(node.get("type"), str) else None
    if kind in _CLASS_NODES or kind in _AUTHOR_FUNCTIONS:
        inner, guarded = _shadow(node["schema"])
        return _with_ref(inner, node), guarded
    if kind == "function-plain":
        from pydantic_core import core_schema as cs

        return _with_ref(cs.any_schema(), node), False
    copy = {
        key: value for key, value in node.items() if not (kind == "typed-dict" and key == "cls")
    }
    guarded = False
    for key, value, named in _children(node):
        if named:
            shadows = {name: _shadow(item) for name, item in value.items()}
            copy[key] = {name: shadow for name, (shadow, _) in shadows.items()}
            guarded = guarded or any(inside for _, inside in shadows.values())
        else:
            copy[key], inside = _shadow(value)
            guarded = guarded or inside
    keys = node.get("keys_schema") if kind == "dict" else None
    if isinstance(keys, dict) and keys.get("type") == "int":
        copy["keys_schema"] = _plain_integer_key()
        guarded = True
    expected = _expected_values(node)
    if expected is None or not any(isinstance(v, int | float) for v in expected):
        return copy, guarded
    return _kind_checked(copy, expected), True


def _plain_integer_key() -> dict[str, Any]:
    """A guard for an integer key as JSON writes it: pydantic also takes ``"01"``,
    ``"+1"`` or ``" 1"`` and merges them with ``"1"`` into one key, the last value
    winning (an answer's entries were lost); the schema shown says ``^-?(0|[1-9][0-9]*)$``."""
    import re

    from pydantic_core import PydanticCustomError
    from pydantic_core import core_schema as cs

    plain = re.compile(r"-?(0|[1-9][0-9]*)")

    def checked(key: str) -> str:
        if not plain.fullmatch(key):
            raise PydanticCustomError(
                _KIND_ERROR, "Key should be an integer written plainly (as 1 or -2)"
            )
        return key

    return cs.no_info_after_validator_function(checked, cs.str_schema())


def _with_ref(inner: dict[str, Any], outer: dict[str, Any]) -> dict[str, Any]:
    """``inner`` standing for ``outer`` (which other nodes may name by its ``ref``)."""
    if "ref" not in outer:
        return inner
    from pydantic_core import core_schema as cs

    return cs.chain_schema([inner], ref=outer["ref"])


def _expected_values(node: dict[str, Any]) -> list[Any] | None:
    if node.get("type") == "literal":
        return list(node.get("expected", ()))
    if node.get("type") == "enum":
        return [getattr(member, "value", member) for member in node.get("members", ())]
    return None


def _kind_checked(node: dict[str, Any], expected: list[Any]) -> dict[str, Any]:
    from pydantic_core import PydanticCustomError
    from pydantic_core import core_schema as cs

    takes_bool = any(isinstance(v, bool) for v in expected)
    takes_number = any(isinstance(v, int | float) and not isinstance(v, bool) for v in expected)
    wanted = _listed(expected)

    def same_kind(value: Any, handler: Any) -> Any:
        is_bool = isinstance(value, bool)
        is_number = isinstance(value, int | float) and not is_bool
        if (is_bool and not takes_bool) or (is_number and not takes_number):
            raise PydanticCustomError(
                _KIND_ERROR, "Input should be {expected}", {"expected": wanted}
            )
        return handler(value)

    inner = {key: value for key, value in node.items() if key != "ref"}
    return cs.no_info_wrap_validator_function(same_kind, inner, ref=node.get("ref"))


def _listed(values: list[Any]) -> str:
    """pydantic's way of listing a literal's values: ``1, 2 or 3``."""
    shown = [repr(v) for v in values]
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"
