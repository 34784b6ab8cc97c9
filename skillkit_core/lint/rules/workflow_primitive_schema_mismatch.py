"""primitive-schema-mismatch: ask_user options and the response's choice field agree."""

from __future__ import annotations

import ast
import enum
import types
import typing
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from skillkit_core.lint.diagnostic import Fix, LintDiagnostic, SourceRange, TextEdit
from skillkit_core.lint.rule import Rule
from skillkit_core.lint.workflow import WorkflowContext, string_literal

_CONTAINERS = (list, set, frozenset, tuple)


@dataclass(frozen=True)
class Choice:
    """The field of a response that receives the chosen option(s)."""

    field: str | None  # None when the response type itself is the Literal/Enum
    values: tuple[str, ...]
    spelled: str  # how the message names it: "Choose.target", "the response"
    kind: str  # "Literal" or "Enum"


@dataclass(frozen=True)
class Question:
    """One structured ask_user of a step: option values and where each is written."""

    values: tuple[str, ...]
    ranges: dict[str, SourceRange]


# ---------------------------------------------------------------- schema side


def choice_values(tp: Any) -> tuple[tuple[str, ...], str] | None:
    """The string values a type allows and whether they come from a Literal or an Enum,
    looking through Optional, Annotated and list/set (multi-select) wrappers."""
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        return choice_values(typing.get_args(tp)[0])
    if origin is typing.Literal:
        values = tuple(str(v) for v in typing.get_args(tp) if isinstance(v, str))
        return (values, "Literal") if values else None
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        values = tuple(m.value for m in tp if isinstance(m.value, str))
        return (values, "Enum") if values else None
    if origin is typing.Union or origin is types.UnionType:
        parts = [choice_values(arg) for arg in typing.get_args(tp) if arg is not type(None)]
        found = [part for part in parts if part is not None]
        if len(found) != 1:
            return None
        return found[0]
    if origin in _CONTAINERS:
        args = [a for a in typing.get_args(tp) if a is not Ellipsis]
        return choice_values(args[0]) if len(args) == 1 else None
    return None


def _fields(source: Any) -> dict[str, Any]:
    fields = getattr(source, "model_fields", None)
    if isinstance(fields, dict):
        return {name: info.annotation for name, info in fields.items()}
    try:
        return typing.get_type_hints(source, include_extras=True)
    except Exception:  # not a class with annotations we can resolve
        return {}


def find_choice(response: Any, options: tuple[str, ...]) -> Choice | None:
    """The response's Literal/Enum field the options fill (the one sharing the most
    values with them when there are several; None when that is ambiguous)."""
    source = response.source
    own = choice_values(source)
    if own is not None:
        return Choice(None, own[0], "the response type", own[1])
    candidates = []
    for name, annotation in _fields(source).items():
        found = choice_values(annotation)
        if found is not None:
            candidates.append(Choice(name, found[0], f"{response.name}.{name}", found[1]))
    if len(candidates) <= 1:
        return candidates[0] if candidates else None
    overlap = [len(set(c.values) & set(options)) for c in candidates]
    best = max(overlap)
    if best == 0 or overlap.count(best) > 1:
        return None
    return candidates[overlap.index(best)]


# ---------------------------------------------------------------- prompt side


def questions(ctx: WorkflowContext, step: str, prompt: Any) -> list[Question]:
    """The structured ask_user questions of a step's prompt: from the definition when
    the prompt is static, else from the ``act.ask_user(...)`` calls in its source."""
    from skillkit_core.primitives.ask_user import AskUserConfig
    from skillkit_core.prompts.segments import ActSegment

    calls = [c for c in ctx.act_calls(step) if c.primitive == "ask_user"]
    pieces = prompt if isinstance(prompt, tuple | list) else (prompt,)
    static = [
        p.primitive
        for p in pieces
        if isinstance(p, ActSegment)
        and isinstance(p.primitive, AskUserConfig)
        and p.primitive.type == "structured"
    ]
    found = []
    if static:
        for position, config in enumerate(static):
            values = tuple(option.value for option in config.options)
            call = calls[position] if position < len(calls) else None
            ranges = _option_ranges(call)
            found.append(Question(values, ranges))
        return found
    if not callable(prompt):
        return []
    for call in calls:
        if call.options and all(option.value is not None for option in call.options):
            values = tuple(str(option.value) for option in call.options)
            found.append(Question(values, _option_ranges(call)))
    return found


def _option_ranges(call: Any) -> dict[str, SourceRange]:
    if call is None:
        return {}
    return {option.value: option.inner for option in call.options if option.value is not None}


# ---------------------------------------------------------------- the check


