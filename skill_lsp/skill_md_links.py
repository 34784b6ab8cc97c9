"""Paths in hand-written skill markdown: links, go-to-definition, completion, script hovers.

The documents are a skill's SKILL.md and the markdown files under its ``references/``.
What counts as a path is the core's markdown scan (``manifest.markdown``): relative link
and image targets, and ``references/…``, ``scripts/…``, ``assets/…`` mentions in prose,
inline code and code blocks; targets are read with the core's ``local_target`` and
``mention_path``, as the linter reads them. Only targets that name an existing file
become links: a missing one is the linter's ``broken-link`` / ``missing-file-reference``.

Link targets are relative to the document's own folder (a reference's ``tables.md`` is
its sibling); mentions and ``{baseDir}/`` targets are relative to the skill folder.
"""

from __future__ import annotations

import os
import re
import weakref
from dataclasses import dataclass
from typing import NamedTuple

from lsprotocol import types
from pygls.uris import from_fs_path

from skill_lsp.index import DocumentKind, Snapshot, is_markdown
from skill_lsp.positions import LineMap, split_lines
from skillkit_core.lint.diagnostic import SourceRange
from skillkit_core.manifest.links import destination_path, link_destination
from skillkit_core.manifest.markdown import MarkdownScan

# Characters of a mention that make it a pattern (a glob or a brace list), not one file.
_PATTERN = re.compile(r"[*?\[{]")
# The cursor inside a link target: ``[text](refer|`` or ``[text](<refer|``.
_LINK_TARGET = re.compile(r"\]\(\s*<?(?P<typed>[^()\s<>]*)$")
# The cursor after a skill folder's ``references/``, ``scripts/`` or ``assets/``.
_FOLDER_PATH = re.compile(
    r"(?:^|(?<=[\s`'\"(=]))(?P<typed>(?:\./)?(?:references|scripts|assets)/(?:[\w.\-]+/)*"
    r"[\w.\-]*)$"
)
# What ends the path segment being completed, after the cursor.
_SEGMENT_END = re.compile(r"[^)\s#/>`'\"]*")
# Lines of a script a hover shows, and the bytes read for them.
SCRIPT_LINES = 10
_SCRIPT_HEAD_BYTES = 4096
# Bytes of a linked markdown file read to find the heading a fragment names.
_MAX_READ = 1024 * 1024
# Entries a completion lists from one folder (a skill folder is small).
MAX_ENTRIES = 500


@dataclass(frozen=True)
class MarkdownPlace:
    """Where a skill markdown document sits: its skill's folder, and the folder its
    relative links start from (the skill folder for SKILL.md, the file's own folder for
    a reference)."""

    root: str
    base: str
    body_start: int


class PathRef(NamedTuple):
    """A path written in the document that names an existing file.

    ``range`` covers the text as written; ``path`` is the file; ``relative`` its
    ``/``-separated path inside the skill folder (``None`` when it lies outside)."""

    range: SourceRange
    written: str
    path: str
    relative: str | None


def markdown_place(snapshot: Snapshot) -> MarkdownPlace | None:
    """The skill a document belongs to, for SKILL.md and markdown under ``references/``
    (None for every other document); the body starts after a frontmatter, a reference's
    too. Kept per document version (a few ``stat`` calls find the skill folder)."""
    if "markdown_place" not in snapshot._cache:
        snapshot._cache["markdown_place"] = _markdown_place(snapshot)
    return snapshot._cache["markdown_place"]


def _markdown_place(snapshot: Snapshot) -> MarkdownPlace | None:
    if snapshot.path is None:
        return None
    folder = os.path.dirname(snapshot.path)
    if snapshot.kind == DocumentKind.SKILL_MD:
        return MarkdownPlace(folder, folder, snapshot.skill_md.body_start_line)
    if snapshot.kind != DocumentKind.OTHER or not is_markdown(snapshot.path):
        return None
    root = _skill_of_reference(folder)
    if root is None:
        return None
    from skillkit_core.manifest.parse import frontmatter_end_line

    closing = frontmatter_end_line(snapshot.lines)
    return MarkdownPlace(root, folder, 0 if closing is None else closing + 1)


