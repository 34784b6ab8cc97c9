"""body-too-many-tokens: the SKILL.md body stays under about 5000 tokens."""

from __future__ import annotations

from collections.abc import Iterator

from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.lint.rule import Rule
from skillkit_core.manifest.folder import SkillFolder
from skillkit_core.manifest.spec import BODY_TOKENS_MAX, CHARS_PER_TOKEN, estimate_tokens


def _check(folder: SkillFolder) -> Iterator[LintDiagnostic]:
    if not folder.exists:
        return
    parsed = folder.parsed
    tokens = estimate_tokens(parsed.body)
    if tokens <= BODY_TOKENS_MAX:
        return
    body_offset = len(parsed.text) - len(parsed.body)
    crossing = body_offset + BODY_TOKENS_MAX * CHARS_PER_TOKEN
    yield RULE.diagnostic(
        f"the body is about {tokens} tokens (estimated); keep it under {BODY_TOKENS_MAX} "
        "and move detail into files under references/ (the limit is crossed here)",
        range=parsed.span(crossing, crossing + 1),
        file=folder.skill_md,
    )


RULE = Rule(
    id="body-too-many-tokens",
    severity="warning",
    summary="The SKILL.md body is estimated at more than 5000 tokens.",
    rationale=(
        "A loaded skill's body stays in context for the rest of the task; the specification "
        "advises under 5000 tokens so several skills fit beside the work itself. It is "
        "apart from body-too-long (500 lines): a file can cross either limit alone."
    ),
    bad="a body of 30,000 characters",
    good="a body of 8,000 characters linking references for the rest",
    check=_check,
    target="manifest",
)
