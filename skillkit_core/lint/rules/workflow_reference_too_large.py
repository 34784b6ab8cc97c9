"""reference-too-large: reference files stay small enough to load on demand."""

from __future__ import annotations

from collections.abc import Iterator

from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.lint.rule import Rule
from skillkit_core.lint.workflow import WHOLE_FILE, WorkflowContext, reference_files

#: Reference files larger than this many bytes are reported.
LIMIT_BYTES = 8 * 1024


def _check(ctx: WorkflowContext) -> Iterator[LintDiagnostic]:
    for relative, path in reference_files(ctx):
        try:
            size = path.stat().st_size
        except OSError:
            continue
        if size > LIMIT_BYTES:
            yield RULE.diagnostic(
                f"references/{relative} is {size / 1024:.1f} KB, over the {LIMIT_BYTES // 1024} KB "
                "a reference should stay under; every load puts all of it in the agent's "
                "context, so split it into smaller topics",
                file=str(path),
                range=WHOLE_FILE,
            )


RULE = Rule(
    id="reference-too-large",
    severity="warning",
    summary=f"A file in references/ is larger than {LIMIT_BYTES // 1024} KB.",
    rationale=(
        "References are loaded into the agent's context whole, when a step or topic asks "
        "for them. Large files cost tokens on every load and bury the part that matters; "
        "several small, focused files load only what a step needs."
    ),
    bad="references/api.md  (40 KB: every endpoint, every error code)",
    good="references/auth.md, references/errors.md, references/rate-limits.md  (2-6 KB each)",
    check=_check,
    target="workflow",
)