def _skill_of_reference(folder: str) -> str | None:
    """The skill folder above ``folder`` when ``folder`` is its ``references/`` or a
    folder inside it (a few ``stat`` calls)."""
    from pathlib import Path

    from skillkit_core.manifest.parse import find_skill_md

    current = Path(folder)
    for candidate in (current, *current.parents):
        if candidate.name == "references":
            root = candidate.parent
            if find_skill_md(root) is not None:
                return str(root)
    return None


# One scan per document version, dropped with the snapshot.
_SCANS: weakref.WeakKeyDictionary[Snapshot, MarkdownScan] = weakref.WeakKeyDictionary()


def scan_of(snapshot: Snapshot, place: MarkdownPlace) -> MarkdownScan:
    """The core's markdown scan of the document's body (cached per version)."""
    found = _SCANS.get(snapshot)
    if found is None:
        from skillkit_core.manifest.markdown import scan_markdown

        start = min(place.body_start, len(snapshot.lines))
        found = scan_markdown(list(snapshot.lines[start:]), start)
        _SCANS[snapshot] = found
    return found


def _candidates(
    snapshot: Snapshot, place: MarkdownPlace, line: int | None = None
) -> list[tuple[SourceRange, str, str]]:
    """``(range, written, path)`` of every link and mention (those of ``line`` only, when
    given: a cursor's question need not read the other 100,000 of a huge document),
    before asking the disk."""
    from skillkit_core.manifest.folder import SkillFolder
    from skillkit_core.manifest.links import local_target, mention_path

    scan = scan_of(snapshot, place)
    found: list[tuple[SourceRange, str, str]] = []
    for link in scan.links:
        if line is not None and link.range.line != line:
            continue
        target = local_target(link.target)
        if target is None or target.absolute:
            continue
        start = place.root if target.from_root else place.base
        found.append((link.range, link.target, os.path.join(start, target.path)))
    for mention in scan.mentions:
        if line is not None and mention.range.line != line:
            continue
        path = mention_path(mention.path)
        # A pattern names no one file; a skill path that climbs out of the skill (the
        # core's lexical check) names none of its files.
        if _PATTERN.search(path) or SkillFolder.inside(path) is None:
            continue
        found.append((mention.range, mention.path, os.path.join(place.root, path)))
    found.sort(key=lambda item: (item[0].line, item[0].column))
    return found


def _resolved(place: MarkdownPlace, where: SourceRange, written: str, path: str) -> PathRef | None:
    path = os.path.normpath(path)
    if not os.path.isfile(path):
        return None
    relative = os.path.relpath(path, place.root)
    inside = not (relative == ".." or relative.startswith(".." + os.sep))
    shown = relative.replace(os.sep, "/") if inside else None
    return PathRef(where, written, path, shown)


def path_refs(snapshot: Snapshot) -> list[PathRef]:
    """Every path in the document naming an existing file (one ``stat`` per file named:
    call it off the event loop)."""
    place = markdown_place(snapshot)
    if place is None:
        return []
    found = []
    # A long skill names the same few files again and again: each is looked up once.
    known: dict[str, PathRef | None] = {}
    for where, written, path in _candidates(snapshot, place):
        if path not in known:
            known[path] = _resolved(place, where, written, path)
        ref = known[path]
        if ref is not None:
            found.append(ref._replace(range=where, written=written))
    return found


def path_ref_at(snapshot: Snapshot, line: int, column: int) -> PathRef | None:
    """The path under (line, column) when it names an existing file."""
    place = markdown_place(snapshot)
    if place is None:
        return None
    for where, written, path in _candidates(snapshot, place, line):
        if where.column <= column <= where.end_column:
            return _resolved(place, where, written, path)
    return None


# -- LSP answers ------------------------------------------------------------------------


def document_links(snapshot: Snapshot, tooltips: bool = False) -> list[types.DocumentLink] | None:
    """``textDocument/documentLink`` for a skill markdown document (None for others);
    with ``tooltips`` (when the client shows them) each names its file."""
    if markdown_place(snapshot) is None:
        return None
    uris: dict[str, str] = {}
    links = []
    for ref in path_refs(snapshot):
        uri = uris.get(ref.path)
        if uri is None:
            uri = uris[ref.path] = from_fs_path(ref.path) or ref.path
        tooltip = (ref.relative or ref.path) if tooltips else None
        links.append(
            types.DocumentLink(range=snapshot.map.range(ref.range), target=uri, tooltip=tooltip)
        )
    return links


