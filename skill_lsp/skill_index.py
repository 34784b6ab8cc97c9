"""The hand-written skills of the workspace, as symbols: each skill's name and where it is
declared, and the markdown files that may name skills (every SKILL.md and the markdown
files of each skill's folder, such as ``references/*.md``).

What the index holds:

- a *layout*, found by walking the workspace roots: the SKILL.md files and the markdown
  files of their folders. It is kept until :meth:`SkillIndex.invalidate` (files changed
  on disk, a document saved);
- the text of each file, cached by modification time and size, so a file edited by
  another program is read again on the next question without a new walk;
- open documents, whose unsaved text replaces what is on disk (and whose SKILL.md counts
  even outside the roots).

:meth:`SkillIndex.view` reads the disk and must run off the event loop
(:func:`current_view` does that); a :class:`IndexView` is an immutable answer to one
question.
"""

from __future__ import annotations

import asyncio
import os
import threading
from dataclasses import dataclass, field, replace
from typing import Any

from pygls.uris import from_fs_path

from skill_lsp.index import DocumentKind, is_markdown
from skill_lsp.positions import LineMap, split_lines
from skill_lsp.workspace import SKIPPED_FOLDERS, StampCache, read_text, walk_skill_files
from skillkit_core.lint.diagnostic import SourceRange

# Markdown files read per skill folder (references of a huge skill stop here).
MAX_FILES_PER_SKILL = 200


@dataclass(frozen=True)
class IndexedFile:
    """One markdown file: its text as an editor has it, and its version when open."""

    path: str
    uri: str
    text: str
    version: int | None = None
    _cache: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def lines(self) -> list[str]:
        """The text's lines, split as LSP counts them."""
        found = self._cache.get("lines")
        if found is None:
            found = self._cache["lines"] = split_lines(self.text)
        return found

    def line_map(self, codec: Any) -> LineMap:
        """Position conversions for this text."""
        return LineMap(self.lines, codec)


@dataclass(frozen=True)
class SkillEntry:
    """One skill: its name (``name:``, or the folder's name without one), its folder, its
    SKILL.md, and the range of the ``name:`` value (None without one)."""

    name: str
    folder: str
    skill_md: IndexedFile
    name_range: SourceRange | None
    description: str = ""


@dataclass(frozen=True)
class IndexView:
    """The skills and markdown files of the workspace at one moment."""

    skills: tuple[SkillEntry, ...]
    files: tuple[IndexedFile, ...]

    def named(self, name: str) -> list[SkillEntry]:
        """The skills called ``name`` (more than one when a name is declared twice)."""
        return [skill for skill in self.skills if skill.name == name]

    @property
    def names(self) -> tuple[str, ...]:
        """Every skill name, each once."""
        return tuple(dict.fromkeys(skill.name for skill in self.skills))

    def file(self, path: str) -> IndexedFile | None:
        """The indexed file at ``path``."""
        return next((item for item in self.files if item.path == path), None)


def skill_entry(item: IndexedFile) -> SkillEntry:
    """The skill a SKILL.md declares (never raises on a half-typed frontmatter)."""
    from skillkit_core.manifest.parse import parse_skill_md

    folder = os.path.dirname(item.path)
    parsed = parse_skill_md(item.text, item.path)
    written = parsed.frontmatter.get("name")
    description = parsed.frontmatter.get("description")
    description = description if isinstance(description, str) else ""
    span = parsed.fields.get("name")
    if isinstance(written, str) and written.strip() and span is not None:
        name = written.strip()
        where = span.value_range
        line = item.lines[where.line] if where.line < len(item.lines) else ""
        column = line.find(name, where.column)
        if column >= 0 and where.line == where.end_line:
            name_range = SourceRange(where.line, column, where.line, column + len(name))
            return SkillEntry(name, folder, item, name_range, description)
        return SkillEntry(name, folder, item, None, description)
    return SkillEntry(os.path.basename(folder), folder, item, None, description)


