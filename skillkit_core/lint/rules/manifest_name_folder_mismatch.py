"""name-folder-mismatch: ``name`` equals the folder's name (compared after NFKC).

Safe fix: rewrite the name to the folder's name, when that is itself a valid name.
"""

from __future__ import annotations

from collections.abc import Iterator

from skillkit_core.lint.diagnostic import Fix, LintDiagnostic, TextEdit
from skillkit_core.lint.rule import Rule
from skillkit_core.manifest.folder import SkillFolder
from skillkit_core.manifest.spec import name_problems, normalized
from skillkit_core.manifest.yaml_text import scalar


def _check(folder: SkillFolder) -> Iterator[LintDiagnostic]:
    if not folder.exists or not folder.frontmatter_ok:
        return
    name = folder.text_value("name")
    if name is None or not name.strip():
        return
    if normalized(name) != normalized(folder.folder_name):
        yield RULE.diagnostic(
            f"name '{normalized(name)}' does not match the folder name "
            f"'{folder.folder_name}'; rename one of them",
            range=folder.value_range("name"),
            file=folder.skill_md,
        )


def _fix(folder: SkillFolder, diagnostic: LintDiagnostic) -> Fix | None:
    wanted = folder.folder_name
    if not wanted or name_problems(wanted) or normalized(wanted) != wanted:
        return None
    edit = TextEdit(folder.value_range("name"), scalar(wanted))
    return Fix(title=f"Rename the skill to '{wanted}' to match its folder", edits=(edit,))


RULE = Rule(
    id="name-folder-mismatch",
    severity="error",
    summary="The name differs from the name of the folder holding SKILL.md.",
    rationale=(
        "The specification requires the folder to be named after the skill; hosts look "
        "skills up by folder and refuse or shadow mismatched ones."
    ),
    bad="pdf/SKILL.md with name: pdf-tools",
    good="pdf-tools/SKILL.md with name: pdf-tools",
    check=_check,
    target="manifest",
    fix=_fix,
    spec=True,
)