def definition(snapshot: Snapshot, line: int, column: int) -> list[types.Location] | None:
    """Go-to-definition on a path: the file it names, at the heading its ``#fragment``
    names when it has one (``#anchor`` alone: a heading of this document). None when
    there is no such file."""
    ref = path_ref_at(snapshot, line, column)
    if ref is None:
        return _anchor_definition(snapshot, line, column)
    where = types.Range(types.Position(0, 0), types.Position(0, 0))
    fragment = ref.written.partition("#")[2]
    if fragment and is_markdown(ref.path):
        lines = _read_lines(ref.path)
        if lines is not None:
            from skill_lsp.skill_md_structure import heading_for

            found = heading_for(lines, fragment)
            if found is not None:
                # In the client's units, as that file's lines count them.
                where = LineMap(lines, snapshot.codec).range(found)
    return [types.Location(uri=from_fs_path(ref.path) or ref.path, range=where)]


def _anchor_definition(snapshot: Snapshot, line: int, column: int) -> list[types.Location] | None:
    place = markdown_place(snapshot)
    if place is None:
        return None
    for link in scan_of(snapshot, place).links:
        where = link.range
        inside = where.line == line and where.column <= column <= where.end_column
        if inside and link.target.startswith("#"):
            from skill_lsp.skill_md_structure import heading_for

            found = heading_for(snapshot.lines, link.target[1:])
            if found is None:
                return None
            return [types.Location(uri=snapshot.uri, range=snapshot.map.range(found))]
    return None


def _read_lines(path: str) -> list[str] | None:
    """The lines of a markdown file (its first megabyte), split where an editor splits
    them, None when it cannot be read."""
    from skill_lsp.workspace import read_regular

    data = read_regular(path, _MAX_READ)
    return None if data is None else split_lines(data.decode("utf-8", errors="replace"))


def completion_items(snapshot: Snapshot, line: int, column: int) -> list | None:
    """Files of the folder being typed: inside a link target (``](…``, relative to the
    document) or after ``references/``, ``scripts/``, ``assets/`` (relative to the skill).
    None when the cursor is in neither."""
    place = markdown_place(snapshot)
    if place is None or line < place.body_start or not 0 <= line < len(snapshot.lines):
        return None
    text = snapshot.lines[line]
    before = text[:column]
    in_code = line in scan_of(snapshot, place).code_lines
    link = None if in_code else _LINK_TARGET.search(before)
    if link is not None:
        typed = link.group("typed")
        if typed.startswith(("#", "/", "~")) or ":" in typed:
            return None
        base = place.base
        if typed.startswith("{baseDir}/"):
            base, typed = place.root, typed[len("{baseDir}/") :]
    else:
        mention = _FOLDER_PATH.search(before)
        if mention is None:
            return None
        typed = mention.group("typed").removeprefix("./")
        base = place.root
    folder_part, _, stem = typed.rpartition("/")
    if link is not None:  # a link's folders as written there: my%20notes/
        folder_part = destination_path(folder_part)
    folder = os.path.normpath(os.path.join(base, folder_part))
    if link is None and os.path.relpath(folder, place.root).startswith(os.pardir):
        return []  # a skill-relative path that climbs out of the skill names no file of it
    start = column - len(stem)
    tail = _SEGMENT_END.match(text, column)
    end = tail.end() if tail is not None else column
    where = SourceRange(line, start, line, end)
    prefix = typed[: len(typed) - len(stem)]
    return _folder_items(snapshot, folder, where, prefix, in_link=link is not None)


