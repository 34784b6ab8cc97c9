"""Pull diagnostics, for clients that pull and accept refresh requests."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from tests.lsp.support import open_file, uri_of, wait_for

pytestmark = pytest.mark.asyncio(loop_scope="module")


def CAPABILITIES(preset: str) -> types.ClientCapabilities:
    """The preset's capabilities plus pull diagnostics with refresh support."""
    capabilities = client_capabilities(preset)
    capabilities.text_document.diagnostic = types.DiagnosticClientCapabilities()
    capabilities.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(
        refresh_support=True
    )
    return capabilities


async def _pull(client: LanguageClient, uri: str, previous: str | None = None):
    return await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(
            text_document=types.TextDocumentIdentifier(uri=uri), previous_result_id=previous
        )
    )


async def test_documents_are_pulled_not_pushed(client: LanguageClient) -> None:
    uri = open_file(client, client.root / "broken" / "broken_steps.py")
    await wait_for(lambda: client.diagnostic_refresh_count > 0, what="a refresh request")

    async def has_semantic():
        report = await _pull(client, uri)
        return report if "build-error" in {d.code for d in report.items} else None

    report = None
    for _ in range(300):
        report = await has_semantic()
        if report:
            break
        await asyncio.sleep(0.1)
    assert report is not None
    assert {"build-error", "cycle-guard"} <= {d.code for d in report.items}
    unchanged = await _pull(client, uri, report.result_id)
    assert unchanged.kind == "unchanged"
    assert uri not in client.diagnostics  # nothing was pushed


async def test_skill_md_is_pulled_after_its_rules_ran(client: LanguageClient) -> None:
    uri = open_file(client, client.root / "notes-skill" / "SKILL.md")
    report = await _pull(client, uri)
    assert {"name-format", "broken-link"} <= {d.code for d in report.items}


async def test_workspace_pull_includes_files_that_are_not_open(client: LanguageClient) -> None:
    script = uri_of(client.root / "notes-skill" / "scripts" / "tidy.sh")

    async def reports():
        result = await client.workspace_diagnostic_async(
            types.WorkspaceDiagnosticParams(previous_result_ids=[])
        )
        return {item.uri: item for item in result.items}

    found = {}
    for _ in range(300):
        found = await reports()
        if script in found:
            break
        await asyncio.sleep(0.1)
    assert {d.code for d in found[script].items} == {"script-shebang"}
    assert found[script].version is None
