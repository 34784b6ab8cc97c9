"""frontmatter-duplicate-key: each frontmatter key appears once."""

from __future__ import annotations

from collections.abc import Iterator

from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.lint.rule import Rule
from skillkit_core.manifest.folder import SkillFolder


def _check(folder: SkillFolder) -> Iterator[LintDiagnostic]:
    for problem in folder.parsed.problems:
        if problem.code == "duplicate-key":
            yield RULE.diagnostic(problem.message, range=problem.range, file=folder.skill_md)


RULE = Rule(
    id="frontmatter-duplicate-key",
    severity="error",
    summary="A frontmatter key (or a metadata key) is written twice.",
    rationale=(
        "YAML forbids duplicate keys: strict parsers reject the file, lenient ones keep one "
        "of the values, so hosts disagree on what the skill says."
    ),
    bad="---\nname: a\ndescription: first\ndescription: second\n---",
    good="---\nname: a\ndescription: first\n---",
    check=_check,
    target="manifest",
    spec=True,
)
