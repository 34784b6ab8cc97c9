"""skill-md-filename: the manifest is named SKILL.md, in upper case."""

from __future__ import annotations

from collections.abc import Iterator

from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.lint.rule import Rule
from skillkit_core.manifest.folder import SkillFolder


def _check(folder: SkillFolder) -> Iterator[LintDiagnostic]:
    if folder.exists and folder.manifest_name != "SKILL.md":
        yield RULE.diagnostic(
            f"the manifest is named '{folder.manifest_name}'; name it 'SKILL.md' "
            "(hosts on case-sensitive file systems look for that exact name)",
            file=folder.skill_md,
        )


RULE = Rule(
    id="skill-md-filename",
    severity="warning",
    summary="The manifest file is not named exactly SKILL.md.",
    rationale=(
        "The reference validator accepts a lowercase skill.md, but hosts that look up "
        "'SKILL.md' on a case-sensitive file system will not find it."
    ),
    bad="my-skill/skill.md",
    good="my-skill/SKILL.md",
    check=_check,
    target="manifest",
)
