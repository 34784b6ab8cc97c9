"""Code lenses: actions above each skill, transitions above each step, stable while typing."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.support import edit, open_file, position, units, wait_for

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def _lenses(client: LanguageClient, uri: str) -> list[types.CodeLens]:
    found = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    return list(found or ())


async def _titles(
    client: LanguageClient, lenses: list[types.CodeLens]
) -> list[tuple[int, str, str]]:
    resolved = []
    for lens in lenses:
        done = await client.code_lens_resolve_async(lens)
        resolved.append((done.range.start.line, done.command.title, done.command.command))
    return resolved


async def test_skill_actions_and_step_transitions(client: LanguageClient) -> None:
    path = client.root / "deploy" / "deploy_check.py"
    text = path.read_text(encoding="utf-8")
    uri = open_file(client, path)
    await wait_for(lambda: uri in client.diagnostics, what="indexing")
    lenses = await _lenses(client, uri)
    assert all(lens.command is None for lens in lenses)  # resolved lazily
    titles = await _titles(client, lenses)
    skill_line = text[: text.index('skill(name="deploy-check"')].count("\n")
    assert [t for t in titles if t[0] == skill_line] == [
        (skill_line, "▶ Simulate (claude-code)", "skillkit.simulate"),
        (skill_line, "Preview", "skillkit.preview"),
        (skill_line, "Build", "skillkit.build"),
        (skill_line, "Check", "skillkit.check"),
    ]
    by_title = {title for _, title, _ in titles}
    assert "entry · goes to verify" in by_title
    assert "reached from choose · goes to abort, deploy" in by_title
    assert "reached from verify · ends the skill" in by_title


async def test_lenses_stay_put_while_typing_in_a_prompt(client: LanguageClient) -> None:
    path = client.root / "deploy" / "deploy_check.py"
    text = path.read_text(encoding="utf-8")
    uri = open_file(client, path, version=1)
    await wait_for(lambda: uri in client.diagnostics, what="indexing")
    before = [(lens.range, lens.data) for lens in await _lenses(client, uri)]
    at = position(text, "maintenant.", client.encoding)
    for version, char in enumerate("encore", start=2):
        edit(client, uri, version, types.Range(at, at), char)
        at = types.Position(at.line, at.character + units(char, client.encoding))
        after = [(lens.range, lens.data) for lens in await _lenses(client, uri)]
        assert after == before


async def test_modules_and_references_get_fitting_lenses(client: LanguageClient) -> None:
    path = client.root / "deploy" / "extras.py"
    text = (
        "from skillkit_core import module, reference, terminal\n\n"
        'docs = reference(name="docs", description="D.").topic("a", label="A", content="x")'
        ".build()\n"
        'parts = module(name="parts", entry="one").step("one", prompt="P", next=terminal).build()\n'
    )
    path.write_text(text, encoding="utf-8")
    uri = open_file(client, path)
    await wait_for(lambda: uri in client.diagnostics, what="indexing")
    titles = await _titles(client, await _lenses(client, uri))
    assert [(line, title) for line, title, _ in titles if line == 2] == [
        (2, "Preview"),
        (2, "Build"),
        (2, "Check"),
    ]
    assert [line for line, _, _ in titles if line == 3] == [3]  # the module's step only
