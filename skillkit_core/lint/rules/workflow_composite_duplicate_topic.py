"""composite-duplicate-topic: each topic name is registered once."""

from __future__ import annotations

from collections.abc import Iterator

from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.lint.rule import Rule
from skillkit_core.lint.workflow import WorkflowContext, duplicate_registrations


def _check(ctx: WorkflowContext) -> Iterator[LintDiagnostic]:
    names = [topic.name for topic in ctx.definition.topics]
    for name, where in duplicate_registrations(ctx, "topic", names):
        yield ctx.diagnostic(
            RULE,
            f"topic '{name}' is registered more than once; 'topic:{name}' would be "
            "ambiguous, so rename or remove one",
            range=where,
        )


RULE = Rule(
    id="composite-duplicate-topic",
    severity="error",
    summary="Two topics of a composite or reference skill share a name.",
    rationale=(
        "Topic names are addresses ('topic:auth', 'scripts/run topic auth'). With two "
        "topics of one name only one could ever be read; the other is dead content."
    ),
    bad='.topic("auth", label="Auth", content=AUTH)\n.topic("auth", label="OAuth", content=OA)',
    good='.topic("auth", label="Auth", content=AUTH)\n.topic("oauth", label="OAuth", content=OA)',
    check=_check,
    target="workflow",
)
