"""Navigation: definition, references, highlights, rename, document and workspace symbols."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from tests.lsp.support import open_file, position, span_text, wait_for

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def _deploy(client: LanguageClient) -> tuple[str, str]:
    path = client.root / "deploy" / "deploy_check.py"
    text = path.read_text(encoding="utf-8")
    uri = open_file(client, path, text)
    await wait_for(lambda: uri in client.diagnostics, what="indexing")
    return uri, text


def _doc(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)


async def test_definition_from_every_kind_of_step_string(client: LanguageClient) -> None:
    uri, text = await _deploy(client)
    step_line = text[: text.index('"verify",\n        prompt')].count("\n")
    cases = (
        ('next="verify"', 7, "verify"),
        ("steps['choose']", 8, "choose"),
        ('return "deploy"', 9, "deploy"),
    )
    for needle, shift, expected in cases:
        found = await client.text_document_definition_async(
            types.DefinitionParams(
                text_document=_doc(uri),
                position=position(text, needle, client.encoding, shift=shift),
            )
        )
        assert found, needle
        target = found[0]
        assert target.uri == uri
        assert span_text(text, target.range, client.encoding).strip('"') == expected
    verify = await client.text_document_definition_async(
        types.DefinitionParams(
            text_document=_doc(uri),
            position=position(text, 'next="verify"', client.encoding, shift=7),
        )
    )
    assert verify[0].range.start.line == step_line


async def test_references_and_highlights_cover_store_reads(client: LanguageClient) -> None:
    uri, text = await _deploy(client)
    at = position(text, '"choose"', client.encoding, nth=1, shift=2)
    refs = await client.text_document_references_async(
        types.ReferenceParams(
            text_document=_doc(uri),
            position=at,
            context=types.ReferenceContext(include_declaration=True),
        )
    )
    lines = sorted(ref.range.start.line for ref in refs)
    expected = sorted(
        text[:index].count("\n")
        for index in (
            text.index('entry="choose"') + 7,
            text.index('"choose",\n'),
            text.index("steps['choose']"),
        )
    )
    assert lines == expected
    assert all(span_text(text, ref.range, client.encoding) == "choose" for ref in refs)
    without = await client.text_document_references_async(
        types.ReferenceParams(
            text_document=_doc(uri),
            position=at,
            context=types.ReferenceContext(include_declaration=False),
        )
    )
    assert len(without) == len(refs) - 1
    highlights = await client.text_document_document_highlight_async(
        types.DocumentHighlightParams(text_document=_doc(uri), position=at)
    )
    kinds = sorted(h.kind for h in highlights)
    assert kinds.count(types.DocumentHighlightKind.Write) == 1
    assert len(highlights) == len(refs)


async def test_rename_rewrites_every_use(client: LanguageClient) -> None:
    uri, text = await _deploy(client)
    at = position(text, "steps['choose']", client.encoding, shift=9)
    prepared = await client.text_document_prepare_rename_async(
        types.PrepareRenameParams(text_document=_doc(uri), position=at)
    )
    assert prepared.placeholder == "choose"
    assert span_text(text, prepared.range, client.encoding) == "choose"
    result = await client.text_document_rename_async(
        types.RenameParams(text_document=_doc(uri), position=at, new_name="pick_target")
    )
    edits = result.changes[uri]
    assert len(edits) == 3
    assert all(span_text(text, e.range, client.encoding) == "choose" for e in edits)
    assert {e.new_text for e in edits} == {"pick_target"}


@pytest.mark.parametrize(
    ("new_name", "reason"),
    [("a/b", "reserved for sub-skill steps"), ("verify", "already exists"), ("", "empty")],
)
async def test_rename_refuses_bad_names(client: LanguageClient, new_name: str, reason: str) -> None:
    uri, text = await _deploy(client)
    at = position(text, '"choose"', client.encoding, nth=1, shift=2)
    with pytest.raises(JsonRpcException, match=reason):
        await client.text_document_rename_async(
            types.RenameParams(text_document=_doc(uri), position=at, new_name=new_name)
        )


JOINED = """from skillkit_core import skill

joined = (
    skill(name="joined", entry="greet", description="Strings side by side.")
    .step("greet", prompt="hi", next="done")
    .step("done", prompt="bye", next="gre" "et")
    .build()
)
"""


async def test_rename_refuses_a_step_also_named_by_strings_side_by_side(
    client: LanguageClient,
) -> None:
    # Python reads "gre" "et" as "greet": renaming the other uses left it naming a step
    # that was gone, and nothing said so.
    path = client.root / "joined_names.py"
    uri = open_file(client, path, JOINED)
    await wait_for(lambda: uri in client.diagnostics, what="indexing")
    at = position(JOINED, '"greet"', client.encoding, nth=1, shift=2)
    with pytest.raises(JsonRpcException, match="side by side on line 6"):
        await client.text_document_rename_async(
            types.RenameParams(text_document=_doc(uri), position=at, new_name="hello")
        )
    at = position(JOINED, '"done"', client.encoding, shift=2)
    result = await client.text_document_rename_async(
        types.RenameParams(text_document=_doc(uri), position=at, new_name="finish")
    )
    assert len(result.changes[uri]) == 2


async def test_prepare_rename_outside_a_step_name_is_refused(client: LanguageClient) -> None:
    uri, text = await _deploy(client)
    result = await client.text_document_prepare_rename_async(
        types.PrepareRenameParams(
            text_document=_doc(uri),
            position=position(text, "class Verify", client.encoding, shift=7),
        )
    )
    assert result is None


async def test_document_symbols_list_steps_with_details(client: LanguageClient) -> None:
    uri, text = await _deploy(client)
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=_doc(uri))
    )
    (top,) = symbols
    assert top.name == "deploy-check"
    details = {child.name: child.detail for child in top.children}
    assert details == {
        "choose": "act (ask_user) → Choose",
        "verify": "callable → Verify",
        "deploy": "string → Deployed",
        "abort": "string",
    }
    assert span_text(text, top.children[0].selection_range, client.encoding) == "choose"


async def test_workspace_symbols_find_steps_in_unopened_files(client: LanguageClient) -> None:
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="orphan"))
    assert [s.name for s in found] == ["orphan"]
    assert found[0].location.uri.endswith("broken/broken_steps.py")
    assert found[0].container_name == "broken"
    every = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query=""))
    names = {s.name for s in every}
    assert {"deploy-check", "desk", "billing", "hours"} <= names
