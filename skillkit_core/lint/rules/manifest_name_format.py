"""name-format: ``name`` is 1-64 lowercase letters, digits and single inner hyphens.

Safe fix: rewrite the name in that form (lower case, other characters turned into single
hyphens, no leading or trailing hyphen). Where the folder has the same name, renaming the
skill alone would make the name differ from it: the rename of both is a suggestion.
"""

from __future__ import annotations

from collections.abc import Iterator

from skillkit_core.lint.diagnostic import Fix, LintDiagnostic, TextEdit
from skillkit_core.lint.rule import Rule
from skillkit_core.manifest.folder import SkillFolder
from skillkit_core.manifest.spec import name_problems, suggested_name
from skillkit_core.manifest.yaml_text import anchored, scalar


def _check(folder: SkillFolder) -> Iterator[LintDiagnostic]:
    if not folder.exists or not folder.frontmatter_ok:
        return
    name = folder.text_value("name")
    if name is None or not name.strip():
        return  # required-field reports a missing or empty name
    for problem in name_problems(name):
        yield RULE.diagnostic(problem, range=folder.value_range("name"), file=folder.skill_md)


def _rename(folder: SkillFolder) -> tuple[str, TextEdit] | None:
    name = folder.text_value("name") or ""
    better = suggested_name(name)
    span = folder.span("name")
    if not better or better == name or span is None:
        return None
    return better, TextEdit(span.value_range, anchored(span.anchor, scalar(better)))


def _named_after_its_folder(folder: SkillFolder) -> bool:
    """Whether the name is the folder's: renaming the skill alone would break that."""
    return folder.text_value("name") == folder.folder_name


def _fix(folder: SkillFolder, diagnostic: LintDiagnostic) -> Fix | None:
    rename = _rename(folder)
    if rename is None or _named_after_its_folder(folder):
        return None
    better, edit = rename
    return Fix(title=f"Rename the skill to '{better}'", edits=(edit,))


def _suggest(folder: SkillFolder, diagnostic: LintDiagnostic) -> tuple[Fix, ...]:
    """The rename, to choose, where the folder has the name too: the skill and its folder
    are then renamed together (the name alone would be name-folder-mismatch)."""
    rename = _rename(folder)
    if rename is None or not _named_after_its_folder(folder):
        return ()
    better, edit = rename
    folder_rename = folder.renamed(better)
    if folder_rename is None:
        return ()  # a folder of that name is there already: no rename to offer
    title = f"Rename the skill and its folder to '{better}'"
    return (Fix(title=title, edits=(edit,), renames=(folder_rename,)),)


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
    suggest=_suggest,
)