def _folder_items(
    snapshot: Snapshot, folder: str, where: SourceRange, prefix: str, *, in_link: bool = False
) -> list:
    from skillkit_core.manifest.folder import SKIPPED_FOLDERS

    try:
        with os.scandir(folder) as listing:
            entries = sorted(listing, key=lambda entry: entry.name)[:MAX_ENTRIES]
    except OSError:
        return []
    own = os.path.normcase(snapshot.path or "")
    items = []
    for entry in entries:
        if entry.name.startswith(".") or os.path.normcase(entry.path) == own:
            continue
        try:
            is_folder = entry.is_dir()
        except OSError:
            continue
        if is_folder and entry.name in SKIPPED_FOLDERS:
            continue
        label = entry.name + ("/" if is_folder else "")
        kind = types.CompletionItemKind.Folder if is_folder else types.CompletionItemKind.File
        items.append(
            types.CompletionItem(
                label=label,
                kind=kind,
                detail=prefix + label,
                # Files first, then folders, each alphabetically.
                sort_text=f"{1 if is_folder else 0}{entry.name}",
                filter_text=label,
                text_edit=types.TextEdit(
                    range=snapshot.map.range(where),
                    new_text=link_destination(label) if in_link else label,
                ),
            )
        )
    return items


def is_script(relative: str) -> bool:
    """Whether a skill-relative path is a script: under ``scripts/`` or with a script
    extension the core knows."""
    from skillkit_core.manifest.scripts import extension_family

    return relative.startswith("scripts/") or extension_family(relative) is not None


def script_hover(snapshot: Snapshot, line: int, column: int) -> str | None:
    """Markdown for a script path under the cursor: the interpreter its shebang names
    (or its extension implies) and its first lines. None for anything else."""
    from skill_lsp.workspace import read_regular

    ref = path_ref_at(snapshot, line, column)
    if ref is None or ref.relative is None or not is_script(ref.relative):
        return None
    place = markdown_place(snapshot)
    if place is None or not _really_inside(ref.path, place.root):
        return None  # a symlink leading out of the skill: its target is not the skill's
    head = read_regular(ref.path, _SCRIPT_HEAD_BYTES)
    if head is None:
        return None  # unreadable, or not a regular file (a FIFO, /dev/zero)
    if b"\x00" in head:
        return f"**`{ref.relative}`** · a binary file"
    text = head.decode("utf-8", errors="replace")
    lines = text.splitlines()
    return describe_script(ref.relative, lines, more=len(head) == _SCRIPT_HEAD_BYTES)


def _really_inside(path: str, folder: str) -> bool:
    """Whether ``path``, symlinks followed, lies inside ``folder``."""
    root = os.path.realpath(folder)
    return os.path.realpath(path).startswith(root + os.sep)


def describe_script(relative: str, lines: list[str], *, more: bool = False) -> str:
    """The hover text of a script from its name and first lines."""
    from skill_lsp.features.hover import fenced
    from skillkit_core.manifest.scripts import (
        default_shebang,
        extension_family,
        interpreter,
        interpreter_family,
    )

    name = relative.rsplit("/", 1)[-1]
    first = lines[0] if lines else ""
    program = interpreter(first)
    implied = extension_family(name)
    if program is not None:
        family = interpreter_family(program)
        runs = f"Runs with `{program}`" + (f" ({family})" if family else "")
        runs += f", from its shebang `{first.strip()}`."
    elif implied is not None:
        family = implied
        shebang = default_shebang(name)
        runs = f"No shebang: the extension implies {implied}"
        runs += f" (`{shebang}`)." if shebang else "."
    else:
        family = None
        runs = "No shebang, and the extension implies no interpreter."
    shown = lines[:SCRIPT_LINES]
    tail = "\n…" if more or len(lines) > SCRIPT_LINES else ""
    language = {"shell": "sh", "r": "r"}.get(family or "", family or "")
    preview = fenced("\n".join(shown) + tail, language) if shown else "*(empty file)*"
    return f"**`{relative}`** · script\n\n{runs}\n\n{preview}"


def reference_hover(snapshot: Snapshot, line: int, column: int) -> str | None:
    """A hover for a path in a reference file: a script's interpreter and first lines,
    or another file's first lines (as SKILL.md's hover shows them)."""
    found = script_hover(snapshot, line, column)
    if found is not None:
        return found
    ref = path_ref_at(snapshot, line, column)
    place = markdown_place(snapshot)
    if ref is None or ref.relative is None or place is None:
        return None
    from skill_lsp.features.hover import file_preview

    return file_preview(place.root, ref.relative)
