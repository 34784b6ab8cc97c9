"""Apply the safe fixes diagnostics carry (``skillkit check --fix``)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from skillkit_core.lint.diagnostic import LintDiagnostic, TextEdit

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class FixResult:
    """How many fixes were applied, to which files."""

    applied: int
    files: tuple[str, ...]


def apply_fixes(diagnostics: Iterable[LintDiagnostic]) -> FixResult:
    """Write every fix of ``diagnostics`` to disk.

    Edits are grouped per file; identical edits (two diagnostics sharing one fix) are
    applied once; an edit overlapping one already taken is skipped (a later run picks
    it up). Positions are 0-based lines and code-point columns, as the core reports them.
    Files a fix names as ``executable`` get the executable bit wherever they are readable.
    """
    by_file: dict[str, list[TextEdit]] = {}
    executable: list[str] = []
    applied = 0
    for diagnostic in diagnostics:
        if diagnostic.fix is None:
            continue
        edits = [(edit.file or diagnostic.file, edit) for edit in diagnostic.fix.edits]
        if any(file is None for file, _ in edits):
            continue
        for file, edit in edits:
            pending = by_file.setdefault(str(file), [])
            if edit not in pending:
                pending.append(edit)
        executable += [file for file in diagnostic.fix.executable if file not in executable]
        applied += 1
    changed = [file for file, edits in by_file.items() if _apply_to_file(Path(file), edits)]
    changed += [file for file in executable if make_executable(file) and file not in changed]
    return FixResult(applied, tuple(changed))


def make_executable(file: str) -> bool:
    """``chmod +x`` for whoever may read ``file`` (what a fix's ``executable`` asks for);
    True when its mode changed."""
    try:
        mode = os.stat(file).st_mode
        wanted = mode | ((mode & 0o444) >> 2)
        if wanted == mode:
            return False
        os.chmod(file, wanted)
    except OSError:
        return False
    return True


def _apply_to_file(path: Path, edits: list[TextEdit]) -> bool:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    new_text = apply_edits(text[len(bom) :], edits)
    if new_text == text[len(bom) :]:
        return False
    path.write_text(bom + new_text, encoding="utf-8", newline="")
    return True


def apply_edits(text: str, edits: list[TextEdit]) -> str:
    """``text`` with non-overlapping ``edits`` applied (overlapping ones are dropped)."""
    starts = [0, *(m.end() for m in _LINE_BREAK.finditer(text))]

    def offset(line: int, column: int) -> int:
        if line >= len(starts):
            return len(text)
        return min(starts[line] + column, len(text))

    spans = sorted(
        (
            (offset(e.range.line, e.range.column), offset(e.range.end_line, e.range.end_column), e)
            for e in edits
        ),
        key=lambda span: (span[0], span[1]),
    )
    chosen: list[tuple[int, int, TextEdit]] = []
    for start, end, edit in spans:
        if chosen and start < chosen[-1][1]:
            continue
        chosen.append((start, end, edit))
    for start, end, edit in reversed(chosen):
        text = text[:start] + edit.new_text + text[end:]
    return text
