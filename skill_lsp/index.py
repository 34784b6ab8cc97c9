"""Per-document state: one frozen snapshot per version, shared by every feature.

A :class:`Snapshot` holds a version's text and lines and, computed at most once and only
when first asked for, the core's source index (re-parsed incrementally from the previous
version's) or the parsed SKILL.md. It also carries the latest semantic result the worker
produced for this document. Snapshots are replaced, never changed: a feature that took
one keeps a consistent view while newer versions arrive.

The store applies ``didChange`` edits itself, with LSP's line breaks (``\\n``, ``\\r\\n``,
``\\r``) and the negotiated position encoding; semantic diagnostics of an older version are
carried forward through those edits until a fresh result replaces them.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from lsprotocol import types
from pygls.uris import to_fs_path
from pygls.workspace.position_codec import PositionCodec

from skill_lsp.positions import LineMap, line_starts, split_lines
from skillkit_core.lint.diagnostic import LintDiagnostic, SourceRange


class DocumentKind(StrEnum):
    """What a document is to the server."""

    PYTHON = "python"
    SKILL_MD = "skill-md"
    OTHER = "other"


def kind_of(uri: str, language_id: str | None = None) -> DocumentKind:
    """Python skill source, SKILL.md, or something the server ignores."""
    name = uri.rsplit("/", 1)[-1].lower()
    if name == "skill.md":
        return DocumentKind.SKILL_MD
    if name.endswith((".py", ".pyi")) or language_id == "python":
        return DocumentKind.PYTHON
    return DocumentKind.OTHER


# Suffixes of markdown files: where skill text is written (SKILL.md, references).
MARKDOWN_SUFFIXES = (".md", ".markdown")


def is_markdown(path: str | None) -> bool:
    """Whether ``path`` names a markdown file (any case of its suffix)."""
    return path is not None and path.lower().endswith(MARKDOWN_SUFFIXES)


def path_of(uri: str) -> str | None:
    """The file-system path of a ``file:`` URI (None for other schemes)."""
    if not uri.startswith("file:"):
        return None
    return to_fs_path(uri)


@dataclass(frozen=True, eq=False)
class Snapshot:
    """One version of one document. Immutable; lazily computed parts are cached inside."""

    uri: str
    path: str | None
    version: int
    text: str
    kind: DocumentKind
    lines: Sequence[str]
    codec: PositionCodec
    semantic: Any = None  # skill_lsp.semantic.SemanticResult of this or an older version
    carried: tuple[LintDiagnostic, ...] = ()  # semantic diagnostics moved along with edits
    base: Any = field(default=None, repr=False)  # the previous index, for incremental parsing
    # The previous version's syntax findings, its index and the one edit made since, for
    # skill_lsp.syntax to carry the findings over (taken once, then let go).
    previous_syntax: Any = field(default=None, repr=False)
    _cache: dict[str, Any] = field(default_factory=dict, repr=False)
    # Held while the index is computed (by the syntax pool or, failing that, the loop).
    _index_lock: Any = field(default_factory=threading.Lock, repr=False)

    @property
    def text_tag(self) -> str:
        """A short digest of the text: edits computed for it (a quick fix's) apply to a
        text with the same tag, whatever its version number (the saved file's or an open
        document's)."""
        found = self._cache.get("tag")
        if found is None:
            from skillkit_core.fast_hash import blake2b

            digest = blake2b(self.text.encode("utf-8", "surrogatepass"), digest_size=8)
            found = self._cache["tag"] = digest.hexdigest()
        return found

    @property
    def map(self) -> LineMap:
        """Position conversions for this version."""
        found = self._cache.get("map")
        if found is None:
            found = self._cache["map"] = LineMap(self.lines, self.codec)
        return found

    @property
    def index(self) -> Any:
        """The core's ``SourceIndex`` of this version (Python documents)."""
        found = self._cache.get("index")
        if found is None:
            with self._index_lock:
                found = self._cache.get("index")
                if found is None:
                    from skillkit_core.source.index import index_source

                    found = index_source(self.text, old=self.base)
                    self._cache["index"] = found
                    # The older index is no longer needed; let it (and its tree) go.
                    object.__setattr__(self, "base", None)
        return found

    def take_previous_syntax(self) -> Any:
        """:attr:`previous_syntax`, which this snapshot then lets go of."""
        found = self.previous_syntax
        object.__setattr__(self, "previous_syntax", None)
        return found

    def step_graph(self, chain: int) -> Any:
        """The core's literal step graph of chain number ``chain`` (cached)."""
        key = ("step-graph", chain)
        found = self._cache.get(key)
        if found is None:
            from skillkit_core.source.graph import step_graph

            found = self._cache[key] = step_graph(self.index, chain)
        return found

    @property
    def indexed(self) -> bool:
        """Whether the index has been computed already."""
        return "index" in self._cache

    @property
    def skill_md(self) -> Any:
        """The parsed SKILL.md of this version (``ParsedSkillMd``)."""
        found = self._cache.get("skill_md")
        if found is None:
            from skillkit_core.manifest.parse import parse_skill_md

            found = self._cache["skill_md"] = parse_skill_md(self.text, self.path)
        return found

    @property
    def suppressions(self) -> Any:
        """``skillkit: ignore[...]`` markers of this version."""
        found = self._cache.get("suppressions")
        if found is None:
            from skillkit_core.manifest.markdown import find_suppressions

            found = self._cache["suppressions"] = find_suppressions(list(self.lines))
        return found

    @property
    def folder(self) -> str | None:
        """The folder holding the document."""
        return os.path.dirname(self.path) if self.path else None

    def with_semantic(self, result: Any, carried: tuple[LintDiagnostic, ...]) -> Snapshot:
        """The same version with a newer semantic result (lazy parts are shared)."""
        return replace(self, semantic=result, carried=carried)


_log = logging.getLogger(__name__)


def _previous_index(snapshot: Snapshot) -> Any:
    if snapshot.indexed:
        return snapshot._cache["index"]
    return snapshot.base


class DocumentStore:
    """The open documents, by URI. Changed only on the server's event loop.

    The syntax index of a Python document is computed in a one-thread pool, never on the
    event loop (a long line of brackets costs a tenth of a second to parse): requests and
    diagnostics wait for it with :meth:`indexed` / :meth:`index_in_pool`, and requests
    about other documents go on meanwhile. A version that is superseded before its turn
    in the pool is skipped.
    """

    def __init__(self) -> None:
        self._documents: dict[str, Snapshot] = {}
        self.codec = PositionCodec()
        self._pool: ThreadPoolExecutor | None = None
        self._indexing: dict[str, tuple[int, asyncio.Future[None]]] = {}

    def get(self, uri: str) -> Snapshot | None:
        """The current snapshot of ``uri`` (None when it is not open)."""
        return self._documents.get(uri)

    def all(self) -> list[Snapshot]:
        """Every open document's current snapshot."""
        return list(self._documents.values())

    def open(self, uri: str, version: int, text: str, language_id: str | None = None) -> Snapshot:
        """Start tracking a document (replacing any earlier state of the same URI)."""
        lines = split_lines(text)
        snapshot = Snapshot(
            uri=uri,
            path=path_of(uri),
            version=version,
            text=text,
            kind=kind_of(uri, language_id),
            lines=lines,
            codec=self.codec,
        )
        self._documents[uri] = snapshot
        return snapshot

    def close(self, uri: str) -> None:
        """Forget a document."""
        self._documents.pop(uri, None)
        self._indexing.pop(uri, None)

    # -- the syntax index, off the event loop ------------------------------------------

    @staticmethod
    def needs_index(snapshot: Snapshot) -> bool:
        """Whether features would parse ``snapshot`` on first use (a Python document whose
        index is not computed yet)."""
        return snapshot.kind == DocumentKind.PYTHON and not snapshot.indexed

    def index_in_pool(self, snapshot: Snapshot) -> asyncio.Future[None]:
        """Compute ``snapshot``'s index in the syntax pool (one job per version)."""
        running = self._indexing.get(snapshot.uri)
        if running is not None and running[0] == snapshot.version:
            return running[1]
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="skillkit-syntax")
        job = asyncio.get_running_loop().run_in_executor(self._pool, self._index_job, snapshot)
        self._indexing[snapshot.uri] = (snapshot.version, job)

        def done(finished: asyncio.Future[None], uri: str = snapshot.uri) -> None:
            if self._indexing.get(uri, (None, None))[1] is finished:
                del self._indexing[uri]

        job.add_done_callback(done)
        return job

    def _index_job(self, snapshot: Snapshot) -> None:
        current = self._documents.get(snapshot.uri)
        if current is not None and current.version != snapshot.version:
            return  # superseded while it waited: the newer version is indexed instead
        snapshot.index  # noqa: B018 (computes and caches it)

    async def indexed(self, uri: str) -> Snapshot | None:
        """The current snapshot of ``uri`` with its index computed, waiting off the loop.

        While the document keeps changing the newest version is indexed in turn; after a
        few rounds the snapshot is returned as it is (its index is then computed on first
        use, like before).
        """
        for _ in range(4):
            snapshot = self._documents.get(uri)
            if snapshot is None or not self.needs_index(snapshot):
                return snapshot
            try:
                await self.index_in_pool(snapshot)
            except Exception:  # the index never raises; if it did, features parse it again
                _log.exception("indexing %s in the pool failed", uri)
                break
        return self._documents.get(uri)

    def shutdown(self) -> None:
        """Stop the syntax pool (jobs not started are dropped)."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    def change(
        self, uri: str, version: int, changes: Iterable[types.TextDocumentContentChangeEvent]
    ) -> Snapshot | None:
        """Apply the edits of one ``didChange``; the new snapshot (None for unknown URIs)."""
        current = self._documents.get(uri)
        if current is None:
            return None
        text, lines = current.text, current.lines
        starts = current._cache.get("starts")
        carried = current.carried
        edits = []
        for change in changes:
            where = getattr(change, "range", None)
            if where is None:
                text, carried, starts = change.text, (), None
                lines = split_lines(text)
                edits.append(None)
                continue
            if starts is None:
                starts = line_starts(text)
            text, lines, starts, start, end = _splice(
                text, lines, starts, where, change.text, self.codec
            )
            carried = tuple(
                item
                for item in (_shift_item(item, start, end, change.text) for item in carried)
                if item is not None
            )
            edits.append((start, end, change.text))
        previous_syntax = None
        syntax = current._cache.get("syntax")
        if len(edits) == 1 and edits[0] is not None and syntax is not None and current.indexed:
            previous_syntax = (syntax, current._cache["index"], edits[0])
        snapshot = Snapshot(
            uri=uri,
            path=current.path,
            version=version,
            text=text,
            kind=current.kind,
            lines=lines,
            codec=self.codec,
            semantic=current.semantic,
            carried=carried,
            base=_previous_index(current),
            previous_syntax=previous_syntax,
            _cache={} if starts is None else {"starts": starts},
        )
        self._documents[uri] = snapshot
        return snapshot

    def attach_semantic(self, uri: str, version: int, result: Any, carried: tuple) -> bool:
        """Give the current snapshot a semantic result computed for ``version``.

        Returns False, and changes nothing, when the document moved on (a stale result).
        """
        current = self._documents.get(uri)
        if current is None or current.version != version:
            return False
        self._documents[uri] = current.with_semantic(result, carried)
        return True


def _splice(
    text: str,
    lines: Sequence[str],
    starts: list[int],
    where: types.Range,
    new_text: str,
    codec: PositionCodec,
) -> tuple[str, list[str], list[int], tuple[int, int], tuple[int, int]]:
    """Replace ``where`` (client units) in ``text`` (whose lines are ``lines``, starting
    at string indexes ``starts``); return the new text, lines and line starts, and the
    code-point start and end positions of the replaced span.

    Only the lines the edit touches are split again: typing in a long file costs no
    pass over the whole text. A text with a carriage return anywhere is split whole
    (a ``\r`` next to a ``\n`` the edit brings together would make one line break)."""
    mapper = LineMap(lines, codec)
    start = mapper.code_point(where.start)
    end = mapper.code_point(where.end)
    if end < start:
        start, end = end, start
    begin = starts[start[0]] + start[1]
    finish = starts[end[0]] + end[1]
    spliced = text[:begin] + new_text + text[finish:]
    if "\r" in new_text or "\r" in text:
        return spliced, split_lines(spliced), line_starts(spliced), start, end
    middle = (lines[start[0]][: start[1]] + new_text + lines[end[0]][end[1] :]).split("\n")
    new_starts = starts[: start[0] + 1]
    for line in middle[:-1]:
        new_starts.append(new_starts[-1] + len(line) + 1)
    delta = len(new_text) - (finish - begin)
    new_starts += [offset + delta for offset in starts[end[0] + 1 :]]
    new_lines = [*lines[: start[0]], *middle, *lines[end[0] + 1 :]]
    return spliced, new_lines, new_starts, start, end


def shift_range(
    where: SourceRange, start: tuple[int, int], end: tuple[int, int], new_text: str
) -> SourceRange | None:
    """``where`` after replacing ``start``..``end`` with ``new_text``; None if it overlapped."""
    first = (where.line, where.column)
    last = (where.end_line, where.end_column)
    if last <= start:
        return where
    if first < end:
        return None
    inserted = split_lines(new_text)
    new_end_line = start[0] + len(inserted) - 1
    new_end_column = (start[1] if len(inserted) == 1 else 0) + len(inserted[-1])
    line_delta = new_end_line - end[0]

    def moved(line: int, column: int) -> tuple[int, int]:
        if line == end[0]:
            return new_end_line, column - end[1] + new_end_column
        return line + line_delta, column

    line, column = moved(where.line, where.column)
    end_line, end_column = moved(where.end_line, where.end_column)
    return SourceRange(line, column, end_line, end_column)


def _shift_item(
    item: LintDiagnostic, start: tuple[int, int], end: tuple[int, int], new_text: str
) -> LintDiagnostic | None:
    """A carried diagnostic after one edit; None when the edit touched it."""
    if item.range is None:
        return item
    where = shift_range(item.range, start, end, new_text)
    if where is None:
        return None
    fix = _shift_fix(item.fix, start, end, new_text) if item.fix is not None else None
    # A suggestion the edit touched is dropped: its edits would be offered for the new
    # text (the quick fix's text tag is the new one) in the old text's places.
    moved = [_shift_fix(s, start, end, new_text) for s in item.suggestions]
    suggestions = tuple(s for s in moved if s is not None)
    return item._replace(range=where, fix=fix, suggestions=suggestions)


def _shift_fix(fix: Any, start: tuple[int, int], end: tuple[int, int], new_text: str) -> Any:
    """``fix`` with its edits of this file moved past one edit; None when it touched one."""
    edits = []
    for edit in fix.edits:
        moved = edit.range if edit.file else shift_range(edit.range, start, end, new_text)
        if moved is None:
            return None
        edits.append(edit._replace(range=moved))
    return fix._replace(edits=tuple(edits))
