"""skill-md-unreadable: SKILL.md must be readable UTF-8 text of a sane size."""

from __future__ import annotations

from collections.abc import Iterator

from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.lint.rule import Rule
from skillkit_core.manifest.folder import SkillFolder

_CODES = ("unreadable", "too-large", "not-utf8")


def _check(folder: SkillFolder) -> Iterator[LintDiagnostic]:
    for problem in folder.parsed.problems:
        if problem.code in _CODES:
            yield RULE.diagnostic(problem.message, range=problem.range, file=folder.skill_md)


RULE = Rule(
    id="skill-md-unreadable",
    severity="error",
    summary="SKILL.md cannot be read as UTF-8 text.",
    rationale=(
        "The specification's files are UTF-8 text; hosts either refuse other bytes or show "
        "the agent replacement characters."
    ),
    bad="SKILL.md saved as Latin-1 with 'café' in its description",
    good="SKILL.md saved as UTF-8",
    check=_check,
    target="manifest",
    spec=True,
)
