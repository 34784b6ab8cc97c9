"""Document symbols (skill → steps, sub-skills, topics; a SKILL.md's frontmatter keys
and headings) and workspace symbols.

Both come from the core's ``symbols(index)``; workspace symbols add every skill file on
disk (its saved text) to the open documents (their current text).
"""

from __future__ import annotations

import asyncio
from typing import Any

from lsprotocol import types
from pygls.capabilities import get_capability

from skill_lsp.index import DocumentKind, Snapshot

_KINDS = {
    "skill": types.SymbolKind.Class,
    "module": types.SymbolKind.Module,
    "reference": types.SymbolKind.Namespace,
    "step": types.SymbolKind.Method,
    "subskill": types.SymbolKind.Module,
    "topic": types.SymbolKind.String,
    # SKILL.md and reference files (skill_lsp.skill_md_structure)
    "frontmatter": types.SymbolKind.Namespace,
    "key": types.SymbolKind.Property,
    "heading": types.SymbolKind.String,
}
MAX_WORKSPACE_SYMBOLS = 500


def register(server: Any) -> None:
    """Declare ``textDocument/documentSymbol`` and ``workspace/symbol``."""

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def document_symbols(
        ls: Any, params: types.DocumentSymbolParams
    ) -> list[types.DocumentSymbol] | list[types.SymbolInformation] | None:
        snapshot = ls.documents.get(params.text_document.uri)
        if snapshot is None:
            return None
        if snapshot.kind == DocumentKind.PYTHON:
            found = _core_symbols(snapshot)
        else:
            from skill_lsp.skill_md_structure import document_symbols as markdown_symbols

            found = markdown_symbols(snapshot)
            if found is None:
                return None
        hierarchical = get_capability(
            ls.client_capabilities,
            "text_document.document_symbol.hierarchical_document_symbol_support",
            False,
        )
        if hierarchical:
            return [_document_symbol(snapshot, symbol) for symbol in found]
        return list(_flat(snapshot, found, None))

    @server.feature(types.WORKSPACE_SYMBOL)
    async def workspace_symbols(
        ls: Any, params: types.WorkspaceSymbolParams
    ) -> list[types.SymbolInformation]:
        loop = asyncio.get_running_loop()
        on_disk = await loop.run_in_executor(None, ls.files.skill_files)
        snapshots: dict[str, Snapshot] = {
            s.uri: s for s in on_disk if s.kind == DocumentKind.PYTHON
        }
        for snapshot in ls.documents.all():
            if snapshot.kind == DocumentKind.PYTHON:
                snapshots[snapshot.uri] = snapshot
        query = params.query.lower()
        results: list[types.SymbolInformation] = []
        for snapshot in snapshots.values():
            for symbol in _flat(snapshot, _core_symbols(snapshot), None):
                if _matches(query, symbol.name):
                    results.append(symbol)
                    if len(results) >= MAX_WORKSPACE_SYMBOLS:
                        return results
        return results


def _core_symbols(snapshot: Snapshot) -> tuple[Any, ...]:
    from skillkit_core.source.query import symbols

    return symbols(snapshot.index)


def _matches(query: str, name: str) -> bool:
    """Fuzzy: the query's characters appear in order in the name (case-insensitive)."""
    if not query:
        return True
    position = 0
    name = name.lower()
    for char in query:
        position = name.find(char, position) + 1
        if position == 0:
            return False
    return True


def _document_symbol(snapshot: Snapshot, symbol: Any) -> types.DocumentSymbol:
    full = snapshot.map.range(symbol.range)
    selection = snapshot.map.range(symbol.selection_range)
    if not _inside(selection, full):
        selection = types.Range(full.start, full.start)
    return types.DocumentSymbol(
        name=symbol.name or "?",
        detail=symbol.detail or None,
        kind=_KINDS.get(symbol.kind, types.SymbolKind.Object),
        range=full,
        selection_range=selection,
        children=[_document_symbol(snapshot, child) for child in symbol.children] or None,
    )


def _inside(inner: types.Range, outer: types.Range) -> bool:
    def key(position: types.Position) -> tuple[int, int]:
        return position.line, position.character

    return key(outer.start) <= key(inner.start) and key(inner.end) <= key(outer.end)


def _flat(snapshot: Snapshot, found: Any, container: str | None) -> Any:
    for symbol in found:
        yield types.SymbolInformation(
            name=symbol.name or "?",
            kind=_KINDS.get(symbol.kind, types.SymbolKind.Object),
            location=types.Location(
                uri=snapshot.uri, range=snapshot.map.range(symbol.selection_range)
            ),
            container_name=container,
        )
        yield from _flat(snapshot, symbol.children, symbol.name)
