"""shadowed-store-field: no stored field is named like a method of the records that hold it."""

from __future__ import annotations

import typing
from collections.abc import Iterator
from typing import Any

from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.lint.rule import Rule
from skillkit_core.lint.workflow import WorkflowContext


def _method_names() -> frozenset[str]:
    """Public attributes of a store record (``r.get``, ``r.items``…): a field of the same
    name reads as the method, not as the field."""
    from skillkit_core.records import Record

    return frozenset(name for name in dir(Record) if not name.startswith("_"))


def _fields(source: Any) -> dict[str, Any] | None:
    """Field name -> type of a pydantic model, TypedDict or dataclass: the types the
    store keeps as a mapping (None for other types)."""
    if not isinstance(source, type):
        return None
    model_fields = getattr(source, "model_fields", None)
    if isinstance(model_fields, dict):
        return {name: info.annotation for name, info in model_fields.items()}
    import dataclasses

    from typing_extensions import is_typeddict  # also knows typing_extensions' own

    if is_typeddict(source) or dataclasses.is_dataclass(source):
        try:
            return typing.get_type_hints(source)
        except Exception:  # an unresolvable forward reference: the names are still known
            names = getattr(source, "__annotations__", {})
            return dict.fromkeys(names)
    return None


def _shadowed(
    source: Any, methods: frozenset[str], path: str = "", within: frozenset[int] = frozenset()
) -> Iterator[str]:
    """Dotted paths of the fields (nested models and lists of them included) whose name
    is a record method. ``within`` holds the types on the way here (a recursive model is
    followed once; the same model under two fields is reported under both)."""
    if id(source) in within:
        return
    fields = _fields(source)
    if fields is None:
        for inner in typing.get_args(source):  # list[Model], Model | None, dict[str, Model]
            yield from _shadowed(inner, methods, path, within)
        return
    within = within | {id(source)}
    for name, annotation in fields.items():
        where = f"{path}.{name}" if path else name
        if name in methods:
            yield where
        yield from _shadowed(annotation, methods, where, within)


def _message(read_back: str, field: str) -> str:
    """``read_back`` says which field is read back from where; the rest is shared."""
    name = field.rsplit(".", 1)[-1]
    return (
        f"{read_back} as a record, where '.{name}' is the record's method, not the field; "
        f"read it as ['{name}'] or rename the field"
    )


def _check(ctx: WorkflowContext) -> Iterator[LintDiagnostic]:
    skill = ctx.skill
    if skill is None:
        return
    methods = _method_names()
    for step in ctx.steps.values():
        if step.response is None:
            continue
        fields = list(_shadowed(step.response.source, methods))
        where = ctx.step_value_range(step.name, "response") if fields else None
        for field in fields:
            yield ctx.diagnostic(
                RULE,
                _message(
                    f"step '{step.name}': response field '{field}' is read back from the store",
                    field,
                ),
                step=step.name,
                range=where,
            )
    for store, schema in skill.stores.items():
        fields = list(_shadowed(schema.source, methods))
        where = ctx.chain_value_range("stores") if fields else None
        for field in fields:
            message = _message(f"store '{store}': field '{field}' is read back", field)
            yield ctx.diagnostic(RULE, message, range=where)


RULE = Rule(
    id="shadowed-store-field",
    severity="warning",
    summary="A response or sub-store field named like a record method (items, keys, …).",
    rationale=(
        "Step results and sub-stores are read back as read-only records, which are "
        "mappings: `r.field` reads a field unless a mapping method has that name, so a "
        "field called `items`, `keys`, `values` or `get` gives the method instead of the "
        "value, with no error until it is used. `r['items']` always reads the field."
    ),
    bad=(
        "class Order(BaseModel):\n"
        "    items: list[str]\n"
        "...\n"
        "ctx.store.steps['order'].items  # the method, not the list"
    ),
    good=(
        "class Order(BaseModel):\n    products: list[str]\n...\nctx.store.steps['order'].products"
    ),
    check=_check,
    target="workflow",
)
