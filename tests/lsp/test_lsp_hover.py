"""Hover: prompts per host, primitives and their preamble rows, SKILL.md keys, files."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.support import open_file, position, wait_for

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def _hover(
    client: LanguageClient, uri: str, text: str, needle: str, shift: int = 1, nth: int = 0
):
    result = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(text, needle, client.encoding, nth=nth, shift=shift),
        )
    )
    return result.contents.value if result is not None else None


async def _semantic_hover(
    client: LanguageClient, uri: str, text: str, needle: str, marker: str = "```xml", **kw
) -> str:
    """Hover until the semantic layer's answer (``marker``) is in it."""

    async def ready() -> str | None:
        value = await _hover(client, uri, text, needle, **kw)
        return value if value and marker in value else None

    for _ in range(300):
        value = await ready()
        if value:
            return value
        await asyncio.sleep(0.1)
    raise AssertionError(f"no rendered prompt in the hover of {needle!r}")


async def test_step_hover_shows_the_rendered_prompt_and_schema(client: LanguageClient) -> None:
    path = client.root / "deploy" / "deploy_check.py"
    text = path.read_text(encoding="utf-8")
    uri = open_file(client, path)
    value = await _semantic_hover(client, uri, text, '"choose"', nth=1)
    assert "**step `choose`**" in value
    assert '<ask-user type="structured" question="Où déployer 🚀 ?">' in value
    assert '"enum": [\n        "production",\n        "staging"\n      ]' in value
    assert "entry step" in value and "→ `verify`" in value


async def test_dynamic_prompt_is_rendered_against_example_data(client: LanguageClient) -> None:
    path = client.root / "deploy" / "deploy_check.py"
    text = path.read_text(encoding="utf-8")
    uri = open_file(client, path)
    value = await _semantic_hover(client, uri, text, '"verify"', nth=1)
    assert "rendered against example data" in value
    assert "Vérifie 🔍" in value
    assert "Guaranteed in the store: `choose`" in value
    assert "reached from `choose`" in value
    assert "`route()` may return it" in value


async def test_hover_on_a_transition_string_describes_its_target(client: LanguageClient) -> None:
    path = client.root / "deploy" / "deploy_check.py"
    text = path.read_text(encoding="utf-8")
    uri = open_file(client, path)
    value = await _semantic_hover(client, uri, text, 'return "deploy"', shift=len('return "d'))
    assert "**step `deploy`**" in value and "Déploie ✅ maintenant." in value


async def test_act_hover_shows_xml_and_the_preamble_row(client: LanguageClient) -> None:
    path = client.root / "deploy" / "deploy_check.py"
    text = path.read_text(encoding="utf-8")
    uri = open_file(client, path)
    value = await _semantic_hover(client, uri, text, "act.ask_user", shift=6)
    assert "**`act.ask_user`**" in value
    assert "| `<ask-user>` | AskUserQuestion |" in value


async def test_switching_host_changes_the_hover(client: LanguageClient) -> None:
    path = client.root / "deploy" / "deploy_check.py"
    text = path.read_text(encoding="utf-8")
    uri = open_file(client, path)
    await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="skillkit.setHost", arguments=["codex"])
    )
    try:
        value = await _hover(client, uri, text, "act.ask_user", shift=6)
        assert "host `codex`" in value
        assert "| `<ask-user>` | request_user_input |" in value
        step = await _semantic_hover(client, uri, text, '"choose"', "Prompt on `codex`", nth=1)
        assert "is coming" not in step
    finally:
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="skillkit.setHost", arguments=["claude-code"])
        )


async def test_skill_md_key_hover_names_limits_and_hosts(client: LanguageClient) -> None:
    path = client.root / "notes-skill" / "SKILL.md"
    text = path.read_text(encoding="utf-8")
    uri = open_file(client, path)
    value = await _hover(client, uri, text, "description:", shift=2)
    assert "**`description`** (Agent Skills specification)" in value
    assert "1–1024 characters" in value
    effort = await _hover(client, uri, text, "effort:", shift=1)
    assert "| strict spec validator | refused (not a specification key) |" in effort
    assert "| Claude Code | read |" in effort


async def test_reference_paths_show_the_file(client: LanguageClient) -> None:
    path = client.root / "deploy" / "deploy_check.py"
    text = path.read_text(encoding="utf-8") + 'GUIDE = "references/guide.md"\n'
    uri = open_file(client, path, text)
    await wait_for(lambda: uri in client.diagnostics, what="indexing")
    value = await _hover(client, uri, text, "references/guide.md", shift=3)
    assert "**`references/guide.md`** · ~" in value
    assert "# Deployment guide" in value
    md = client.root / "deploy" / "SKILL.md"
    md_text = "---\nname: deploy\ndescription: D.\n---\n\nSee [guide](references/guide.md).\n"
    md.write_text(md_text, encoding="utf-8")
    md_uri = open_file(client, md)
    value = await _hover(client, md_uri, md_text, "references/guide.md", shift=4)
    assert "Check the blockers first." in value


async def test_a_half_typed_call_keeps_the_last_preview(client: LanguageClient) -> None:
    from tests.lsp.support import replace_all, wait_for_codes

    path = client.root / "deploy" / "deploy_check.py"
    text = path.read_text(encoding="utf-8")
    uri = open_file(client, path, version=60)
    await _semantic_hover(client, uri, text, '"choose"', nth=1)
    broken = text.replace(
        '.step("abort", prompt=', '.step("abort", prompt=act.confirm(\n    .step("x", prompt='
    )
    replace_all(client, uri, broken, 61)
    found = await wait_for_codes(client, uri, {"load-error"})
    assert any("SyntaxError" in d.message for d in found)
    value = await _semantic_hover(client, uri, broken, '"choose"', nth=1)
    assert "From the last version that built" in value
    assert '<ask-user type="structured"' in value
