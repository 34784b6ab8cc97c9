"""A ``/name`` invocation that nearly names a skill of the workspace: a "did you mean"
finding with the corrected name as a suggested quick fix; names of skills, paths, URLs
and far-off names stay quiet."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.support import (
    LINKED_SKILLS,
    codes,
    open_file,
    replace_all,
    span_text,
    wait_for_codes,
)

WORKSPACE = LINKED_SKILLS
pytestmark = pytest.mark.asyncio(loop_scope="module")
RULE = "unknown-skill-invocation"


async def test_a_near_miss_of_a_skill_name_suggests_the_skill(client: LanguageClient) -> None:
    path = client.root / "release-notes" / "SKILL.md"
    text = path.read_text(encoding="utf-8")
    uri = open_file(client, path, text)
    edited = text.replace("ask `/report-writer`", "ask `/reprot-writer`").replace(
        "through /pdf-tools first",
        "through /pdf-tool first (see /tmp, /help, https://x.io/pdf-tool)",
    )
    replace_all(client, uri, edited, 2)
    found = await wait_for_codes(client, uri, {RULE})
    misses = sorted(
        (d for d in found if d.code == RULE),
        key=lambda d: (d.range.start.line, d.range.start.character),
    )
    assert [span_text(edited, d.range, client.encoding) for d in misses] == [
        "reprot-writer",
        "pdf-tool",
    ]
    assert misses[0].severity == types.DiagnosticSeverity.Information
    assert misses[0].message == (
        "'/reprot-writer' names no skill of the workspace; did you mean '/report-writer'?"
    )
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=misses[1].range,
            context=types.CodeActionContext(diagnostics=[misses[1]]),
        )
    )
    change = [
        a for a in actions or () if isinstance(a, types.CodeAction) and a.title.startswith("Change")
    ]
    assert [a.title for a in change] == ["Change to '/pdf-tools'"]
    assert not change[0].is_preferred
    (edit,) = change[0].edit.changes[uri]
    assert edit.new_text == "pdf-tools" and edit.range == misses[1].range
    replace_all(client, uri, text, 3)
    await wait_for_codes(client, uri, set())
    await _quiet(client, uri)


async def _quiet(client: LanguageClient, uri: str) -> None:
    import asyncio

    for _ in range(100):
        if RULE not in codes(client, uri):
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{RULE} stayed on {uri}")
