"""schema-not-serializable: every schema the agent sees can be written as JSON Schema."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.lint.rule import Rule
from skillkit_core.lint.workflow import WorkflowContext

if TYPE_CHECKING:
    from skillkit_core.schema import Schema


def _problem(schema: Schema, seen: dict[int, str | None]) -> str | None:
    """Why the schema has no JSON Schema (None when it has one); steps often share a
    response type, so each type is tried once (``seen``, keyed by the type)."""
    key = id(schema.source)
    if key not in seen:
        seen[key] = _attempt(schema)
    return seen[key]


def _attempt(schema: Schema) -> str | None:
    try:
        schema.json_schema()
    except Exception as error:  # pydantic raises several kinds; each is the author's
        text = str(error).strip().splitlines()
        return f"{type(error).__name__}: {text[0] if text else 'no JSON Schema'}"
    return None


def _check(ctx: WorkflowContext) -> Iterator[LintDiagnostic]:
    skill = ctx.skill
    if skill is None:
        return
    seen: dict[int, str | None] = {}
    for field in ("params", "final_output"):
        schema = getattr(skill, field)
        problem = _problem(schema, seen) if schema is not None else None
        if problem is not None:
            yield ctx.diagnostic(
                RULE,
                f"{field}={schema.name} cannot produce a JSON Schema ({problem})",
                range=ctx.chain_value_range(field),
            )
    for step in ctx.steps.values():
        problem = _problem(step.response, seen) if step.response is not None else None
        if problem is None:
            continue
        yield ctx.diagnostic(
            RULE,
            f"step '{step.name}': response={step.response.name} cannot produce a JSON Schema, "
            f"so the agent cannot be told what to answer ({problem})",
            step=step.name,
            range=ctx.step_value_range(step.name, "response"),
        )


RULE = Rule(
    id="schema-not-serializable",
    severity="error",
    summary="A response, params or final_output type that has no JSON Schema.",
    rationale=(
        "Each prompt result carries the step's response schema as JSON Schema so that the "
        "agent knows what to answer; params and final output are described the same way. "
        "Types pydantic cannot describe (callables, arbitrary classes) break that at run "
        "time, on the first prompt of the step."
    ),
    bad=(
        "class Plan(BaseModel):\n"
        "    model_config = ConfigDict(arbitrary_types_allowed=True)\n"
        "    on_done: Callable[[], None]"
    ),
    good="class Plan(BaseModel):\n    steps: list[str]",
    check=_check,
    target="workflow",
)
