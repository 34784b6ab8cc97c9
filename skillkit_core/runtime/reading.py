"""Reading skill-scoped files (tier 3: references, assets, anything under the skill folder).

A path is contained first (:func:`~skillkit_core.runtime.paths.resolve_inside`); then a
regular file comes back as text when it is UTF-8 without NUL bytes, else as bytes for the
face to encode; a folder comes back as a listing so an agent can find what a skill ships.
"""

from __future__ import annotations

import mimetypes
import os
from dataclasses import dataclass
from pathlib import Path

from skillkit_core.runtime.errors import MissingSkillFileError, SkillFileError
from skillkit_core.runtime.paths import resolve_inside, utf8_name

DEFAULT_MAX_READ = 8 * 1024 * 1024


@dataclass(frozen=True)
class SkillFile:
    """One read: exactly one of ``text``, ``data`` and ``listing`` is set."""

    skill: str
    path: str
    mime_type: str
    size: int
    text: str | None = None
    data: bytes | None = None
    listing: tuple[str, ...] | None = None


def read_skill_file(
    root: Path,
    path: str,
    *,
    skill: str,
    max_bytes: int = DEFAULT_MAX_READ,
    hidden: frozenset[str] = frozenset(),
) -> SkillFile:
    """Read ``path`` of the skill whose folder is ``root``; the names of its folder in
    ``hidden`` (a built skill's program) are never named in a hint."""
    real = resolve_inside(root, path, skill=skill)
    try:  # a name too long for the system raises here, not only when reading
        if real.is_dir():
            return _listing(real, root, path, skill)
        if not real.exists():
            link = _dangling_link_on(root, path)
            if link is not None:
                where = f"'{path}'" if link == path else f"'{link}', on the way to '{path}',"
                raise SkillFileError(
                    f"{where} in skill '{skill}' is a symlink that leads nowhere (dangling, "
                    "or in a loop)"
                )
            raise MissingSkillFileError(
                f"'{path}' does not exist in skill '{skill}'{_hint(real, root, hidden)}"
            )
        if not real.is_file():
            raise SkillFileError(f"'{path}' in skill '{skill}' is not a regular file")
    except OSError as error:
        raise SkillFileError(f"cannot read '{path}' in skill '{skill}': {error.strerror}") from None
    try:
        size = real.stat().st_size
        if size > max_bytes:
            raise SkillFileError(
                f"'{path}' in skill '{skill}' has {size} bytes; reads are limited to {max_bytes}"
            )
        data = real.read_bytes()
    except OSError as error:
        raise SkillFileError(
            f"cannot read '{path}' in skill '{skill}': {error.strerror}"
        ) from error
    mime = mimetypes.guess_type(real.name)[0]
    text = _as_text(data)
    if text is not None:
        return SkillFile(skill, path, mime or "text/plain", len(data), text=text)
    return SkillFile(skill, path, mime or "application/octet-stream", len(data), data=data)


def _dangling_link_on(root: Path, path: str) -> str | None:
    """The first part of ``path`` (itself or a folder on the way) that is a symbolic
    link leading nowhere."""
    parts = [part for part in path.replace("\\", "/").split("/") if part not in ("", ".")]
    for end in range(1, len(parts) + 1):
        prefix = "/".join(parts[:end])
        candidate = os.path.join(root, prefix)
        if os.path.islink(candidate) and not os.path.exists(candidate):
            return prefix
    return None


def _as_text(data: bytes) -> str | None:
    if b"\x00" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _listing(folder: Path, root: Path, path: str, skill: str) -> SkillFile:
    try:
        entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except OSError as error:
        raise SkillFileError(
            f"cannot list '{path}' in skill '{skill}': {error.strerror}"
        ) from error
    names = tuple(
        entry.name + ("/" if _is_dir(entry) else "") for entry in entries if utf8_name(entry.name)
    )
    return SkillFile(skill, path, "inode/directory", len(names), listing=names)


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _hint(missing: Path, root: Path, hidden: frozenset[str] = frozenset()) -> str:
    """Name the nearest existing folder's entries, to save the agent a round trip (not
    the ``hidden`` names of the skill folder)."""
    parent = missing.parent
    real_root = Path(os.path.realpath(root))
    if not parent.is_dir() or not (parent == real_root or parent.is_relative_to(real_root)):
        return ""
    try:
        left_out = hidden if parent == real_root else frozenset()
        names = sorted(
            entry.name
            for entry in os.scandir(parent)
            if utf8_name(entry.name) and entry.name not in left_out
        )[:20]
    except OSError:
        return ""
    where = parent.relative_to(real_root).as_posix()
    where = "the skill folder" if where == "." else f"{where}/"
    return f" ({where} has: {', '.join(names) or 'nothing'})"
