"""Skill files of the workspace that are not open: found, indexed, linted in the background.

Python files count as skill files when they import skillkit and build a skill, module or
reference; ``SKILL.md`` files always count. Disk snapshots are cached by modification
time, read and indexed in a thread. Their findings go to :class:`DiagnosticsHub` (push or
pull alike); workspace symbols read their indexes.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Generic, TypeVar

from pygls.uris import from_fs_path

from skill_lsp.index import DocumentKind, Snapshot, kind_of
from skill_lsp.log import log_message
from skill_lsp.positions import split_lines

SKIPPED_FOLDERS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".venv",
        "venv",
        "node_modules",
        "__pycache__",
        "site-packages",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        "build",
        "dist",
    }
)
MAX_FILES = 2000
MAX_BYTES = 1024 * 1024
_MARKERS = ("skillkit_core",)


def inside_roots(path: str, roots: list[str]) -> bool:
    """Whether ``path`` (symlinks followed) lies strictly inside one of ``roots`` (real
    paths)."""
    real = os.path.realpath(path)
    return any(real.startswith(root.rstrip(os.sep) + os.sep) for root in roots)


def enclosing_skill_md(path: str, levels: int = 6) -> str | None:
    """The SKILL.md of the nearest folder above ``path`` (up to ``levels``) holding one."""
    folder = os.path.dirname(path)
    for _ in range(levels):
        candidate = os.path.join(folder, "SKILL.md")
        if os.path.isfile(candidate):
            return candidate
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return None


def walk_skill_files(roots: list[str]) -> Iterator[str]:
    """Candidate files under ``roots``: ``*.py`` and ``SKILL.md``, junk folders skipped."""
    seen = 0
    for root in roots:
        for current, folders, names in os.walk(root):
            folders[:] = sorted(f for f in folders if f not in SKIPPED_FOLDERS)
            for name in sorted(names):
                if name.endswith(".py") or name.lower() == "skill.md":
                    yield os.path.join(current, name)
                    seen += 1
                    if seen >= MAX_FILES:
                        return


def read_regular(path: str, limit: int) -> bytes | None:
    """Up to ``limit`` bytes of ``path`` when it is a readable regular file (None
    otherwise): a FIFO, a device such as ``/dev/zero`` or a symlink to one is never read
    (the core's :func:`read_regular_file`, which opens without blocking)."""
    from skillkit_core.manifest.parse import read_regular_file

    try:
        return read_regular_file(path, limit)
    except OSError:
        return None


def read_text(path: str) -> str | None:
    """A file's text (None when unreadable, binary, too large or not a regular file)."""
    data = read_regular(path, MAX_BYTES + 1)
    if data is None or len(data) > MAX_BYTES or b"\0" in data:
        return None
    return data.decode("utf-8", errors="surrogateescape")


_Loaded = TypeVar("_Loaded")


class StampCache(Generic[_Loaded]):
    """What ``load`` made of each file, kept while the file's modification time and size
    stay: a file another program changes is loaded again on the next question, one that
    is gone is forgotten. Not locked: callers that share one across threads lock it."""

    def __init__(self, load: Callable[[str], _Loaded | None]) -> None:
        self._load = load
        self._kept: dict[str, tuple[tuple[float, int], _Loaded | None]] = {}

    def keep_only(self, paths: Iterable[str]) -> None:
        """Forget every file but ``paths`` (after a walk: the others are gone)."""
        wanted = set(paths)
        self._kept = {path: kept for path, kept in self._kept.items() if path in wanted}

    def get(self, path: str) -> _Loaded | None:
        """What ``load`` makes of ``path`` as it is now (None when it is gone)."""
        try:
            info = os.stat(path)
        except OSError:
            self._kept.pop(path, None)
            return None
        stamp = (info.st_mtime, info.st_size)
        kept = self._kept.get(path)
        if kept is not None and kept[0] == stamp:
            return kept[1]
        loaded = self._load(path)
        self._kept[path] = (stamp, loaded)
        return loaded


class WorkspaceFiles:
    """Disk snapshots of the workspace's skill files, and their background linting."""

    def __init__(self, server: Any) -> None:
        self.server = server
        self._snapshots: StampCache[Snapshot] = StampCache(self._load)
        self._task: asyncio.Task[None] | None = None
        self.scanned = False
        self._refreshing: set[asyncio.Task[None]] = set()

    def disk_snapshot(self, path: str) -> Snapshot | None:
        """A snapshot of ``path`` as saved (None for files that are not skill files)."""
        return self._snapshots.get(path)

    def _load(self, path: str) -> Snapshot | None:
        uri = from_fs_path(path) or path
        kind = kind_of(uri)
        if kind == DocumentKind.OTHER:
            return None
        text = read_text(path)
        if text is None:
            return None
        if kind == DocumentKind.PYTHON and not any(marker in text for marker in _MARKERS):
            return None
        snapshot = Snapshot(
            uri=uri,
            path=path,
            version=0,
            text=text,
            kind=kind,
            lines=split_lines(text),
            codec=self.server.documents.codec,
        )
        if kind == DocumentKind.PYTHON and not snapshot.index.chains:
            return None
        return snapshot

    def skill_files(self) -> list[Snapshot]:
        """Disk snapshots of every skill file under the workspace roots (blocking)."""
        found = []
        for path in walk_skill_files(self.server.roots):
            snapshot = self.disk_snapshot(path)
            if snapshot is not None:
                found.append(snapshot)
        return found

    # -- background lint --------------------------------------------------------------

    def start(self, delay: float = 0.5) -> None:
        """Lint every skill file of the workspace in the background (once; restartable)."""
        if self._task is not None and not self._task.done():
            self._task.cancel()
        self._task = asyncio.ensure_future(self._lint_all(delay))

    async def stop(self) -> None:
        """Cancel background linting."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task

    async def _lint_all(self, delay: float) -> None:
        await asyncio.sleep(delay)
        if not self.server.roots:
            return
        loop = asyncio.get_running_loop()
        try:
            snapshots = await loop.run_in_executor(None, self.skill_files)
        except Exception as error:
            log_message(self.server, f"workspace scan failed: {error!r}")
            return
        self.scanned = True
        for snapshot in snapshots:
            if self.server.documents.get(snapshot.uri) is not None:
                continue
            try:
                await self.lint_file(snapshot)
            except asyncio.CancelledError:
                raise
            except Exception as error:
                log_message(self.server, f"linting {snapshot.path} failed: {error!r}")

    def in_roots(self, path: str) -> bool:
        """Whether the file ``path`` lies in one of the workspace folders."""
        return inside_roots(path, [os.path.realpath(root) for root in self.server.roots])

    def refresh_soon(self, path: str, *, folder_changed: bool = False) -> None:
        """:meth:`refresh` in the background."""
        self.spawn(self.refresh(path, folder_changed=folder_changed))

    def spawn(self, work: Any) -> None:
        """Run the coroutine ``work`` in the background, kept until it ends."""
        task = asyncio.ensure_future(work)
        self._refreshing.add(task)
        task.add_done_callback(self._refreshing.discard)

    async def refresh(self, path: str, *, folder_changed: bool = False) -> None:
        """A file changed on disk: lint it again (when it is not open). With
        ``folder_changed``, the file is the same but its folder is not (a reference made
        or removed): its kept findings are dropped first."""
        loop = asyncio.get_running_loop()
        snapshot = await loop.run_in_executor(None, self.disk_snapshot, path)
        uri = from_fs_path(path) or path
        if snapshot is None:
            self.server.diagnostics.publish_disk(uri, [])
            return
        if folder_changed:
            snapshot._cache.pop("manifest", None)
        if self.server.documents.get(snapshot.uri) is None:
            await self.lint_file(snapshot)

    async def lint_file(self, snapshot: Snapshot) -> None:
        """Compute and report the findings of one file on disk."""
        hub = self.server.diagnostics
        if snapshot.kind == DocumentKind.SKILL_MD:
            await hub.manifest_ready(snapshot)
            await hub.publish_related(snapshot, snapshot._cache.get("manifest", []))
        elif snapshot.kind == DocumentKind.PYTHON and self.server.semantic.enabled:
            from skill_lsp.semantic import build_result

            cached = await self.server.semantic.analyze_file(snapshot.path or "", snapshot.text)
            result = build_result(snapshot, cached, self.server.settings.host)
            snapshot = snapshot.with_semantic(result, result.diagnostics)
            await hub.publish_related(snapshot, list(result.diagnostics))
        hub.publish_disk(snapshot.uri, hub.lsp_diagnostics(snapshot))
