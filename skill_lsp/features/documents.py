"""Document sync: open, change, save, close, and files changed on disk.

The per-keystroke path: apply the edit to the store (a new snapshot), queue the syntax
layer's diagnostics for the next loop turn, and (re)start the semantic layer's delay.
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types
from pygls.uris import to_fs_path

from skill_lsp.index import DocumentKind


def register(server: Any) -> None:
    """Declare the document sync handlers."""

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: Any, params: types.DidOpenTextDocumentParams) -> None:
        item = params.text_document
        snapshot = ls.documents.open(item.uri, item.version, item.text, item.language_id)
        if snapshot.kind == DocumentKind.OTHER:
            return
        ls.diagnostics.changed(item.uri)
        if snapshot.kind == DocumentKind.PYTHON:
            ls.semantic.schedule(item.uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: Any, params: types.DidChangeTextDocumentParams) -> None:
        document = params.text_document
        snapshot = ls.documents.change(document.uri, document.version, params.content_changes)
        if snapshot is None or snapshot.kind == DocumentKind.OTHER:
            return
        ls.diagnostics.changed(document.uri)
        if snapshot.kind == DocumentKind.PYTHON:
            ls.semantic.schedule(document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: Any, params: types.DidSaveTextDocumentParams) -> None:
        _skills_changed(ls)
        snapshot = ls.documents.get(params.text_document.uri)
        if snapshot is None or snapshot.kind != DocumentKind.PYTHON:
            return
        # Other open skills may import the saved module: their answers may differ now.
        ls.semantic.clear_cache()
        ls.semantic.reschedule_all()

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: Any, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.documents.close(uri)
        ls.semantic.forget(uri)
        ls.diagnostics.closed(uri)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    async def watched_files(ls: Any, params: types.DidChangeWatchedFilesParams) -> None:
        _skills_changed(ls)
        ls.semantic.clear_cache()
        for change in params.changes:
            path = to_fs_path(change.uri)
            if path:
                await ls.files.refresh(path)
        ls.semantic.reschedule_all()
        for snapshot in ls.documents.all():
            if snapshot.kind == DocumentKind.SKILL_MD:
                snapshot._cache.pop("manifest", None)
                ls.diagnostics.changed(snapshot.uri)


def _skills_changed(ls: Any) -> None:
    """Skill folders may have come, gone or moved: the skill index walks again."""
    from skill_lsp.skill_index import skill_index

    skill_index(ls).invalidate()
