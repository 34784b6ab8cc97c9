"""body-too-long: SKILL.md stays under 500 lines."""

from __future__ import annotations

from collections.abc import Iterator

from skillkit_core.lint.diagnostic import LintDiagnostic, SourceRange
from skillkit_core.lint.rule import Rule
from skillkit_core.manifest.folder import SkillFolder
from skillkit_core.manifest.spec import BODY_LINES_MAX


def _line_count(folder: SkillFolder) -> int:
    """SKILL.md's lines (the final line break starts no line)."""
    lines = folder.lines
    return len(lines) - 1 if lines and lines[-1] == "" else len(lines)


def _check(folder: SkillFolder) -> Iterator[LintDiagnostic]:
    if not folder.exists:
        return
    count = _line_count(folder)
    if count <= BODY_LINES_MAX:
        return
    first_extra = BODY_LINES_MAX
    yield RULE.diagnostic(
        f"SKILL.md has {count} lines; keep it under {BODY_LINES_MAX} and move detail into "
        "files under references/",
        range=SourceRange(first_extra, 0, first_extra, len(folder.lines[first_extra])),
        file=folder.skill_md,
    )


RULE = Rule(
    id="body-too-long",
    severity="warning",
    summary="SKILL.md is longer than 500 lines.",
    rationale=(
        "The whole SKILL.md enters the agent's context when the skill loads; the "
        "specification advises under 500 lines, with detail in references read on demand."
    ),
    bad="a 900-line SKILL.md with every API table inline",
    good="a 120-line SKILL.md linking references/api.md",
    check=_check,
    target="manifest",
)
