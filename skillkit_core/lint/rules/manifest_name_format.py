"""name-format: ``name`` is 1-64 lowercase letters, digits and single inner hyphens.

Safe fix: rewrite the name in that form (lower case, other characters turned into single
hyphens, no leading or trailing hyphen).
"""

from __future__ import annotations

from collections.abc import Iterator

from skillkit_core.lint.diagnostic import Fix, LintDiagnostic, TextEdit
from skillkit_core.lint.rule import Rule
from skillkit_core.manifest.folder import SkillFolder
from skillkit_core.manifest.spec import name_problems, suggested_name
from skillkit_core.manifest.yaml_text import scalar


def _check(folder: SkillFolder) -> Iterator[LintDiagnostic]:
    if not folder.exists or not folder.frontmatter_ok:
        return
    name = folder.text_value("name")
    if name is None or not name.strip():
        return  # required-field reports a missing or empty name
    for problem in name_problems(name):
        yield RULE.diagnostic(problem, range=folder.value_range("name"), file=folder.skill_md)


def _fix(folder: SkillFolder, diagnostic: LintDiagnostic) -> Fix | None:
    name = folder.text_value("name") or ""
    better = suggested_name(name)
    if not better or better == name:
        return None
    edit = TextEdit(folder.value_range("name"), scalar(better))
    return Fix(title=f"Rename the skill to '{better}'", edits=(edit,))


RULE = Rule(
    id="name-format",
    severity="error",
    summary="The name is not 1-64 lowercase letters, digits and single hyphens.",
    rationale=(
        "The specification restricts names so they work as folder names, command names "
        "and identifiers everywhere; hosts reject names outside the pattern."
    ),
    bad="name: PDF_Tools-",
    good="name: pdf-tools",
    check=_check,
    target="manifest",
    fix=_fix,
    spec=True,
)