def _check(ctx: WorkflowContext) -> Iterator[LintDiagnostic]:
    for step in ctx.steps.values():
        if step.prompt is None or step.response is None:
            continue
        for question in questions(ctx, step.name, step.prompt):
            choice = find_choice(step.response, question.values)
            if choice is None:
                continue
            allowed = set(choice.values)
            for value in question.values:
                if value in allowed:
                    continue
                yield ctx.diagnostic(
                    RULE,
                    f"step '{step.name}': option '{value}' is not a value of {choice.spelled} "
                    f"({choice.kind}: {', '.join(repr(v) for v in choice.values)}), so "
                    "choosing it fails validation",
                    step=step.name,
                    range=question.ranges.get(value),
                    severity="error",
                )
            extra = [v for v in choice.values if v not in question.values]
            if extra:
                yield ctx.diagnostic(
                    RULE,
                    f"step '{step.name}': {choice.spelled} allows "
                    f"{', '.join(repr(v) for v in extra)}, which no option offers",
                    step=step.name,
                    range=ctx.step_value_range(step.name, "response"),
                    severity="warning",
                )


# ---------------------------------------------------------------- fix


def _fix(ctx: WorkflowContext, diagnostic: LintDiagnostic) -> Fix | None:
    """Add a missing option value to the Literal of the response model's field."""
    if diagnostic.severity != "error" or diagnostic.range is None or diagnostic.step is None:
        return None
    step = ctx.steps.get(diagnostic.step)
    value = ctx.text_at(diagnostic.range)
    if step is None or step.response is None or not value:
        return None
    options = tuple(v for q in questions(ctx, step.name, step.prompt) for v in q.values)
    choice = find_choice(step.response, options)
    if choice is None or choice.kind != "Literal" or choice.field is None:
        return None
    where = _literal_end(ctx, step.response.source, choice.field)
    if where is None:
        return None
    file, end = where
    return Fix(
        f"Add {string_literal(value)} to the Literal of {choice.spelled}",
        (TextEdit(end, f", {string_literal(value)}", file),),
    )


def _literal_end(ctx: WorkflowContext, model: Any, field: str) -> tuple[str, SourceRange] | None:
    """Where to insert one more value into ``Literal[...]`` of ``model.field``."""
    import inspect

    try:
        file = inspect.getsourcefile(model)
    except TypeError:
        return None
    tree = ctx.files.tree(file)
    if file is None or tree is None:
        return None
    name = model.__name__
    classes = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == name]
    if len(classes) != 1:
        return None
    for statement in classes[0].body:
        if (
            isinstance(statement, ast.AnnAssign)
            and isinstance(statement.target, ast.Name)
            and statement.target.id == field
        ):
            literals = [
                n
                for n in ast.walk(statement.annotation)
                if isinstance(n, ast.Subscript) and _names_literal(n.value)
            ]
            if len(literals) != 1:
                return None
            last = literals[0].slice
            if isinstance(last, ast.Tuple) and last.elts:
                last = last.elts[-1]
            span = ctx.files.ast_range(file, last)
            if span is None:
                return None
            end = SourceRange(span.end_line, span.end_column, span.end_line, span.end_column)
            return file, end
    return None


def _names_literal(node: ast.AST) -> bool:
    return (isinstance(node, ast.Name) and node.id == "Literal") or (
        isinstance(node, ast.Attribute) and node.attr == "Literal"
    )


RULE = Rule(
    id="primitive-schema-mismatch",
    severity="error",
    summary="ask_user option values and the response's Literal/Enum field disagree.",
    rationale=(
        "The agent answers a structured question with the chosen option's value, and the "
        "response model validates it. An option whose value the field does not allow can "
        "never be chosen successfully (error); a value the field allows but no option "
        "offers is dead or a forgotten option (warning)."
    ),
    bad=(
        "class Choose(BaseModel):\n"
        '    target: Literal["production", "staging"]\n\n'
        '.step("choose", prompt=act.ask_user(question="Where?", options=[\n'
        '          {"value": "prod", "label": "Production"},\n'
        '          {"value": "staging", "label": "Staging"}]),\n'
        '      response=Choose, next="verify")'
    ),
    good=(
        "class Choose(BaseModel):\n"
        '    target: Literal["production", "staging"]\n\n'
        '.step("choose", prompt=act.ask_user(question="Where?", options=[\n'
        '          {"value": "production", "label": "Production"},\n'
        '          {"value": "staging", "label": "Staging"}]),\n'
        '      response=Choose, next="verify")'
    ),
    check=_check,
    target="workflow",
    fix=_fix,
)
