"""frontmatter-not-mapping: the frontmatter is a YAML mapping of keys to values."""

from __future__ import annotations

from collections.abc import Iterator

from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.lint.rule import Rule
from skillkit_core.manifest.folder import SkillFolder


def _check(folder: SkillFolder) -> Iterator[LintDiagnostic]:
    problem = folder.parsed.problem("not-a-mapping")
    if problem is not None:
        yield RULE.diagnostic(problem.message, range=problem.range, file=folder.skill_md)


RULE = Rule(
    id="frontmatter-not-mapping",
    severity="error",
    summary="The frontmatter is empty, a list or a single value instead of a mapping.",
    rationale="The specification's fields (name, description, ...) are keys of a mapping.",
    bad="---\n- name: my-skill\n---",
    good="---\nname: my-skill\ndescription: Does X. Use when Y.\n---",
    check=_check,
    target="manifest",
    spec=True,
)
