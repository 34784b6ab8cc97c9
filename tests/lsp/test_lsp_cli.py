"""``skillkit lsp`` starts the same server over stdio."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
import pytest_lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp.support import CACHE, PRESETS, initialize, open_file, wait_for_codes

pytestmark = pytest.mark.asyncio(loop_scope="module")

CLI = ClientServerConfig(
    server_command=[sys.executable, "-m", "skillkit_core.cli", "lsp"],
    server_env={**os.environ, "XDG_CACHE_HOME": CACHE},
)


@pytest_lsp.fixture(config=CLI, params=PRESETS, scope="module")
async def cli_client(lsp_client: LanguageClient, request: pytest.FixtureRequest, workspace: Path):
    lsp_client.root = workspace  # type: ignore[attr-defined]
    result = await initialize(lsp_client, request.param, workspace)
    lsp_client.server_name = result.server_info.name  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


async def test_skillkit_lsp_serves_diagnostics(cli_client: LanguageClient) -> None:
    assert cli_client.server_name == "skillkit"
    uri = open_file(cli_client, cli_client.root / "broken" / "broken_steps.py")
    await wait_for_codes(cli_client, uri, {"cycle-guard"})
