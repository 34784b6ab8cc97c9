"""Settings: read through workspace/configuration and applied live; executeCode off."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from tests.lsp.support import codes, open_file, position, wait_for, wait_for_codes

pytestmark = pytest.mark.asyncio(loop_scope="module")

INIT_OPTIONS = {"executeCode": False}


def _change_settings(client: LanguageClient, **values) -> None:
    for key, value in values.items():
        client.set_configuration(value, section=f"skillkit.{key}")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))


async def test_without_code_execution_only_syntax_findings_appear(client: LanguageClient) -> None:
    path = client.root / "broken" / "broken_steps.py"
    text = path.read_text(encoding="utf-8")
    uri = open_file(client, path)
    await wait_for_codes(client, uri, {"cycle-guard"})
    await asyncio.sleep(1.0)
    assert "build-error" not in codes(client, uri)
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(text, '"verify"', client.encoding, nth=1, shift=2),
        )
    )
    assert "author code is not executed" in hover.contents.value
    with pytest.raises(JsonRpcException, match="executeCode is false"):
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="skillkit.simulate", arguments=[{"uri": uri}])
        )
    assert any("is not executed" in m.message for m in client.log_messages)


async def test_turning_execution_on_brings_semantic_findings(client: LanguageClient) -> None:
    uri = open_file(client, client.root / "broken" / "broken_steps.py", version=2)
    _change_settings(client, executeCode=True)
    await wait_for_codes(client, uri, {"build-error", "cycle-guard"})
    _change_settings(client, executeCode=False)
    await wait_for(lambda: "build-error" not in codes(client, uri), what="semantic findings to go")


async def test_host_setting_changes_lens_titles(client: LanguageClient) -> None:
    uri = open_file(client, client.root / "deploy" / "deploy_check.py")
    await wait_for(lambda: uri in client.diagnostics, what="indexing")
    _change_settings(client, host="gemini-cli")

    async def simulate_title() -> str:
        lenses = await client.text_document_code_lens_async(
            types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
        return (await client.code_lens_resolve_async(lenses[0])).command.title

    for _ in range(100):
        if await simulate_title() == "▶ Simulate (gemini-cli)":
            break
        await asyncio.sleep(0.05)
    assert await simulate_title() == "▶ Simulate (gemini-cli)"
    if client.preset == "visual-studio-code":
        await wait_for(lambda: client.lens_refreshes > 0, what="a code lens refresh")
    _change_settings(client, host="claude-code")


async def test_lint_ignore_and_select_apply_without_restart(client: LanguageClient) -> None:
    uri = open_file(client, client.root / "broken" / "broken_steps.py", version=3)
    await wait_for_codes(client, uri, {"cycle-guard"})
    _change_settings(client, lint={"ignore": ["cycle-*"], "select": []})
    await wait_for(lambda: "cycle-guard" not in codes(client, uri), what="ignored rule to go")
    md = open_file(client, client.root / "notes-skill" / "SKILL.md")
    await wait_for_codes(client, md, {"name-format", "broken-link"})
    _change_settings(client, lint={"ignore": [], "select": ["broken-link"]})
    await wait_for(lambda: set(codes(client, md)) == {"broken-link"}, what="only the selected rule")
    _change_settings(client, lint={"ignore": [], "select": []})
    await wait_for_codes(client, uri, {"cycle-guard"})


async def test_verbose_trace_logs_analyses_and_publishes(client: LanguageClient) -> None:
    _change_settings(client, executeCode=True, trace={"server": "verbose"})
    path = client.root / "deploy" / "deploy_check.py"
    # A text never analysed before, so the answer cannot come from the cache.
    text = path.read_text(encoding="utf-8") + f"# traced {client.preset}\n"
    uri = open_file(client, path, text, version=9)
    await wait_for(
        lambda: any(m.message.startswith("analysed ") for m in client.log_messages),
        what="an analysis log line",
    )
    # Publishing follows the analysis; its log line may arrive a moment later.
    await wait_for(
        lambda: any(f"diagnostics for {uri}" in m.message for m in client.log_messages),
        what="a publish log line",
    )
    _change_settings(client, executeCode=False, trace={"server": "off"})


async def test_python_files_without_skillkit_are_never_executed(client: LanguageClient) -> None:
    _change_settings(client, executeCode=True)
    marker = client.root / "executed.txt"
    path = client.root / "deploy" / "tool.py"
    text = f"open({str(marker)!r}, 'w').write('ran')\n"
    path.write_text(text, encoding="utf-8")
    uri = open_file(client, path)
    await wait_for(lambda: uri in client.diagnostics, what="diagnostics of the plain module")
    await asyncio.sleep(1.0)
    assert not marker.exists()
    _change_settings(client, executeCode=False)
