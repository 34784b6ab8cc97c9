"""skill-md-bom: SKILL.md does not start with a byte-order mark."""

from __future__ import annotations

from collections.abc import Iterator

from skillkit_core.lint.diagnostic import LintDiagnostic, SourceRange
from skillkit_core.lint.rule import Rule
from skillkit_core.manifest.folder import SkillFolder


def _check(folder: SkillFolder) -> Iterator[LintDiagnostic]:
    if folder.exists and folder.parsed.had_bom:
        yield RULE.diagnostic(
            f"{folder.manifest_name} starts with a byte-order mark instead of '---'; the "
            "strict spec validator (skills-ref) refuses it: save the file as UTF-8 "
            "without a BOM",
            range=SourceRange(0, 0, 0, 0),
            file=folder.skill_md,
        )


RULE = Rule(
    id="skill-md-bom",
    severity="warning",
    summary="SKILL.md starts with a byte-order mark.",
    rationale=(
        "The specification's frontmatter starts with '---' on the first line; an editor "
        "that saves a UTF-8 byte-order mark first makes the strict validator refuse the "
        "file, while other hosts skip the mark."
    ),
    bad="SKILL.md saved as 'UTF-8 with BOM'",
    good="SKILL.md saved as UTF-8",
    check=_check,
    target="manifest",
)
