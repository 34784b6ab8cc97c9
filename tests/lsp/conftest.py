"""One live server per test module and client preset (Neovim, VS Code), over stdio.

A module may set ``WORKSPACE`` (the fixture folder to copy, by default
``tests/lsp/workspace``; ``tests.lsp.support.LINKED_SKILLS`` holds three SKILL.md skills),
``INIT_OPTIONS`` (initializationOptions) and ``CAPABILITIES`` (a
function of the preset returning client capabilities) to start its server differently.
Each module gets a private copy of the fixture workspace.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_lsp
from pytest_lsp import LanguageClient

from tests.lsp.support import PRESETS, SERVER, copy_workspace, initialize, preset_encoding


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Path:
    """A private copy of the module's fixture workspace."""
    target = tmp_path_factory.mktemp("lsp") / "ws"
    source = getattr(request.module, "WORKSPACE", None)
    return copy_workspace(target, source) if source else copy_workspace(target)


@pytest_lsp.fixture(config=SERVER, params=PRESETS, scope="module")
async def client(lsp_client: LanguageClient, request: pytest.FixtureRequest, workspace: Path):
    """A client of the preset's kind, initialized on the module's workspace.

    ``client.preset``, ``client.encoding`` and ``client.root`` tell tests where they are.
    """
    preset = request.param
    lsp_client.preset = preset  # type: ignore[attr-defined]
    lsp_client.encoding = preset_encoding(preset)  # type: ignore[attr-defined]
    lsp_client.root = workspace  # type: ignore[attr-defined]
    capabilities = getattr(request.module, "CAPABILITIES", None)
    await initialize(
        lsp_client,
        preset,
        workspace,
        options=getattr(request.module, "INIT_OPTIONS", None),
        capabilities=capabilities(preset) if capabilities else None,
    )
    yield
    await lsp_client.shutdown_session()
