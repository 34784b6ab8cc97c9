"""Path containment for skill-scoped reads and script runs.

Two checks, both always applied: a textual pre-check refuses absolute paths and any ``..``
segment before the file system is touched, then the candidate is resolved with
``os.path.realpath`` (following every symlink) and must still lie inside the skill folder's
own real path. The second check is what stops a symlink inside the skill from pointing at
``/etc/passwd`` or at a sibling skill.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from skillkit_core.runtime.errors import PathRefusedError

# Backslashes count as separators in the pre-check so that "..\\x" is refused too.
_SEGMENTS = re.compile(r"[\\/]+")


def resolve_inside(root: Path, relative: str, *, skill: str, what: str = "path") -> Path:
    """Return the real path of ``relative`` under ``root``, or raise :class:`PathRefusedError`.

    ``skill`` and ``what`` (``path``, ``script``, ``workdir``) only shape the message. The
    returned path need not exist; callers check that themselves.
    """
    _precheck(relative, skill=skill, what=what)
    real_root = Path(os.path.realpath(root))
    real = Path(os.path.realpath(real_root / relative))
    if real != real_root and not real.is_relative_to(real_root):
        raise PathRefusedError(
            f"{what} '{_shown(relative)}' of skill '{skill}' leads outside the skill folder "
            "(through a symlink); only files inside the skill folder can be used"
        )
    return real


def utf8_name(name: str) -> bool:
    """Whether a file name read from the disk is UTF-8 (else it holds the surrogates
    Python decodes its other bytes to). Others cannot be named in a URI, a JSON answer or
    a path an agent sends, so listings leave them out."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def is_inside(path: Path, folder: Path) -> bool:
    """True when the real path of ``path`` is ``folder``'s real path or below it."""
    real = Path(os.path.realpath(path))
    real_folder = Path(os.path.realpath(folder))
    return real == real_folder or real.is_relative_to(real_folder)


# Longer paths and names than POSIX systems take (PATH_MAX, NAME_MAX): refused before
# the file system sees them, which would answer ENAMETOOLONG, after resolving every
# prefix of the path (its cost grows with the square of the number of segments).
MAX_PATH_CHARS = 4096
MAX_NAME_BYTES = 255


def _precheck(relative: str, *, skill: str, what: str) -> None:
    if not isinstance(relative, str) or not relative.strip():
        raise PathRefusedError(f"{what} must be a non-empty path relative to the skill folder")
    if "\x00" in relative:
        raise PathRefusedError(f"{what} {relative!r} contains a NUL character")
    if len(relative) > MAX_PATH_CHARS:
        raise PathRefusedError(
            f"{what} of {len(relative)} characters is longer than any path in a skill folder "
            f"can be ({MAX_PATH_CHARS})"
        )
    if any(
        len(part.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES
        for part in _SEGMENTS.split(relative)
    ):
        raise PathRefusedError(
            f"{what} '{_shown(relative)}' has a name longer than a file name can be "
            f"({MAX_NAME_BYTES} bytes)"
        )
    if os.path.isabs(relative) or relative.startswith(("/", "\\")) or _has_drive(relative):
        raise PathRefusedError(
            f"{what} '{relative}' is absolute; give a path relative to the folder of skill "
            f"'{skill}' (for example references/guide.md)"
        )
    if ".." in _SEGMENTS.split(relative):
        raise PathRefusedError(
            f"{what} '{relative}' contains a '..' segment; paths must stay inside the folder "
            f"of skill '{skill}'"
        )


def _shown(relative: str, limit: int = 80) -> str:
    return relative if len(relative) <= limit else relative[:limit] + "…"


def _has_drive(relative: str) -> bool:
    """``C:`` style prefixes are absolute on Windows; refuse them everywhere."""
    return len(relative) >= 2 and relative[1] == ":" and relative[0].isalpha()
