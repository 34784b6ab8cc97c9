"""A client that cannot rename files gets a clear refusal, not an edit leaving a skill
whose ``name:`` no longer matches its folder."""

from __future__ import annotations

import attrs
import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient, client_capabilities

from tests.lsp.support import LINKED_SKILLS, open_file, position

WORKSPACE = LINKED_SKILLS
pytestmark = pytest.mark.asyncio(loop_scope="module")


def _without_file_operations(preset: str) -> types.ClientCapabilities:
    """The preset's capabilities without file operations in workspace edits."""
    capabilities = client_capabilities(preset)
    workspace = capabilities.workspace
    edit = attrs.evolve(workspace.workspace_edit, resource_operations=None)
    return attrs.evolve(capabilities, workspace=attrs.evolve(workspace, workspace_edit=edit))


CAPABILITIES = _without_file_operations


async def test_rename_is_refused_without_file_renames(client: LanguageClient) -> None:
    path = client.root / "report-writer" / "SKILL.md"
    text = path.read_text(encoding="utf-8")
    uri = open_file(client, path, text)
    with pytest.raises(JsonRpcException) as raised:
        await client.text_document_rename_async(
            types.RenameParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=position(text, "name: report-writer", client.encoding, shift=8),
                new_name="report-builder",
            )
        )
    assert raised.value.code == types.LSPErrorCodes.RequestFailed
    assert "does not apply file renames" in raised.value.message
    assert "resourceOperations lacks 'rename'" in raised.value.message
