"""script-shebang: scripts an agent runs directly start with a ``#!`` line.

Not reported where a missing ``#!`` does not matter: test modules (a test runner runs
them), browser JavaScript, modules other scripts import and nothing runs directly, and
scripts the skill runs through their interpreter (``python scripts/x.py``, ``uv run``,
``node server.cjs``, in SKILL.md or any other markdown file or script of the folder).

Also reported: a ``#!`` line behind a byte-order mark, which the kernel does not see.

Safe fix: add ``#!/usr/bin/env -S uv run --script`` to a PEP 723 script, else the usual
``#!/usr/bin/env <interpreter>`` line for the file's extension, and set the executable
bit (a ``#!`` line without it is the next finding, script-not-executable). None for a
script whose second line declares its encoding (PEP 263: it would become the third).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from skillkit_core.lint.diagnostic import Fix, LintDiagnostic, SourceRange, TextEdit
from skillkit_core.lint.rule import Rule
from skillkit_core.manifest.folder import FolderFile, SkillFolder
from skillkit_core.manifest.scripts import (
    EXTENSIONS,
    is_browser_script,
    is_test_file,
    only_imported,
    script_shebang,
    states_interpreter,
)

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


def _neighbours(folder: SkillFolder, script: FolderFile) -> tuple[list[str], list[str]]:
    """The texts that may say how ``script`` runs (SKILL.md, the folder's other markdown
    files and scripts) and, among them, the other scripts."""
    others = [
        (text, is_script)
        for relative, text, is_script in folder.documents
        if relative != script.relative
    ]
    return [text for text, _ in others], [text for text, is_script in others if is_script]


def run_by_interpreter(folder: SkillFolder, file: FolderFile) -> bool:
    """Whether the skill says which interpreter runs ``file`` (``uv run scripts/x.py``,
    ``node server.cjs``), so the script is never run by its path."""
    documents, _ = _neighbours(folder, file)
    return states_interpreter(file.relative.rsplit("/", 1)[-1], documents)


def _needs_shebang(folder: SkillFolder, file: FolderFile, text: str) -> bool:
    name = file.relative.rsplit("/", 1)[-1]
    if is_test_file(name) or is_browser_script(name, text):
        return False
    documents, scripts = _neighbours(folder, file)
    return not (states_interpreter(name, documents) or only_imported(name, text, scripts))


def _check(folder: SkillFolder) -> Iterator[LintDiagnostic]:
    if not folder.exists:
        return
    for file, text in runnable_scripts(folder):
        if text.startswith("\ufeff#!"):
            yield RULE.diagnostic(
                f"{file.relative} starts with a byte-order mark before its '#!' line; the "
                "kernel sees a '#!' only in a file's first two bytes and runs it as a shell "
                "script: save it as UTF-8 without a BOM",
                range=_START,
                file=folder.display(file),
            )
            continue
        if text.startswith("#!") or not _needs_shebang(folder, file, text):
            continue
        yield RULE.diagnostic(
            f"{file.relative} has no '#!' line, and nothing in the skill says which "
            "interpreter runs it; without one the script cannot be run directly and the "
            "agent must guess",
            range=_START,
            file=folder.display(file),
        )


def _fix(folder: SkillFolder, diagnostic: LintDiagnostic) -> Fix | None:
    if diagnostic.file is None:
        return None
    script = next((f for f in folder.scripts if folder.display(f) == diagnostic.file), None)
    text = folder.read_text(script) if script is not None else None
    if text is None or text.startswith("\ufeff#!") or _coding_on_line_two(text):
        return None
    shebang = script_shebang(diagnostic.file.rsplit("/", 1)[-1], text)
    if shebang is None:
        return None
    edit = TextEdit(_START, shebang + "\n", file=diagnostic.file)
    # The title names the edit alone: an editor applies it as text; 'skillkit check
    # --fix' also sets the executable bit the fix lists.
    return Fix(title=f"Add '{shebang}'", edits=(edit,), executable=(diagnostic.file,))


_CODING = re.compile(r"[ \t\f]*#.*?coding[:=]")
"""A source encoding declaration (PEP 263), which Python reads on line 1 or 2 only."""


def _coding_on_line_two(text: str) -> bool:
    """Whether a '#!' line added above would push the encoding declaration of the second
    line to the third, where Python no longer reads it."""
    lines = text.split("\n", 2)
    return len(lines) > 1 and not _CODING.match(lines[0]) and bool(_CODING.match(lines[1]))


RULE = Rule(
    id="script-shebang",
    severity="warning",
    summary="A script in scripts/ that is run directly has no #! line.",
    rationale=(
        "Agents run bundled scripts by path; a shebang names the interpreter so the script "
        "runs the same way on every host. Not reported for test modules, browser "
        "JavaScript, modules other scripts import, or scripts the skill runs through their "
        "interpreter (python scripts/x.py, uv run, node server.cjs). The fix writes "
        "'#!/usr/bin/env -S uv run --script' for a PEP 723 script and sets the executable bit."
    ),
    bad="scripts/extract.py starting with 'import sys', run as scripts/extract.py",
    good="scripts/extract.py starting with '#!/usr/bin/env python3'",
    check=_check,
    target="manifest",
    fix=_fix,
)
