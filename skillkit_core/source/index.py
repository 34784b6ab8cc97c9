"""``index_source``: the syntax index of a skill source file, full or incremental.

The language server calls this once per document version (and shares the result with
every feature); ``skillkit check`` calls it to put positions on diagnostics. It never
executes the author's code and never raises on any text. The returned index keeps the
parse tree and its step units, so that the next version re-parses only what an edit
touched and re-extracts only the steps whose text (or position) changed.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from skillkit_core.source.model import SourceIndex
from skillkit_core.source.parse import SourceEdit

#: Texts larger than this are not parsed (an index of nothing, ``too_large=True``).
MAX_INDEX_BYTES = 4 * 1024 * 1024
#: Lines longer than this (bytes, without the line break) are left out of the parse, as
#: if blank: nobody writes source lines this long, and tree-sitter spends over a tenth
#: of a second on a line of 300,000 brackets at every edit of the file (it re-reads an
#: error's whole extent). An index that left a line out says ``has_errors=True``.
MAX_LINE_BYTES = 64 * 1024

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ParseState:
    """What an index keeps for the next version: bytes, lines, tree and step units."""

    data: bytes
    lines: Any  # LineTable
    tree: Any  # tree_sitter.Tree, never edited in place
    units: dict[Any, Any]  # step units by key, reused by the next version's extraction


def index_source(
    text: str,
    *,
    old: SourceIndex | None = None,
    edits: Sequence[SourceEdit] | None = None,
) -> SourceIndex:
    """Index ``text``: chains, steps, every string naming a step, act calls, tool guards.

    With ``old`` (the index of the previous version), tree-sitter reuses the old tree
    and unchanged steps are taken over from ``old`` as they are. ``edits`` are the
    tree-sitter edits from the old text to this one (byte offsets and points, see
    `SourceEdit`); without them the one edit is computed by comparing the texts, which is
    cheap and always right. Edits that do not fit the texts are ignored. The result is
    equal to a full index of ``text`` either way, and ``old`` is left untouched.

    Never raises: unreadable code yields a partial index with ``has_errors=True``; a text
    over `MAX_INDEX_BYTES` yields an empty one with ``too_large=True``; lines over
    `MAX_LINE_BYTES` are not read (nothing is indexed on them; ``has_errors=True``).
    """
    if old is not None and old.text == text and old._state is not None:
        return old
    from skillkit_core.source.positions import LineTable, encode

    data = encode(text)
    if len(data) > MAX_INDEX_BYTES:
        return SourceIndex(text=text, too_large=True)
    lines = LineTable(data)
    state = old._state if old is not None and isinstance(old._state, ParseState) else None
    try:
        skipped = _long_lines(data, lines)
        tree = _parse(data, state, edits, skipped)
        index = _build(text, data, lines, tree, state.units if state is not None else None)
        if skipped and not index.has_errors:
            return replace(index, has_errors=True)
        return index
    except Exception:  # the server must outlive any document; the bug is logged, not lost
        _log.exception("source index failed; returning an empty index")
        return SourceIndex(text=text, has_errors=True)


def _long_lines(data: bytes, lines: Any) -> list[tuple[int, int]]:
    """Byte spans of the lines longer than `MAX_LINE_BYTES` (usually none: one split in
    C tells, and only a text holding such a line is looked at line by line)."""
    if len(data) <= MAX_LINE_BYTES or max(map(len, data.split(b"\n"))) <= MAX_LINE_BYTES:
        return []
    spans = []
    for line in range(lines.line_count):
        start, end = lines.line_bounds(line)
        if end - start > MAX_LINE_BYTES:
            spans.append((start, end))
    return spans


def _parse(
    data: bytes,
    state: ParseState | None,
    edits: Sequence[SourceEdit] | None,
    skipped: Sequence[tuple[int, int]],
) -> Any:
    from skillkit_core.source.parse import edit_between, edits_fit, parse

    if state is None:
        return parse(data, skipped=skipped)
    if edits is None or not edits_fit(state.data, data, edits):
        edits = [edit_between(state.data, data)]
    return parse(data, state.tree, edits, skipped=skipped)


def _build(
    text: str, data: bytes, lines: Any, tree: Any, units: dict[Any, Any] | None
) -> SourceIndex:
    from skillkit_core.source.extract import Extractor
    from skillkit_core.source.parse import captures

    found = Extractor(data, lines, captures(tree), units).run()
    return SourceIndex(
        text=text,
        chains=tuple(found.chains),
        steps=tuple(found.steps),
        refs=tuple(found.refs),
        act_calls=tuple(found.act_calls),
        tool_guards=tuple(found.tool_guards),
        functions=tuple(found.functions),
        has_errors=tree.root_node.has_error,
        _state=ParseState(data=data, lines=lines, tree=tree, units=found.units),
    )
