"""Pull diagnostics (``textDocument/diagnostic``, ``workspace/diagnostic``).

Registered only for clients that pull and accept ``workspace/diagnostic/refresh``; every
other client gets pushed diagnostics (see :mod:`skill_lsp.diagnostics`).
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types
from pygls.capabilities import get_capability

from skill_lsp.index import DocumentKind


def supports_pull(capabilities: types.ClientCapabilities) -> bool:
    """True when the client pulls diagnostics and can be told to pull again."""
    pulls = get_capability(capabilities, "text_document.diagnostic", None) is not None
    refresh = get_capability(capabilities, "workspace.diagnostics.refresh_support", False)
    return pulls and bool(refresh)


def register(server: Any) -> None:
    """Nothing up front: pull handlers are added at ``initialize`` when the client pulls."""


def enable_pull(server: Any) -> None:
    """Declare the pull handlers (called from ``initialize``, before capabilities exist)."""
    server.diagnostics.pull = True
    options = types.DiagnosticOptions(
        identifier="skillkit", inter_file_dependencies=True, workspace_diagnostics=True
    )

    @server.feature(types.TEXT_DOCUMENT_DIAGNOSTIC, options)
    async def document_diagnostic(
        ls: Any, params: types.DocumentDiagnosticParams
    ) -> types.DocumentDiagnosticReport:
        uri = params.text_document.uri
        snapshot = ls.documents.get(uri)
        if snapshot is None:
            return types.RelatedFullDocumentDiagnosticReport(items=ls.diagnostics.disk.get(uri, []))
        if snapshot.kind == DocumentKind.SKILL_MD:
            await ls.diagnostics.manifest_ready(snapshot)
            ls.diagnostics.related_soon(snapshot, snapshot._cache.get("manifest", []))
        items = ls.diagnostics.lsp_diagnostics(snapshot)
        result_id = f"{snapshot.version}-{id(items)}"
        if params.previous_result_id == result_id:
            return types.RelatedUnchangedDocumentDiagnosticReport(result_id=result_id)
        return types.RelatedFullDocumentDiagnosticReport(items=items, result_id=result_id)

    @server.feature(types.WORKSPACE_DIAGNOSTIC)
    async def workspace_diagnostic(
        ls: Any, params: types.WorkspaceDiagnosticParams
    ) -> types.WorkspaceDiagnosticReport:
        reports: list[Any] = []
        open_uris = set()
        for snapshot in ls.documents.all():
            if snapshot.kind == DocumentKind.OTHER:
                continue
            open_uris.add(snapshot.uri)
            if snapshot.kind == DocumentKind.SKILL_MD:
                await ls.diagnostics.manifest_ready(snapshot)
            reports.append(
                types.WorkspaceFullDocumentDiagnosticReport(
                    uri=snapshot.uri,
                    version=snapshot.version,
                    items=ls.diagnostics.lsp_diagnostics(snapshot),
                )
            )
        for uri, items in ls.diagnostics.disk.items():
            if uri not in open_uris:
                reports.append(
                    types.WorkspaceFullDocumentDiagnosticReport(uri=uri, version=None, items=items)
                )
        return types.WorkspaceDiagnosticReport(items=reports)
