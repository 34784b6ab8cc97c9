"""script-shebang: scripts an agent runs start with a ``#!`` line.

Safe fix: add the usual ``#!/usr/bin/env <interpreter>`` line for the file's extension.
"""

from __future__ import annotations

from collections.abc import Iterator

from skillkit_core.lint.diagnostic import Fix, LintDiagnostic, SourceRange, TextEdit
from skillkit_core.lint.rule import Rule
from skillkit_core.manifest.folder import FolderFile, SkillFolder
from skillkit_core.manifest.scripts import EXTENSIONS, default_shebang

_START = SourceRange(0, 0, 0, 0)


def runnable_scripts(folder: SkillFolder) -> Iterator[tuple[FolderFile, str]]:
    """Entry-point scripts in ``scripts/`` with their text (helpers, data files skipped)."""
    for file in folder.scripts:
        name = file.relative.rsplit("/", 1)[-1]
        if name.startswith(("_", ".")):
            continue
        dot = name.rfind(".")
        if dot > 0 and name[dot:].lower() not in EXTENSIONS:
            continue
        text = folder.read_text(file)
        if text is not None:
            yield file, text


def _check(folder: SkillFolder) -> Iterator[LintDiagnostic]:
    if not folder.exists:
        return
    for file, text in runnable_scripts(folder):
        if text.startswith("#!"):
            continue
        yield RULE.diagnostic(
            f"{file.relative} has no '#!' line; without it the script cannot be run "
            "directly and the agent must guess its interpreter",
            range=_START,
            file=folder.display(file),
        )


def _fix(folder: SkillFolder, diagnostic: LintDiagnostic) -> Fix | None:
    if diagnostic.file is None:
        return None
    shebang = default_shebang(diagnostic.file)
    if shebang is None:
        return None
    edit = TextEdit(_START, shebang + "\n", file=diagnostic.file)
    return Fix(title=f"Add '{shebang}'", edits=(edit,))


RULE = Rule(
    id="script-shebang",
    severity="warning",
    summary="A script in scripts/ has no #! line.",
    rationale=(
        "Agents run bundled scripts by path; a shebang names the interpreter so the script "
        "runs the same way on every host."
    ),
    bad="scripts/extract.py starting with 'import sys'",
    good="scripts/extract.py starting with '#!/usr/bin/env python3'",
    check=_check,
    target="manifest",
    fix=_fix,
)
