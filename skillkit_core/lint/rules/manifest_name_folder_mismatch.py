"""name-folder-mismatch: ``name`` equals the folder's name (compared after NFKC)."""

from __future__ import annotations

from collections.abc import Iterator

from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.lint.rule import Rule
from skillkit_core.manifest.folder import SkillFolder
from skillkit_core.manifest.spec import normalized


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
    spec=True,
)
