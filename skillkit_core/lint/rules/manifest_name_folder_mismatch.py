"""name-folder-mismatch: ``name`` equals the folder's name (compared after NFKC; the
folder's name keeps any space around it).

No safe fix: renaming the skill changes its public name, renaming the folder its path.
Both are offered as suggestions (an editor's choice), neither is applied by ``--fix``.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator

from skillkit_core.lint.diagnostic import Fix, LintDiagnostic, TextEdit
from skillkit_core.lint.rule import Rule
from skillkit_core.manifest.folder import SkillFolder
from skillkit_core.manifest.spec import name_problems, normalized
from skillkit_core.manifest.yaml_text import anchored, scalar


def _check(folder: SkillFolder) -> Iterator[LintDiagnostic]:
    if not folder.exists or not folder.frontmatter_ok:
        return
    name = folder.text_value("name")
    if name is None or not name.strip():
        return
    # The folder's name as it is (NFKC only): "pdf " is no folder named pdf, and hosts
    # that match the two (the reference validator among them) see the space.
    if normalized(name) != unicodedata.normalize("NFKC", folder.folder_name):
        yield RULE.diagnostic(
            f"name '{normalized(name)}' does not match the folder name "
            f"'{folder.folder_name}'; rename one of them",
            range=folder.value_range("name"),
            file=folder.skill_md,
        )


def _suggest(folder: SkillFolder, diagnostic: LintDiagnostic) -> tuple[Fix, ...]:
    """Rename the skill after its folder, or the folder after the skill: either changes
    something others rely on (the public name users and other skills call it by, or the
    path it is installed and linked at), so neither is a safe fix; a person chooses."""
    suggestions: list[Fix] = []
    wanted = folder.folder_name
    span = folder.span("name")
    if span is not None and wanted and not name_problems(wanted) and normalized(wanted) == wanted:
        name = normalized(folder.text_value("name") or "")
        suggestions.append(
            Fix(
                title=f"Rename the skill to '{wanted}' (its public name '{name}' changes)",
                edits=(TextEdit(span.value_range, anchored(span.anchor, scalar(wanted))),),
            )
        )
    name = normalized(folder.text_value("name") or "")
    rename = folder.renamed(name) if name and not name_problems(name) else None
    if rename is not None:
        suggestions.append(
            Fix(
                title=f"Rename the folder to '{name}' (paths to '{wanted}' change)",
                edits=(),
                renames=(rename,),
            )
        )
    return tuple(suggestions)


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
    suggest=_suggest,
)
