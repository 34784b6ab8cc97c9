"""A skill folder as the SKILL.md rules see it: the parsed SKILL.md plus lazily computed
views of the folder (its files, scripts, body scan), each computed once per check.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterator
from functools import cached_property

from skillkit_core import path_text
from skillkit_core.lint.diagnostic import SourceRange
from skillkit_core.manifest.listing import MAX_FILES as MAX_FILES
from skillkit_core.manifest.listing import SKIPPED_FOLDERS as SKIPPED_FOLDERS
from skillkit_core.manifest.listing import FolderFile, Snapshot, list_folder
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
    parse_skill_md_bytes,
    read_regular_file,
    read_skill_md,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from os import PathLike
    from typing import Any

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


OUTSIDE_TEXT_MAX = 256 * 1024
"""The largest file outside a skill folder that a rule reads (:meth:`SkillFolder.
outside_text`)."""


def read_outside(path: str) -> bytes | None:
    """The bytes :meth:`SkillFolder.outside_text` reads of ``path`` (``None``: no regular
    file of at most :data:`OUTSIDE_TEXT_MAX` bytes there)."""
    from skillkit_core.regular_file import read_whole_file

    try:
        return read_whole_file(path, OUTSIDE_TEXT_MAX)
    except OSError:
        return None


def outside_digest(data: bytes | None) -> str:
    """What :meth:`SkillFolder.outside_text` keeps of a file's bytes (``None``: no file
    read)."""
    from skillkit_core.fast_hash import blake2b

    return "none" if data is None else "blake2b:" + blake2b(data, digest_size=24).hexdigest()


class SkillFolder:
    """The target of ``manifest`` rules: one folder that should hold a SKILL.md.

    ``root_text`` is the folder (written as ``str(Path(...))`` writes it, kept as text:
    pathlib costs a one-folder check a tenth of its time); ``parsed`` its SKILL.md;
    ``skill_md`` the path diagnostics name (as given by the caller, not resolved). With a
    ``snapshot`` of the folder, its files are read from there instead of the disk.
    """

    def __init__(
        self,
        root: str | PathLike[str],
        parsed: ParsedSkillMd | None = None,
        snapshot: Snapshot | None = None,
    ) -> None:
        self.root_text = path_text.pure(os.fspath(root))
        self._snapshot = snapshot
        self.parsed = parsed if parsed is not None else self._read_manifest()
        self.skill_md = self.parsed.path or path_text.join(self.root_text, SKILL_MD)
        self._texts: dict[str, str | None] = {}
        # What rules asked about paths outside the folder: absolute path -> exists, or
        # the digest of its text (:func:`outside_digest`) for a file a rule read.
        self.outside_answers: dict[str, bool | str] = {}

    @cached_property
    def manifest_name(self) -> str:
        """The manifest's file name (``SKILL.md``, or ``skill.md`` where that was found)."""
        return os.path.basename(self.skill_md)

    @property
    def manifest_size(self) -> int | None:
        """The manifest's size in bytes (of the snapshot's copy when there is one);
        ``None`` when it cannot be told."""
        if self._snapshot is not None:
            data = self._snapshot.contents.get(self.manifest_name)
            if data is not None:
                return len(data)
        try:
            return os.path.getsize(self.skill_md)
        except OSError:
            return None

    @property
    def manifest_is_link(self) -> bool:
        """Whether the manifest is a symbolic link (some hosts pass over such a file)."""
        return os.path.islink(self.skill_md)

    @property
    def folder_name(self) -> str:
        """The folder's own name (of the resolved path, so ``.`` works)."""
        return path_text.name(self.root_text) or os.path.basename(os.path.realpath(self.root_text))

    def _read_manifest(self) -> ParsedSkillMd:
        """The manifest :func:`read_skill_md` finds (``SKILL.md``, else ``skill.md``),
        from the snapshot when it holds that file."""
        if self._snapshot is not None:
            for name in (SKILL_MD, "skill.md"):
                data = self._snapshot.contents.get(name)
                if data is not None:
                    return parse_skill_md_bytes(data, os.path.join(self.root_text, name))
                if os.path.lexists(os.path.join(self.root_text, name)):
                    break  # there but not in the snapshot (a link out of the folder)
        return read_skill_md(self.root_text)

    def outside_exists(self, path: str | PathLike[str]) -> bool:
        """Whether ``path``, outside the folder, exists (for a rule that looks beside the
        folder, as a rename's target). Every answer is kept in :attr:`outside_answers`:
        the result cache of ``skillkit check`` keeps a folder's findings only while each
        answer stays the same."""
        exists = os.path.exists(path)
        # A text read there already is the stronger answer (its digest says this too).
        self.outside_answers.setdefault(os.path.abspath(path), exists)
        return exists

    def renamed(self, name: str) -> tuple[str, str] | None:
        """``(folder, new path)`` to rename the folder to ``name`` where it is, or
        ``None`` when something has that path already. Checked from inside (``.``), the
        folder is named by its absolute path: ``.`` cannot be renamed."""
        source = self.root_text
        if os.path.basename(source) in ("", ".", ".."):
            source = os.path.abspath(source)
        target = path_text.join(path_text.parent(source), name)
        return None if self.outside_exists(target) else (source, target)

    @cached_property
    def plugin_root(self) -> str | None:
        """The folder of the plugin the skill is part of (:mod:`skillkit_core.manifest.
        plugins`), or ``None``; looked up once per check, through :meth:`outside_exists`."""
        from skillkit_core.manifest.plugins import plugin_root

        return plugin_root(self.root_text, self.outside_exists)

    def in_plugin(self, relative: str) -> bool:
        """Whether ``relative`` (a path from the folder that leaves it) names an existing
        file or folder of the skill's plugin, there wherever the plugin is installed."""
        root = self.plugin_root
        if root is None:
            return False
        target = os.path.normpath(os.path.join(os.path.abspath(self.root_text), relative))
        return os.path.commonpath([root, target]) == root and self.outside_exists(target)

    def outside_text(self, path: str) -> str | None:
        """The text of the regular file ``path``, outside the folder, when it is UTF-8 of
        at most :data:`OUTSIDE_TEXT_MAX` bytes (``None`` otherwise); its digest is kept in
        :attr:`outside_answers`, as :meth:`outside_exists` keeps its answers."""
        data = read_outside(path)
        self.outside_answers[os.path.abspath(path)] = outside_digest(data)
        try:
            return None if data is None else data.decode("utf-8")
        except UnicodeDecodeError:
            return None

    @cached_property
    def refused_tabs(self) -> tuple[SourceRange, ...]:
        """Where the frontmatter has a tab the reference validator refuses (see
        :func:`~skillkit_core.manifest.parse.refused_tabs`), for ``yaml-not-strict`` and
        the strict validator's verdict."""
        from skillkit_core.manifest.parse import refused_tabs

        first = self.parsed.yaml_start_line
        return tuple(
            SourceRange(first + line, column, first + line, column + 1)
            for line, column in refused_tabs(self.parsed.yaml_text)
        )

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
        """Every regular file under the folder (sorted, bounded, junk folders skipped:
        :func:`~skillkit_core.manifest.listing.list_folder`). Folders and entries that
        cannot be read are recorded in :attr:`unreadable`."""
        snapshot = self._snapshot
        listing = list_folder(self.root_text) if snapshot is None else snapshot.listing
        self._folders = listing.folders
        self._outside.update(listing.outside)
        self.unreadable.update(listing.unreadable)
        self._complete = listing.complete
        return listing.files

    @cached_property
    def unreadable(self) -> dict[str, str]:
        """Files and folders (relative paths, ``.`` for the folder itself) that could not
        be listed or read so far, each with the reason."""
        return {}

    @cached_property
    def _outside(self) -> set[str]:
        """Files listed through a symbolic link that leads out of the folder (not read)."""
        return set()

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
        return not self._complete and os.path.exists(os.path.join(self.root_text, relative))

    def is_file(self, relative: str) -> bool:
        """True when ``relative`` (as :meth:`inside` returns it) is a file here."""
        if relative in self._file_names:
            return True
        return not self._complete and os.path.isfile(os.path.join(self.root_text, relative))

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
            data = self._bytes(file.relative, file.path, MAX_SCAN_BYTES + 1)
        except OSError as error:
            self._cannot_read(file.relative, error)
            return None
        if data is None or len(data) > MAX_SCAN_BYTES or b"\x00" in data[:8192]:
            return None
        return data.decode("utf-8", errors="replace")

    def _bytes(self, relative: str, path: str, limit: int) -> bytes | None:
        """Up to ``limit`` bytes of a file of the folder: from the snapshot when there
        is one holding it, else read (``None``: no regular file there)."""
        if self._snapshot is not None:
            data = self._snapshot.contents.get(relative)
            if data is not None:
                return data[:limit]
        return read_regular_file(path, limit)

    def text_of(self, path: str) -> str | None:
        """The whole text of the file at ``path`` (as a finding names it; undecodable
        bytes replaced), or ``None`` when it is not read: no regular file, a file linked
        from outside the skill, or one over ``MAX_SCAN_BYTES``. A file of the snapshot is
        read from there; SKILL.md is the parsed text."""
        if path == self.skill_md:
            return self.parsed.text
        relative = self._relative_names.get(path)
        if self._snapshot is not None:
            data = None if relative is None else self._snapshot.contents.get(relative)
            if data is not None:
                return data.decode("utf-8", errors="replace")
        if relative is not None and relative in self._outside:
            return None  # linked from outside the skill: not read (a 3 GB file was)
        try:
            data = read_regular_file(path, MAX_SCAN_BYTES + 1)
        except OSError:
            return None
        if data is None or len(data) > MAX_SCAN_BYTES:
            return None  # a FIFO, a device, or larger than any file the check scans
        return data.decode("utf-8", errors="replace")

    def checked_text(self, path: str) -> str | None:
        """The text the check read of the file at ``path`` (as a finding names it), not
        read again: SKILL.md's parsed text, or a folder file's :meth:`read_text`;
        ``None`` for any other file."""
        if path == self.skill_md:
            return self.parsed.text
        relative = self._relative_names.get(path)
        file = None if relative is None else self._files_by_name.get(relative)
        return None if file is None else self.read_text(file)

    @cached_property
    def _files_by_name(self) -> dict[str, FolderFile]:
        return {file.relative: file for file in self.files}

    @cached_property
    def _relative_names(self) -> dict[str, str]:
        return {self.display(file): file.relative for file in self.files}

    def display(self, file: FolderFile) -> str:
        """The path diagnostics use for a folder file."""
        return path_text.join(self.root_text, file.relative)

    @staticmethod
    def paths_named(scan: MarkdownScan, base: str) -> Iterator[tuple[str, SourceRange]]:
        """(folder-relative path, range) of each link and path mention of ``scan`` (of a
        file in the folder ``base``, relative to the skill's) that stays in the folder;
        globs in mentions are kept as written."""
        from skillkit_core.manifest.links import local_target, mention_path

        for link in scan.links:
            target = local_target(link.target)
            if target is None or target.absolute:
                continue
            joined = target.path if target.from_root else posixpath.join(base, target.path)
            relative = SkillFolder.inside(joined)
            if relative is not None:
                yield relative, link.range
        for mention in scan.mentions:
            relative = SkillFolder.inside(mention_path(mention.path))
            if relative is not None:
                yield relative, mention.range

    @staticmethod
    def inside(relative: str) -> str | None:
        """``relative`` normalised (``a/../b`` to ``b``), or ``None`` when it leaves the
        folder. Lexical on purpose: the check runs on hundreds of links, and a symlink
        that escapes is the runtime's business, not a lint finding."""
        normal = posixpath.normpath(relative.replace("\\", "/"))
        if normal == ".." or normal.startswith("../") or normal.startswith("/"):
            return None
        return "" if normal == "." else normal
