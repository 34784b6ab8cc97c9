"""The files of a skill folder as its checks see them: one bounded walk.

:class:`~skillkit_core.manifest.folder.SkillFolder` lists its folder with
:func:`list_folder`, and so does the result cache of ``skillkit check``
(:mod:`skillkit_core.lint.result_cache`) when it works out what a check of the folder
reads: both must see the same files. This module imports nothing but the standard
library's ``os`` and ``stat`` (and :mod:`skillkit_core.regular_file`, whose
:func:`read_regular_file` reads one file of it, SKILL.md, a rule's file or the cache's
snapshot, without ever waiting on a FIFO).
"""

from __future__ import annotations

import os
import stat

from skillkit_core.named_tuple import NamedTuple
from skillkit_core.regular_file import read_regular_file as read_regular_file

# Listing a folder stops after this many files (a skill folder is small; a mistaken
# target such as a home directory must not hang the check).
MAX_FILES = 5000
SKIPPED_FOLDERS = frozenset({".git", "node_modules", "__pycache__", ".venv", "venv"})


class FolderFile(NamedTuple):
    """A file inside the skill folder: its ``/``-separated path relative to the folder,
    its full path and its stat."""

    relative: str
    path: str
    mode: int
    size: int


class Listing(NamedTuple):
    """What :func:`list_folder` found.

    ``files`` are the regular files (sorted by relative path, at most :data:`MAX_FILES`);
    ``folders`` the relative paths of the folders walked into or seen (``""`` for the
    folder itself); ``outside`` the files listed through a symbolic link that leads out
    of the folder; ``unreadable`` the entries that could not be listed, with the reason;
    ``complete`` is False when the walk stopped at :data:`MAX_FILES`; ``links`` maps the
    relative path of every symbolic link met to the real path it leads to (what the
    walk's decisions about links rest on)."""

    files: list[FolderFile]
    folders: set[str]
    outside: set[str]
    unreadable: dict[str, str]
    complete: bool
    links: dict[str, str]


class Snapshot(NamedTuple):
    """A folder's listing and the bytes of each of its files, read once (by the result
    cache, whose key is made of them): a check given a snapshot reads the folder's files
    from it, so its findings are those of the content the key covers."""

    listing: Listing
    contents: dict[str, bytes]


def list_folder(root: str) -> Listing:
    """Every regular file under ``root`` (sorted, bounded, junk folders skipped).

    A symbolic link to a folder is entered only when the folder lies inside ``root`` and
    is not one the walk is already inside (a link to an ancestor is a cycle: walked
    once). Folders and entries that cannot be read are recorded, not raised."""
    walk = _Walk(root)
    found: list[FolderFile] = []
    # Each folder to list with the folders the walk went through to reach it.
    pending: list[tuple[str, str, tuple[str, ...]]] = [("", root, ())]
    listed = 0
    while pending and len(found) < MAX_FILES and listed < MAX_FILES:
        relative_dir, current, chain = pending.pop()
        listed += 1
        try:
            entries = sorted(os.scandir(current), key=lambda entry: entry.name)
        except OSError as error:
            walk.cannot_read(relative_dir.rstrip("/") or ".", error)
            continue
        inside = (*chain, current)
        for entry in entries:
            relative = f"{relative_dir}{entry.name}"
            try:
                if entry.is_symlink():
                    walk.links[relative] = os.path.realpath(entry.path)
                if entry.is_dir():
                    if entry.name not in SKIPPED_FOLDERS:
                        walk.folders.add(relative)
                        if not entry.is_symlink() or walk.may_enter(entry.path, inside):
                            pending.append((relative + "/", entry.path, inside))
                    continue
                info = entry.stat()
            except FileNotFoundError:  # a dangling symbolic link: no file
                continue
            except OSError as error:
                walk.cannot_read(relative, error)
                continue
            if stat.S_ISREG(info.st_mode):
                found.append(FolderFile(relative, entry.path, info.st_mode, info.st_size))
                if entry.is_symlink() and not walk.within(entry.path):
                    walk.outside.add(relative)
            else:  # a FIFO would block whoever reads it; none can be packaged
                walk.unreadable[relative] = f"{SPECIAL_FILE} ({_special_kind(info.st_mode)})"
    found.sort(key=lambda file: file.relative)
    complete = len(found) < MAX_FILES
    return Listing(
        found[:MAX_FILES], walk.folders, walk.outside, walk.unreadable, complete, walk.links
    )


SPECIAL_FILE = "not a regular file"
"""How :func:`list_folder` begins the reason for an entry that is no file, folder or link
to one (a FIFO, a socket, a device)."""


def _special_kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a special file"


class _Walk:
    """What :func:`list_folder` gathers besides the files."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.folders: set[str] = {""}
        self.outside: set[str] = set()
        self.unreadable: dict[str, str] = {}
        self.links: dict[str, str] = {}
        self._real_root: str | None = None

    def cannot_read(self, relative: str, error: OSError) -> None:
        self.unreadable[relative] = (error.strerror or type(error).__name__).lower()

    def within(self, path: str) -> bool:
        """Whether ``path`` really lies inside the folder (links resolved)."""
        if self._real_root is None:
            self._real_root = os.path.realpath(self.root)
        real = os.path.realpath(path)
        root = self._real_root
        return real == root or real.startswith(root.rstrip(os.sep) + os.sep)

    def may_enter(self, link: str, chain: tuple[str, ...]) -> bool:
        """Whether the walk enters the folder a symbolic link names: not outside the
        skill folder, not one of the folders (``chain``) the walk is inside already.
        Asked only of links, so a folder without any costs no extra system call."""
        if not self.within(link):
            return False
        target = os.stat(link)
        for folder in chain:
            info = os.stat(folder)
            if (info.st_dev, info.st_ino) == (target.st_dev, target.st_ino):
                return False
        return True