class SkillIndex:
    """The workspace's skills; one per server (:func:`skill_index`)."""

    def __init__(self, server: Any) -> None:
        self.server = server
        self._layout: tuple[str, ...] | None = None
        # Each file as last read, by path: kept while its time stamp and size stay.
        self._disk: StampCache[IndexedFile] = StampCache(_read_indexed)
        self._entries: dict[str, tuple[IndexedFile, SkillEntry]] = {}
        # Questions are answered in the loop's thread pool, possibly two at once.
        self._lock = threading.Lock()

    def invalidate(self) -> None:
        """Walk the roots again on the next question (files were added, moved, removed)."""
        self._layout = None

    def _walk(self) -> tuple[str, ...]:
        paths: list[str] = []
        for path in walk_skill_files(list(self.server.roots)):
            if os.path.basename(path).lower() != "skill.md":
                continue
            paths.append(path)
            paths.extend(_folder_markdown(os.path.dirname(path)))
        return tuple(dict.fromkeys(paths))

    def view(self, open_files: list[IndexedFile]) -> IndexView:
        """The index now: the layout's files as on disk, open documents over them
        (blocking: reads the disk)."""
        with self._lock:
            return self._view(open_files)

    def _view(self, open_files: list[IndexedFile]) -> IndexView:
        if self._layout is None:
            self._layout = self._walk()
            self._disk.keep_only(self._layout)
        opened = {item.path: item for item in open_files}
        files: dict[str, IndexedFile] = {}
        for path in self._layout:
            if path in opened:
                files[path] = opened[path]
                continue
            item = self._disk.get(path)
            if item is not None:
                files[path] = item
        skill_folders = {
            os.path.dirname(path) for path in files if os.path.basename(path).lower() == "skill.md"
        }
        for path, item in opened.items():
            if path in files:
                continue
            if os.path.basename(path).lower() == "skill.md":
                files[path] = item
                skill_folders.add(os.path.dirname(path))
        # Open markdown files inside a skill folder that the walk has not seen yet.
        for path, item in opened.items():
            if path not in files and any(_inside(path, folder) for folder in skill_folders):
                files[path] = item
        skills = []
        for path, item in files.items():
            if os.path.basename(path).lower() == "skill.md":
                skills.append(self._entry(item))
        if len(self._entries) > len(skills):
            self._entries = {path: kept for path, kept in self._entries.items() if path in files}
        return IndexView(tuple(skills), tuple(files.values()))

    def _entry(self, item: IndexedFile) -> SkillEntry:
        """The skill of a SKILL.md, parsed again only when its text changed."""
        kept = self._entries.get(item.path)
        if kept is not None and (kept[0] is item or kept[0].text == item.text):
            entry = kept[1]
            if entry.skill_md is not item:  # same text, newer version: point at it
                entry = replace(entry, skill_md=item)
                self._entries[item.path] = (item, entry)
            return entry
        entry = skill_entry(item)
        self._entries[item.path] = (item, entry)
        return entry


def _read_indexed(path: str) -> IndexedFile | None:
    text = read_text(path)
    return None if text is None else IndexedFile(path, from_fs_path(path) or path, text)


def _inside(path: str, folder: str) -> bool:
    return path.startswith(folder + os.sep)


def _folder_markdown(folder: str) -> list[str]:
    """The markdown files of one skill folder other than its SKILL.md."""
    found: list[str] = []
    for current, folders, names in os.walk(folder):
        folders[:] = sorted(f for f in folders if f not in SKIPPED_FOLDERS)
        for name in sorted(names):
            if is_markdown(name) and not (current == folder and name.lower() == "skill.md"):
                found.append(os.path.join(current, name))
                if len(found) >= MAX_FILES_PER_SKILL:
                    return found
    return found


def skill_index(server: Any) -> SkillIndex:
    """The server's skill index (made on first use)."""
    index = getattr(server, "skill_index", None)
    if index is None:
        index = SkillIndex(server)
        server.skill_index = index
    return index


def open_markdown(server: Any) -> list[IndexedFile]:
    """The open markdown documents (SKILL.md and others) with their unsaved text."""
    found = []
    for snapshot in server.documents.all():
        path = snapshot.path
        if not path or not (snapshot.kind == DocumentKind.SKILL_MD or is_markdown(path)):
            continue
        found.append(IndexedFile(path, snapshot.uri, snapshot.text, snapshot.version))
    return found


async def current_view(server: Any) -> IndexView:
    """The index with every open document's text, read off the event loop."""
    index = skill_index(server)
    opened = open_markdown(server)
    return await asyncio.get_running_loop().run_in_executor(None, index.view, opened)
