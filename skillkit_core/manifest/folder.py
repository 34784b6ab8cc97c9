"""A skill folder as the SKILL.md rules see it: the parsed SKILL.md plus lazily computed
views of the folder (its files, scripts, body scan), each computed once per check.
"""

from __future__ import annotations

import os
import posixpath
import stat
from functools import cached_property
from pathlib import Path

from skillkit_core.lint.diagnostic import SourceRange
from skillkit_core.manifest.markdown import (
    NO_SUPPRESSIONS,
    Link,
    MarkdownScan,
    Suppressions,
    find_suppressions,
    may_mention_paths,
    scan_links,
    scan_markdown,
)
from skillkit_core.manifest.parse import (
    SKILL_MD,
    FieldSpan,
    ParsedSkillMd,
    read_regular_file,
    read_skill_md,
)
from skillkit_core.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Listing a folder stops after this many files (a skill folder is small; a mistaken
# target such as a home directory must not hang the check).
MAX_FILES = 5000
SKIPPED_FOLDERS = frozenset({".git", "node_modules", "__pycache__", ".venv", "venv"})
# Text files above this size are not scanned for secrets.
MAX_SCAN_BYTES = 1024 * 1024

OPENING_LINE = SourceRange(0, 0, 0, 3)

_YAML_TYPES = {
    "tag:yaml.org,2002:int": "a number",
    "tag:yaml.org,2002:float": "a number",
    "tag:yaml.org,2002:bool": "a boolean",
    "tag:yaml.org,2002:null": "null",
    "tag:yaml.org,2002:timestamp": "a date",
}


class FolderFile(NamedTuple):
    """A file inside the skill folder: its ``/``-separated path relative to the folder,
    its full path and its stat."""

    relative: str
    path: str
    mode: int
    size: int


class SkillFolder:
    """The target of ``manifest`` rules: one folder that should hold a SKILL.md.

    ``root`` is the folder; ``parsed`` its SKILL.md; ``skill_md`` the path diagnostics
    name (as given by the caller, not resolved).
    """

    def __init__(self, root: str | Path, parsed: ParsedSkillMd | None = None) -> None:
        self.root = root if isinstance(root, Path) else Path(root)
        self.parsed = parsed if parsed is not None else read_skill_md(self.root)
        self.skill_md = self.parsed.path or str(self.root / SKILL_MD)
        self._texts: dict[str, str | None] = {}

    @cached_property
    def manifest_name(self) -> str:
        """The manifest's file name (``SKILL.md``, or ``skill.md`` where that was found)."""
        return os.path.basename(self.skill_md)

    @property
    def folder_name(self) -> str:
        """The folder's own name (of the resolved path, so ``.`` works)."""
        return self.root.name or self.root.resolve().name

    @cached_property
    def exists(self) -> bool:
        """True when a SKILL.md (or skill.md) was found and read."""
        return self.parsed.problem("missing-file") is None

    @cached_property
    def frontmatter_ok(self) -> bool:
        """True when the frontmatter is a mapping whose keys could be read."""
        parsed = self.parsed
        if not parsed.has_frontmatter:
            return False
        fatal = {"not-a-mapping", "too-complex"}
        if any(p.code in fatal for p in parsed.problems):
            return False
        return bool(parsed.fields) or not any(p.code == "invalid-yaml" for p in parsed.problems)

    @property
    def frontmatter(self) -> dict[str, Any]:
        """The parsed frontmatter mapping."""
        return self.parsed.frontmatter

    def span(self, key: str) -> FieldSpan | None:
        """Where top-level ``key`` is written, if it is."""
        return self.parsed.fields.get(key)

    def key_range(self, key: str) -> SourceRange:
        """The range of ``key``; the opening delimiter when the key is absent."""
        span = self.span(key)
        return span.key_range if span else OPENING_LINE

    def value_range(self, key: str) -> SourceRange:
        """The range of ``key``'s value; the opening delimiter when the key is absent."""
        span = self.span(key)
        return span.value_range if span else OPENING_LINE

    def text_value(self, key: str) -> str | None:
        """``key``'s value as text, the way a string-only YAML reader sees it.

        A string is returned as is; a plain scalar that YAML types as a number, boolean,
        date or null is returned as written (``1.0``, ``yes``); lists, mappings and absent
        keys give ``None``.
        """
        span = self.span(key)
        if span is None or key not in self.frontmatter:
            return None
        value = self.frontmatter[key]
        if isinstance(value, str):
            return value
        return span.scalar

    @staticmethod
    def yaml_type(span: FieldSpan) -> str | None:
        """How implicit-typing YAML parsers read a plain scalar, when not as a string."""
        if span.style != "plain":
            return None
        return _YAML_TYPES.get(span.tag)

    @cached_property
    def lines(self) -> list[str]:
        """SKILL.md's lines without line breaks."""
        return self.parsed.lines

    @cached_property
    def body_scan(self) -> MarkdownScan:
        """Links, file mentions, code and dynamic commands of the body."""
        start = self.parsed.body_start_line
        return scan_markdown(self.lines[start:], start)

    def scan_of(self, file: FolderFile) -> MarkdownScan | None:
        """The markdown scan of a folder file (``None`` when it cannot be read as text),
        made once per check: several rules read the same references."""
        scans = self._scans
        if file.relative not in scans:
            text = self.read_text(file)
            scans[file.relative] = None if text is None else scan_markdown(text.splitlines())
        return scans[file.relative]

    def links_of(self, file: FolderFile) -> list[Link]:
        """The links of a markdown file of the folder (none when it cannot be read), by
        the whole scan when one was made, else by the faster links-only scan."""
        scan = self._scans.get(file.relative)
        if scan is None:
            scan = self._link_scan(file)
            return [] if scan is None else scan.links
        return scan.links

    def links_and_mentions_of(self, file: FolderFile) -> MarkdownScan | None:
        """A scan of a folder file with at least its links and path mentions filled in
        (``None`` when it cannot be read as text): the whole scan, or the faster
        links-only one when the text cannot mention a path."""
        text = self.read_text(file)
        if text is None:
            return None
        if file.relative in self._scans or may_mention_paths(text):
            return self.scan_of(file)
        return self._link_scan(file)

    def _link_scan(self, file: FolderFile) -> MarkdownScan | None:
        """:func:`scan_links` of a folder file, made once per check."""
        scans = self._link_scans
        if file.relative not in scans:
            text = self.read_text(file)
            scans[file.relative] = None if text is None else scan_links(text)
        return scans[file.relative]

    @cached_property
    def _scans(self) -> dict[str, MarkdownScan | None]:
        return {}

    @cached_property
    def _link_scans(self) -> dict[str, MarkdownScan | None]:
        return {}

    @cached_property
    def suppressions(self) -> Suppressions:
        """The ``skillkit: ignore[...]`` markers in SKILL.md."""
        if "skillkit" not in self.parsed.text:  # every marker names it
            return NO_SUPPRESSIONS
        return find_suppressions(self.lines)

    @cached_property
    def files(self) -> list[FolderFile]:
        """Every regular file under the folder (sorted, bounded, junk folders skipped).

        A symbolic link to a folder is entered only when the folder lies inside the skill
        folder and is not one the walk is already inside (a link to an ancestor is a
        cycle: walked once). Folders and entries that cannot be read are recorded in
        :attr:`unreadable`."""
        found: list[FolderFile] = []
        self._folders: set[str] = {""}
        # Each folder to list with the folders the walk went through to reach it.
        pending: list[tuple[str, str, tuple[str, ...]]] = [("", str(self.root), ())]
        listed = 0
        while pending and len(found) < MAX_FILES and listed < MAX_FILES:
            relative_dir, current, chain = pending.pop()
            listed += 1
            try:
                entries = sorted(os.scandir(current), key=lambda entry: entry.name)
            except OSError as error:
                self._cannot_read(relative_dir.rstrip("/") or ".", error)
                continue
            inside = (*chain, current)
            for entry in entries:
                relative = f"{relative_dir}{entry.name}"
                try:
                    if entry.is_dir():
                        if entry.name not in SKIPPED_FOLDERS:
                            self._folders.add(relative)
                            if not entry.is_symlink() or self._may_enter(entry.path, inside):
                                pending.append((relative + "/", entry.path, inside))
                        continue
                    info = entry.stat()
                except FileNotFoundError:  # a dangling symbolic link: no file
                    continue
                except OSError as error:
                    self._cannot_read(relative, error)
                    continue
                if _is_regular(info.st_mode):
                    found.append(FolderFile(relative, entry.path, info.st_mode, info.st_size))
                    if entry.is_symlink() and not self._within(entry.path):
                        self._outside.add(relative)
        found.sort(key=lambda file: file.relative)
        self._complete = len(found) < MAX_FILES
        return found[:MAX_FILES]

    @cached_property
    def unreadable(self) -> dict[str, str]:
        """Files and folders (relative paths, ``.`` for the folder itself) that could not
        be listed or read so far, each with the reason."""
        return {}

    @cached_property
    def _outside(self) -> set[str]:
        """Files listed through a symbolic link that leads out of the folder (not read)."""
        return set()

    @cached_property
    def _real_root(self) -> str:
        return os.path.realpath(self.root)

    def _within(self, path: str) -> bool:
        real = os.path.realpath(path)
        return real == self._real_root or real.startswith(self._real_root.rstrip(os.sep) + os.sep)

    def _may_enter(self, link: str, chain: tuple[str, ...]) -> bool:
        """Whether the walk enters the folder a symbolic link names: not outside the
        skill folder, not one of the folders (``chain``) the walk is inside already.
        Asked only of links, so a folder without any costs no extra system call."""
        if not self._within(link):
            return False
        target = os.stat(link)
        for folder in chain:
            info = os.stat(folder)
            if (info.st_dev, info.st_ino) == (target.st_dev, target.st_ino):
                return False
        return True

    def _cannot_read(self, relative: str, error: OSError) -> None:
        self.unreadable[relative] = (error.strerror or type(error).__name__).lower()

    @cached_property
    def _file_names(self) -> frozenset[str]:
        return frozenset(file.relative for file in self.files)

    def has_path(self, relative: str) -> bool:
        """True when ``relative`` (as :meth:`inside` returns it) is a file or folder here."""
        names = self._file_names
        if relative in names or relative in self._folders:
            return True
        return not self._complete and os.path.exists(os.path.join(self.root, relative))

    def is_file(self, relative: str) -> bool:
        """True when ``relative`` (as :meth:`inside` returns it) is a file here."""
        if relative in self._file_names:
            return True
        return not self._complete and os.path.isfile(os.path.join(self.root, relative))

    @cached_property
    def documents(self) -> list[tuple[str, str, bool]]:
        """``(relative path, text, is a script)`` of the folder's markdown files and
        scripts (a file under ``scripts/`` or with a script extension), SKILL.md first:
        where a skill says how its scripts run. Read once per check."""
        from skillkit_core.manifest.scripts import EXTENSIONS

        found = [(self.manifest_name, self.parsed.text, False)]
        for file in self.files:
            if file.relative == self.manifest_name:
                continue
            name = file.relative.rsplit("/", 1)[-1]
            dot = name.rfind(".")
            extension = name[dot:].lower() if dot > 0 else ""
            script = extension in EXTENSIONS or file.relative.startswith("scripts/")
            if not script and extension not in (".md", ".markdown"):
                continue
            text = self.read_text(file)
            if text is not None:
                found.append((file.relative, text, script))
        return found

    def matches(self, pattern: str) -> bool:
        """True when a file or folder here matches the glob ``pattern`` (``*``, ``?``,
        ``[...]``; relative to the folder, ``/``-separated)."""
        import fnmatch

        names = self._file_names
        found = fnmatch.filter(names, pattern) or fnmatch.filter(self._folders, pattern)
        return bool(found)

    @cached_property
    def scripts(self) -> list[FolderFile]:
        """Files directly inside ``scripts/`` (the entry points an agent runs)."""
        return [
            f
            for f in self.files
            if f.relative.startswith("scripts/") and f.relative.count("/") == 1
        ]

    def read_text(self, file: FolderFile) -> str | None:
        """A folder file's text, or ``None`` when it is large, binary, unreadable (then
        recorded in :attr:`unreadable`) or reached through a link out of the folder.

        Read once per check: several rules look at the same scripts."""
        if file.relative not in self._texts:
            self._texts[file.relative] = self._read(file)
        return self._texts[file.relative]

    def _read(self, file: FolderFile) -> str | None:
        if file.size > MAX_SCAN_BYTES or file.relative in self._outside:
            return None
        try:
            data = read_regular_file(file.path, MAX_SCAN_BYTES + 1)
        except OSError as error:
            self._cannot_read(file.relative, error)
            return None
        if data is None or len(data) > MAX_SCAN_BYTES or b"\x00" in data[:8192]:
            return None
        return data.decode("utf-8", errors="replace")

    def display(self, file: FolderFile) -> str:
        """The path diagnostics use for a folder file."""
        return str(self.root / file.relative)

    @staticmethod
    def inside(relative: str) -> str | None:
        """``relative`` normalised (``a/../b`` to ``b``), or ``None`` when it leaves the
        folder. Lexical on purpose: the check runs on hundreds of links, and a symlink
        that escapes is the runtime's business, not a lint finding."""
        normal = posixpath.normpath(relative.replace("\\", "/"))
        if normal == ".." or normal.startswith("../") or normal.startswith("/"):
            return None
        return "" if normal == "." else normal


def _is_regular(mode: int) -> bool:
    return stat.S_ISREG(mode)
