"""Document sync: open, change, save, close, and files changed on disk.

The per-keystroke path: apply the edit to the store (a new snapshot), queue the syntax
layer's diagnostics for the next loop turn, and (re)start the semantic layer's delay.
"""

from __future__ import annotations

import asyncio
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
        if snapshot is not None and snapshot.kind != DocumentKind.PYTHON:
            # A file saved for the first time may be one a SKILL.md links to.
            path = to_fs_path(params.text_document.uri)
            ls.files.spawn(_recheck_manifests(ls, [path] if path else []))
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
        paths = [path for change in params.changes if (path := to_fs_path(change.uri))]
        # Open skills import modules and read pyproject.toml: only those changes can
        # change what running them gives (a README saved must not rerun every skill).
        code = [p for p in paths if p.endswith((".py", "pyproject.toml"))]
        if code:
            ls.semantic.clear_cache()
        for path in paths:
            await ls.files.refresh(path)
        if code:
            ls.semantic.reschedule_all()
        await _recheck_manifests(ls, paths)


async def _recheck_manifests(ls: Any, paths: list[str]) -> None:
    """Files changed on disk: check every open SKILL.md again, and the saved SKILL.md of
    each skill folder the files are in (a file made in references/ or removed from it
    changes its findings: a broken link stayed reported beside a link that resolved)."""
    import os

    from skill_lsp.workspace import enclosing_skill_md

    for snapshot in ls.documents.all():
        if snapshot.kind == DocumentKind.SKILL_MD:
            snapshot._cache.pop("manifest", None)
            ls.diagnostics.changed(snapshot.uri)
    others = [path for path in paths if os.path.basename(path) != "SKILL.md"]
    loop = asyncio.get_running_loop()  # a few stat calls per path: off the event loop
    manifests = await loop.run_in_executor(None, lambda: {enclosing_skill_md(p) for p in others})
    for manifest in sorted(m for m in manifests if m is not None):
        if ls.files.in_roots(manifest):
            ls.files.refresh_soon(manifest, folder_changed=True)


def _skills_changed(ls: Any) -> None:
    """Skill folders may have come, gone or moved: the skill index walks again."""
    from skill_lsp.skill_index import skill_index

    skill_index(ls).invalidate()
