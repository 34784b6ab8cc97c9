"""duplicate-step: each step name is defined once."""

from __future__ import annotations

import re
from collections.abc import Iterator

from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.lint.rule import Rule
from skillkit_core.lint.workflow import WorkflowContext

# How a lenient build records a duplicate (used when the source cannot be read).
_PROBLEM = re.compile(r"step '(.+?)': is defined twice")


def _check(ctx: WorkflowContext) -> Iterator[LintDiagnostic]:
    if ctx.skill is None:
        return
    names = [m.group(1) for p in ctx.skill.problems if (m := _PROBLEM.search(p))]
    for name in dict.fromkeys(names):
        infos = ctx.step_infos(name)
        if len(infos) < 2:
            yield ctx.diagnostic(
                RULE, f"step '{name}' is defined more than once; rename one", step=name
            )
            continue
        first = infos[0].range.line + 1
        for info in infos[1:]:
            where = info.name_string.range if info.name_string is not None else info.range
            yield ctx.diagnostic(RULE, duplicate_message(name, first), step=name, range=where)


def duplicate_message(step: str, first_line: int) -> str:
    """The finding's words for a second definition (the syntax layer's too); lines 1-based."""
    return (
        f"step '{step}' is already defined on line {first_line}; this definition is ignored, "
        "so rename one of them"
    )


RULE = Rule(
    id="duplicate-step",
    severity="error",
    summary="Two steps of a skill share a name.",
    rationale=(
        "Transitions address steps by name, so a name must be unique. The first "
        "definition wins and the second is silently dead; a registered module or an "
        "extend() can introduce the clash without either step looking wrong."
    ),
    bad=(
        '.step("review", prompt="Review.", next="fix")\n'
        '.step("review", prompt="Again.", next=terminal)'
    ),
    good=(
        '.step("review", prompt="Review.", next="fix")\n'
        '.step("final-review", prompt="Again.", next=terminal)'
    ),
    check=_check,
    target="workflow",
)
