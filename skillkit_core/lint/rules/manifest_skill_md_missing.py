"""skill-md-missing: a skill folder must contain a SKILL.md."""

from __future__ import annotations

from collections.abc import Iterator

from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.lint.rule import Rule
from skillkit_core.manifest.folder import SkillFolder


def _check(folder: SkillFolder) -> Iterator[LintDiagnostic]:
    problem = folder.parsed.problem("missing-file")
    if problem is not None:
        yield RULE.diagnostic(problem.message, file=folder.skill_md)


RULE = Rule(
    id="skill-md-missing",
    severity="error",
    summary="The skill folder has no SKILL.md.",
    rationale=(
        "Every host finds a skill by its SKILL.md; a folder without one is not a skill and "
        "is silently skipped."
    ),
    bad="my-skill/\n  README.md",
    good="my-skill/\n  SKILL.md",
    check=_check,
    target="manifest",
    spec=True,
)
