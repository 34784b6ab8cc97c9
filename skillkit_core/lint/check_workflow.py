"""``skillkit check`` for Python skill files: find them, check each in the load worker.

:func:`check_entry` checks one ``file.py[:attr]`` in the shared worker process (see
:mod:`skillkit_core.lint.load_worker`) and shows paths the way the user wrote them;
:func:`find_skill_sources` finds the Python files of a folder that define skills.
"""

from __future__ import annotations

import os
import re
from collections.abc import Collection

from skillkit_core.lint.diagnostic import Fix, LintDiagnostic

TYPE_CHECKING = False
if TYPE_CHECKING:
    from os import PathLike
    from pathlib import Path

    from skillkit_core.lint.load_worker import EntryReport

# A file that defines skills imports skillkit_core (a cheap test before indexing it).
_IMPORTS_SKILLKIT = re.compile(
    r"^\s*(?:from\s+skillkit_core[\w.]*\s+import|import\s+skillkit_core)", re.M
)
_BUILDERS = re.compile(r"\b(?:skill|reference|module)\s*\(")
_MAX_SCAN_BYTES = 1024 * 1024


def check_entry(path: Path, attr: str | None = None) -> EntryReport:
    """Check ``path`` (optionally only ``attr``) in the worker process; file names in
    the findings are shown relative to how ``path`` was given."""
    # Imported here: a directory walk asks :func:`defines_skills` of every Python file it
    # meets (a tree of skill folders holds helper scripts), and most define no skill.
    from dataclasses import replace

    from skillkit_core.lint.load_worker import shared_worker

    report = shared_worker().check(path, attr)
    shown = [_shown(d, path) for d in report.diagnostics]
    return replace(report, diagnostics=shown)


def _shown(diagnostic: LintDiagnostic, given: Path) -> LintDiagnostic:
    def shown_fix(fix: Fix) -> Fix:
        edits = tuple(
            e._replace(file=display_path(e.file, given)) if e.file else e for e in fix.edits
        )
        return fix._replace(edits=edits)

    fix = None if diagnostic.fix is None else shown_fix(diagnostic.fix)
    suggestions = tuple(shown_fix(f) for f in diagnostic.suggestions)
    file = display_path(diagnostic.file, given) if diagnostic.file else None
    return diagnostic._replace(file=file, fix=fix, suggestions=suggestions)


def display_path(file: str, given: Path) -> str:
    """``file`` (absolute, from the worker) spelled like ``given``: relative paths stay
    relative to the folder the user named, absolute ones stay absolute."""
    if given.is_absolute():
        return file
    base = os.path.abspath(given.parent)
    if file == os.path.abspath(given):
        return str(given)
    if file.startswith(base + os.sep):
        return os.path.normpath(os.path.join(str(given.parent), os.path.relpath(file, base)))
    cwd = os.getcwd()
    if file.startswith(cwd + os.sep):
        return os.path.relpath(file, cwd)
    return file


def find_skill_sources(root: Path, skipped: Collection[str] = ()) -> list[Path]:
    """Python files under ``root`` that define skills: they import skillkit_core and
    hold a ``skill(...)``, ``reference(...)`` or ``module(...)`` builder chain (read from
    the syntax index, so calls in strings or comments do not count). Folders named in
    ``skipped`` and folders holding a SKILL.md (built or hand-written skills) are not
    entered."""
    from pathlib import Path

    found: list[Path] = []
    for current, folders, names in os.walk(root):
        if current != str(root) and any(n in names for n in ("SKILL.md", "skill.md")):
            folders[:] = []
            continue
        folders[:] = sorted(f for f in folders if f not in skipped)
        for name in sorted(names):
            if name.endswith(".py"):
                path = Path(current) / name
                if defines_skills(path):
                    found.append(path)
    return found


def defines_skills(path: str | PathLike[str]) -> bool:
    """Whether the Python file at ``path`` defines a skill, reference or module."""
    from skillkit_core.regular_file import read_whole_file

    try:
        # Not open(): a FIFO named *.py would block, /dev/zero never end.
        data = read_whole_file(os.fspath(path), _MAX_SCAN_BYTES)
    except OSError:
        return False
    if data is None:
        return False
    text = data.decode("utf-8", "replace")
    if not _IMPORTS_SKILLKIT.search(text) or not _BUILDERS.search(text):
        return False
    from skillkit_core.source.index import index_source

    return bool(index_source(text).chains)
