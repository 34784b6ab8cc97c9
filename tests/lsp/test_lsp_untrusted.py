"""An untrusted workspace (the client says so): no author code runs, whatever the settings."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.support import codes, open_file, wait_for_codes

pytestmark = pytest.mark.asyncio(loop_scope="module")

INIT_OPTIONS = {"workspaceTrusted": False, "executeCode": True}


async def test_settings_cannot_turn_execution_on(client: LanguageClient) -> None:
    client.set_configuration({"executeCode": True, "workspaceTrusted": True}, section="skillkit")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    uri = open_file(client, client.root / "broken" / "broken_steps.py")
    await wait_for_codes(client, uri, {"unknown-step"})
    await asyncio.sleep(1.5)
    assert "build-error" not in codes(client, uri)
    assert not any("analysis worker started" in m.message for m in client.log_messages)
