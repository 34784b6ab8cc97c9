"""frontmatter-delimiters: SKILL.md starts with a frontmatter between two '---' lines."""

from __future__ import annotations

from collections.abc import Iterator

from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.lint.rule import Rule
from skillkit_core.manifest.folder import SkillFolder

_CODES = ("no-frontmatter", "unclosed-frontmatter")


def _check(folder: SkillFolder) -> Iterator[LintDiagnostic]:
    for problem in folder.parsed.problems:
        if problem.code in _CODES:
            yield RULE.diagnostic(problem.message, range=problem.range, file=folder.skill_md)


RULE = Rule(
    id="frontmatter-delimiters",
    severity="error",
    summary="SKILL.md lacks the opening or closing '---' of its YAML frontmatter.",
    rationale=(
        "Hosts read the name and description from the frontmatter; without both "
        "delimiters there is no frontmatter and the skill cannot be listed."
    ),
    bad="# My skill\nname: my-skill",
    good="---\nname: my-skill\ndescription: Does X. Use when Y.\n---\n# My skill",
    check=_check,
    target="manifest",
    spec=True,
)
