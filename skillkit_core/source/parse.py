"""tree-sitter behind a small door: lazy import, one parser per thread, incremental edits.

Importing this module is free; tree-sitter is loaded on the first parse.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from skillkit_core.source.positions import ts_point

_local = threading.local()
_language: Any = None
_language_lock = threading.Lock()


@dataclass(frozen=True)
class SourceEdit:
    """One edit in tree-sitter's terms (its ``InputEdit``): byte offsets and points.

    Points are (row, byte column) with rows counted by ``\\n``, as tree-sitter counts.
    Several edits apply one after the other, each in the coordinates left by the last.
    """

    start_byte: int
    old_end_byte: int
    new_end_byte: int
    start_point: tuple[int, int]
    old_end_point: tuple[int, int]
    new_end_point: tuple[int, int]


def language() -> Any:
    """The tree-sitter Python language (loaded once)."""
    global _language
    if _language is None:
        with _language_lock:
            if _language is None:
                import tree_sitter
                import tree_sitter_python

                _language = tree_sitter.Language(tree_sitter_python.language())
    return _language


_QUERY_SOURCE = """
(call) @call
(subscript) @subscript
(comparison_operator) @comparison
(function_definition) @def
(return_statement) @return
(ERROR) @error
(MISSING) @error
"""
_query: Any = None
# The capture name of each node type the query looks for (MISSING nodes are "error" too).
_CAPTURED = {
    "call": "call",
    "subscript": "subscript",
    "comparison_operator": "comparison",
    "function_definition": "def",
    "return_statement": "return",
    "ERROR": "error",
}


def _the_query() -> Any:
    global _query
    if _query is None:
        import tree_sitter

        _query = tree_sitter.Query(language(), _QUERY_SOURCE)
    return _query


def captures(tree: Any) -> dict[str, list[Any]]:
    """The nodes the index looks at, by kind, in linear time.

    tree-sitter's query cursor is quadratic in a run of anonymous siblings: on entering
    each node it scans the later siblings for a named one, and only an ERROR node holds
    such runs (a line of 300,000 ``(`` took over a minute). A tree without errors is
    queried whole (one C-side query); one with errors is walked by `walk_captures`.
    """
    import tree_sitter

    root = tree.root_node
    if root.has_error:
        return walk_captures(root)
    return tree_sitter.QueryCursor(_the_query()).captures(root)


def walk_captures(root: Any) -> dict[str, list[Any]]:
    """What the query captures under ``root``, without letting it see an ERROR node.

    Subtrees without errors are queried whole (no ERROR node in them, so no long runs of
    anonymous siblings); the nodes on the way to an error are visited here, and of an
    ERROR node's children only the named ones (its anonymous children are tokens). Linear
    in the size of the tree.
    """
    import tree_sitter

    query = _the_query()
    found: dict[str, list[Any]] = {}
    pending = [root]
    while pending:
        node = pending.pop()
        if not node.has_error:
            for name, nodes in tree_sitter.QueryCursor(query).captures(node).items():
                found.setdefault(name, []).extend(nodes)
            continue
        name = "error" if node.is_missing else _CAPTURED.get(node.type)
        if name is not None:
            found.setdefault(name, []).append(node)
        pending.extend(node.named_children if node.type == "ERROR" else node.children)
    return found


def _parser() -> Any:
    # A tree-sitter parser must not be shared between threads; the server indexes in a pool.
    parser = getattr(_local, "parser", None)
    if parser is None:
        import tree_sitter

        parser = tree_sitter.Parser(language())
        _local.parser = parser
    return parser


def parse(
    data: bytes,
    old_tree: Any = None,
    edits: Sequence[SourceEdit] = (),
    *,
    skipped: Sequence[tuple[int, int]] = (),
) -> Any:
    """Parse ``data``; with ``old_tree`` and ``edits``, reuse what the edits left intact.

    ``old_tree`` is never modified (it may still be read by another snapshot): the
    edits are applied to a copy. tree-sitter reads the text in chunks through a Python
    callback: a parse holds the GIL while it runs, and between chunks another thread
    (the language server's event loop, when the parse runs in a pool) gets its turn.
    The byte spans ``skipped`` (sorted, each inside one line) are left out: the parser
    neither reads nor sees them, and positions after them stay those of ``data``.
    """
    read = _reader(data)
    parser = _parser()
    parser.included_ranges = _included(data, skipped)
    if old_tree is None:
        return parser.parse(read)
    tree = old_tree.copy()
    for edit in edits:
        tree.edit(
            start_byte=edit.start_byte,
            old_end_byte=edit.old_end_byte,
            new_end_byte=edit.new_end_byte,
            start_point=edit.start_point,
            old_end_point=edit.old_end_point,
            new_end_point=edit.new_end_point,
        )
    return parser.parse(read, tree)


def _included(data: bytes, skipped: Sequence[tuple[int, int]]) -> list[Any]:
    """tree-sitter ranges of ``data`` without the spans ``skipped``."""
    import tree_sitter

    ranges = []
    start = 0
    for begin, end in [*skipped, (len(data), None)]:
        if begin > start or end is None:
            stop = 0xFFFFFFFF if end is None else begin
            stop_point = (0xFFFFFFFF, 0xFFFFFFFF) if end is None else ts_point(data, begin)
            ranges.append(tree_sitter.Range(ts_point(data, start), stop_point, start, stop))
        if end is not None:
            start = end
    return ranges


#: Bytes tree-sitter reads at a time (see `parse`): well under a millisecond of parsing.
READ_CHUNK = 1024


def _reader(data: bytes) -> Any:
    """tree-sitter's read callback over ``data``.

    It hands out one reused ``bytearray`` per thread: py-tree-sitter (0.26.1,
    ``parser_read_wrapper``) never releases its reference to what the callback returns,
    so fresh ``bytes`` chunks would all stay in memory; the same buffer, refilled, leaks
    nothing. py-tree-sitter releases its view of it before each call and after the parse.
    """
    view = memoryview(data)
    buffer = getattr(_local, "chunk", None)
    if buffer is None:
        buffer = _local.chunk = bytearray()

    def read(offset: int, _point: Any) -> bytearray:
        time.sleep(0)  # lets a thread waiting for the GIL (the event loop) run first
        buffer[:] = view[offset : offset + READ_CHUNK]
        return buffer

    return read


def _common_prefix(a: bytes, b: bytes) -> int:
    # Binary search over slice equality: each comparison is one memcmp.
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _common_suffix(a: bytes, b: bytes, limit: int) -> int:
    low, high = 0, limit
    while low < high:
        middle = (low + high + 1) // 2
        if a[len(a) - middle :] == b[len(b) - middle :]:
            low = middle
        else:
            high = middle - 1
    return low


def edit_between(old: bytes, new: bytes) -> SourceEdit:
    """The single edit that turns ``old`` into ``new`` (the changed middle part)."""
    start = _common_prefix(old, new)
    suffix = _common_suffix(old, new, min(len(old), len(new)) - start)
    old_end, new_end = len(old) - suffix, len(new) - suffix
    return SourceEdit(
        start_byte=start,
        old_end_byte=old_end,
        new_end_byte=new_end,
        start_point=ts_point(old, start),
        old_end_point=ts_point(old, old_end),
        new_end_point=ts_point(new, new_end),
    )


def edits_fit(old: bytes, new: bytes, edits: Sequence[SourceEdit]) -> bool:
    """Whether ``edits`` plausibly turn ``old`` into ``new`` (exactly checked for one edit).

    A wrong edit would make tree-sitter reuse stale subtrees, so doubtful edits are
    replaced by a computed one rather than trusted.
    """
    size = len(old)
    for edit in edits:
        if not 0 <= edit.start_byte <= edit.old_end_byte <= size:
            return False
        if edit.new_end_byte < edit.start_byte:
            return False
        size += edit.new_end_byte - edit.old_end_byte
    if size != len(new):
        return False
    if len(edits) == 1:
        (edit,) = edits
        return (
            old[: edit.start_byte] == new[: edit.start_byte]
            and old[edit.old_end_byte :] == new[edit.new_end_byte :]
        )
    return True
