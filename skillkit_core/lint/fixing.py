"""Apply the safe fixes diagnostics carry (``skillkit check --fix``)."""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from skillkit_core.lint.diagnostic import LintDiagnostic, TextEdit, text_digest

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class FixResult:
    """How many fixes were applied, to which files, and why some files were left alone."""

    applied: int
    files: tuple[str, ...]
    refused: tuple[str, ...] = ()


def apply_fixes(diagnostics: Iterable[LintDiagnostic]) -> FixResult:
    """Write every fix of ``diagnostics`` to disk.

    Edits are grouped per file; identical edits (two diagnostics sharing one fix) are
    applied once; an edit overlapping one already taken is skipped (a later run picks
    it up). Positions are 0-based lines and code-point columns, as the core reports them.
    Files a fix names as ``executable`` get the executable bit wherever they are readable.
    """
    by_file: dict[str, list[TextEdit]] = {}
    read_as: dict[str, set[str]] = {}  # file -> digests of the texts fixes were made for
    fixes: list[tuple[set[str], list[str]]] = []  # per fix: files edited, made executable
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
        for file, digest in diagnostic.fix.based_on:
            read_as.setdefault(file, set()).add(digest)
        fixes.append(({str(file) for file, _ in edits}, list(diagnostic.fix.executable)))
    changed: list[str] = []
    refused: dict[str, str] = {}
    for file, edits in by_file.items():
        try:
            if _apply_to_file(Path(file), edits, read_as.get(file, set())):
                changed.append(file)
        except OSError as error:
            refused[file] = f"{file}: {error.strerror or error}"
    # A fix counts, and its executable bits are set, only when none of its edits was
    # refused: a script made executable without the shebang its fix adds would not run.
    whole = [fix for fix in fixes if not fix[0] & refused.keys()]
    for file in dict.fromkeys(name for _edited, names in whole for name in names):
        if make_executable(file) and file not in changed:
            changed.append(file)
    return FixResult(len(whole), tuple(changed), tuple(refused.values()))


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


def _apply_to_file(path: Path, edits: list[TextEdit], read_as: set[str]) -> bool:
    """Whether ``path`` was changed; ``OSError`` when it may or can not be. ``read_as``:
    the digests of the texts the edits were made for (none known: no check)."""
    if path.is_symlink():
        # What it leads to may lie outside the skill (the check did not read it there).
        raise OSError(0, "a symbolic link; fix the file it leads to by hand")
    try:  # newline="": line breaks as written (read_text made every CRLF an LF)
        with open(path, encoding="utf-8", newline="") as handle:
            text = handle.read()
    except UnicodeDecodeError:
        raise OSError(0, "not UTF-8 text; fix it by hand") from None
    if read_as and read_as != {text_digest(text)}:
        raise OSError(0, "changed since it was checked; check it again")
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    found = _LINE_BREAK.search(text)
    if found is not None and found.group() != "\n":  # what a fix inserts, in the file's own
        edits = [_broken_as(edit, found.group()) for edit in edits]
    new_text = apply_edits(text[len(bom) :], edits)
    if new_text == text[len(bom) :]:
        return False
    if new_text.startswith("#!"):
        bom = ""  # the kernel sees a '#!' line only in a file's first two bytes
    _replace(path, (bom + new_text).encode("utf-8"))
    return True


def _broken_as(edit: TextEdit, line_break: str) -> TextEdit:
    """``edit`` with the line breaks it inserts written as ``line_break``, except the one
    ending a ``#!`` line: the kernel reads the interpreter up to a line feed, so a CR
    before it would be part of the interpreter's name (``python3\r``: not found)."""
    text = edit.new_text
    if "\n" not in text and "\r" not in text:
        return edit
    head = ""
    if text.startswith("#!") and (edit.range.line, edit.range.column) == (0, 0):
        head, _, text = text.partition("\n")
        head += "\n"
    return edit._replace(new_text=head + _LINE_BREAK.sub(line_break, text))


def _replace(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` whole or not at all: a new file beside it, with its
    mode and group, renamed over it. In place for a file a rename would change more of
    (another user's, one with other hard links or extended attributes, a group this user
    cannot give) or in a folder that takes no new file."""
    import tempfile

    info = os.stat(path)
    if not info.st_mode & stat.S_IWUSR:
        # A rename over it would replace a file its owner made read-only (root's too).
        raise PermissionError(errno.EACCES, "read-only; make it writable to fix it")
    others = hasattr(os, "getuid") and info.st_uid != os.getuid()
    if info.st_nlink > 1 or others or _extended_attributes(path):
        path.write_bytes(data)
        return
    try:
        fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    except OSError:  # a folder that takes no new file: the file itself may still be written
        path.write_bytes(data)
        return
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.chmod(temporary, info.st_mode & 0o7777)
        if os.stat(temporary).st_gid != info.st_gid:
            try:
                os.chown(temporary, -1, info.st_gid)
            except OSError:  # a group this user may not give
                raise _KeepInPlace from None
        os.replace(temporary, path)
    except _KeepInPlace:
        os.unlink(temporary)
        path.write_bytes(data)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


class _KeepInPlace(Exception):
    """A new file could not carry over what the old one has: write in place."""


def _extended_attributes(path: Path) -> bool:
    try:
        return bool(os.listxattr(path))
    except (AttributeError, OSError):  # not Linux, or a file system without them
        return False


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
