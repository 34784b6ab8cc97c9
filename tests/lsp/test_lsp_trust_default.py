"""A client that says nothing about trust gets an untrusted workspace: the background lint
of files nobody opened, and opening them, import no author code; the syntax layer still
reports."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from tests.lsp.support import (
    SERVER,
    accept_registrations,
    fresh_workspace,
    open_file,
    position,
    uri_of,
    wait_for_codes,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

# Importing this module leaves a mark beside it; its `next="nowhere"` is a syntax finding.
MARKING = """import pathlib
from skillkit_core import skill, terminal

pathlib.Path(__file__).with_name("IMPORTED").write_text("imported")

marking = (
    skill(name="marking", entry="a", description="Marks its folder when imported.")
    .step("a", prompt="A.", next="nowhere")
    .step("b", prompt="B.", next=terminal)
    .build()
)
"""


@pytest_lsp.fixture(config=SERVER, scope="module")
async def client(lsp_client: LanguageClient):
    root = fresh_workspace("trust-default")
    folder = root / "marking"
    folder.mkdir()
    (folder / "marking_skill.py").write_text(MARKING, encoding="utf-8")
    lsp_client.root = root  # type: ignore[attr-defined]
    lsp_client.encoding = "utf-8"  # type: ignore[attr-defined]
    accept_registrations(lsp_client)
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("neovim"),
            root_uri=uri_of(root),
            workspace_folders=[types.WorkspaceFolder(uri=uri_of(root), name=root.name)],
            # executeCode on, and not a word about trust
            initialization_options={"executeCode": True},
        )
    )
    yield
    await lsp_client.shutdown_session()


async def test_the_background_lint_imports_no_file(client: LanguageClient) -> None:
    path: Path = client.root / "marking" / "marking_skill.py"
    await wait_for_codes(client, uri_of(path), {"unknown-step"})
    await asyncio.sleep(1.0)
    assert not path.with_name("IMPORTED").exists()
    assert any("author code is not executed" in m.message for m in client.log_messages)
    assert not any("analysis worker started" in m.message for m in client.log_messages)


async def test_an_opened_file_gets_the_syntax_layer_and_is_not_imported(
    client: LanguageClient,
) -> None:
    path: Path = client.root / "marking" / "marking_skill.py"
    uri = open_file(client, path)
    found = await wait_for_codes(client, uri, {"unknown-step"})
    assert "build-error" not in {d.code for d in found}
    await asyncio.sleep(1.0)
    assert not path.with_name("IMPORTED").exists()
    assert not any("analysis worker started" in m.message for m in client.log_messages)


async def test_the_syntax_layer_answers_in_full(client: LanguageClient) -> None:
    path: Path = client.root / "marking" / "marking_skill.py"
    uri = open_file(client, path)
    await wait_for_codes(client, uri, {"unknown-step"})
    doc = types.TextDocumentIdentifier(uri=uri)
    at_b = position(MARKING, '.step("b"', client.encoding, shift=7)
    found = await client.text_document_definition_async(
        types.DefinitionParams(text_document=doc, position=at_b)
    )
    assert found and found[0].range.start.line == MARKING[: MARKING.index('"b"')].count("\n")
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=doc)
    )
    names = [s.name for s in symbols] + [c.name for s in symbols for c in s.children or ()]
    assert {"a", "b"} <= set(names)
    at_next = position(MARKING, 'next="nowhere"', client.encoding, shift=6)
    completion = await client.text_document_completion_async(
        types.CompletionParams(text_document=doc, position=at_next)
    )
    items = completion.items if isinstance(completion, types.CompletionList) else completion
    assert {"a", "b"} <= {item.label for item in items or ()}
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(text_document=doc))
    assert lenses
    assert not path.with_name("IMPORTED").exists()
