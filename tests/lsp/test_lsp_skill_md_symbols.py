"""Skills as symbols across the workspace: definition from ``/name`` and from a skill's
name in another skill or reference file, and every reference to a skill."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.support import LINKED_SKILLS, open_file, position, replace_all, span_text, uri_of

WORKSPACE = LINKED_SKILLS
pytestmark = pytest.mark.asyncio(loop_scope="module")

# (file, text before the name, how far the name starts after that text's start)
PDF_TOOLS_PLACES = (
    ("pdf-tools/SKILL.md", "name: pdf-tools", 6),
    ("release-notes/SKILL.md", "/pdf-tools", 1),
    ("report-writer/SKILL.md", "after pdf-tools", 6),
    ("report-writer/SKILL.md", "/pdf-tools", 1),
    ("report-writer/references/outline.md", "[pdf-tools]", 1),
    ("report-writer/references/outline.md", "../pdf-tools/", 3),
)
REPORT_WRITER_PLACES = (
    ("report-writer/SKILL.md", "name: report-writer", 6),
    ("pdf-tools/SKILL.md", "/report-writer", 1),
    ("release-notes/SKILL.md", "/report-writer", 1),
)


def _doc(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)


def _place(client: LanguageClient, relative: str, needle: str, shift: int, length: int) -> tuple:
    """(uri, line, start, end) of a name in a workspace file, in the client's units."""
    text = (client.root / relative).read_text(encoding="utf-8")
    start = position(text, needle, client.encoding, shift=shift)
    end = position(text, needle, client.encoding, shift=shift + length)
    return uri_of(client.root / relative), start.line, start.character, end.character


def _places(client: LanguageClient, name: str, places: tuple) -> set[tuple]:
    return {_place(client, rel, needle, shift, len(name)) for rel, needle, shift in places}


def _found(locations: list[types.Location] | None) -> set[tuple]:
    return {
        (item.uri, item.range.start.line, item.range.start.character, item.range.end.character)
        for item in locations or ()
        if item.range.start.line == item.range.end.line
    }


async def _definition(client: LanguageClient, relative: str, needle: str, shift: int) -> set:
    path = client.root / relative
    text = path.read_text(encoding="utf-8")
    uri = open_file(client, path, text)
    found = await client.text_document_definition_async(
        types.DefinitionParams(
            text_document=_doc(uri), position=position(text, needle, client.encoding, shift=shift)
        )
    )
    return _found(found)


async def test_definition_from_a_slash_invocation(client: LanguageClient) -> None:
    found = await _definition(client, "report-writer/SKILL.md", "/pdf-tools", 4)
    assert found == {_place(client, "pdf-tools/SKILL.md", "name: pdf-tools", 6, 9)}
    in_code = await _definition(client, "pdf-tools/SKILL.md", "`/report-writer`", 2)
    assert in_code == {_place(client, "report-writer/SKILL.md", "name: report-writer", 6, 13)}


async def test_definition_from_a_plain_mention_and_from_a_reference_file(
    client: LanguageClient,
) -> None:
    found = await _definition(client, "report-writer/SKILL.md", "the release-notes skill", 4)
    assert found == {_place(client, "release-notes/SKILL.md", "name: release-notes", 6, 13)}
    from_reference = await _definition(
        client, "report-writer/references/outline.md", "[pdf-tools]", 5
    )
    assert from_reference == {_place(client, "pdf-tools/SKILL.md", "name: pdf-tools", 6, 9)}


async def test_no_definition_away_from_skill_names(client: LanguageClient) -> None:
    assert not await _definition(client, "report-writer/SKILL.md", "# Report writer", 3)


async def test_references_list_every_place_naming_the_skill(client: LanguageClient) -> None:
    path = client.root / "pdf-tools" / "SKILL.md"
    text = path.read_text(encoding="utf-8")
    uri = open_file(client, path, text)
    at = position(text, "name: pdf-tools", client.encoding, shift=8)
    for include in (True, False):
        found = await client.text_document_references_async(
            types.ReferenceParams(
                text_document=_doc(uri),
                position=at,
                context=types.ReferenceContext(include_declaration=include),
            )
        )
        expected = _places(client, "pdf-tools", PDF_TOOLS_PLACES[0 if include else 1 :])
        assert found is not None and len(found) == len(expected)
        assert _found(found) == expected


async def test_references_read_unsaved_text(client: LanguageClient) -> None:
    path = client.root / "release-notes" / "SKILL.md"
    saved = path.read_text(encoding="utf-8")
    uri = open_file(client, path, saved)
    replace_all(client, uri, saved + "Finally ask /report-writer again.\n", 2)
    pdf = client.root / "pdf-tools" / "SKILL.md"
    pdf_text = pdf.read_text(encoding="utf-8")
    pdf_uri = open_file(client, pdf, pdf_text)
    found = await client.text_document_references_async(
        types.ReferenceParams(
            text_document=_doc(pdf_uri),
            position=position(pdf_text, "/report-writer", client.encoding, shift=3),
            context=types.ReferenceContext(include_declaration=True),
        )
    )
    expected = _places(client, "report-writer", REPORT_WRITER_PLACES)
    last_line = len(saved.split("\n")) - 1
    expected.add((uri, last_line, 13, 26))
    assert _found(found) == expected
    replace_all(client, uri, saved, 3)


async def test_a_skill_added_on_disk_counts_after_the_watched_files_notice(
    client: LanguageClient,
) -> None:
    folder: Path = client.root / "invoice-check"
    folder.mkdir()
    skill_md = folder / "SKILL.md"
    skill_md.write_text(
        "---\nname: invoice-check\ndescription: Check invoices. Use for invoices.\n---\n"
        "Extract with /pdf-tools.\n",
        encoding="utf-8",
    )

    def notify(kind: types.FileChangeType) -> None:
        client.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(
                changes=[types.FileEvent(uri=uri_of(skill_md), type=kind)]
            )
        )

    try:
        notify(types.FileChangeType.Created)
        found = await _definition(client, "release-notes/SKILL.md", "/pdf-tools", 1)
        assert found == {_place(client, "pdf-tools/SKILL.md", "name: pdf-tools", 6, 9)}
        path = client.root / "pdf-tools" / "SKILL.md"
        text = path.read_text(encoding="utf-8")
        refs = await client.text_document_references_async(
            types.ReferenceParams(
                text_document=_doc(open_file(client, path, text)),
                position=position(text, "name: pdf-tools", client.encoding, shift=8),
                context=types.ReferenceContext(include_declaration=False),
            )
        )
        assert (uri_of(skill_md), 4, 14, 23) in _found(refs)
    finally:
        shutil.rmtree(folder)
        notify(types.FileChangeType.Deleted)


async def _complete(
    client: LanguageClient, relative: str, text: str, needle: str, shift: int
) -> list[types.CompletionItem]:
    path = client.root / relative
    uri = open_file(client, path, path.read_text(encoding="utf-8"))
    replace_all(client, uri, text, 2)
    found = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=_doc(uri), position=position(text, needle, client.encoding, shift=shift)
        )
    )
    return list(found.items) if found is not None else []


async def test_slash_completes_the_workspace_skills(client: LanguageClient) -> None:
    text = (client.root / "report-writer" / "SKILL.md").read_text(encoding="utf-8")
    items = await _complete(client, "report-writer/SKILL.md", text, "/pdf-tools", 1)
    assert [item.label for item in items] == ["/pdf-tools", "/release-notes", "/report-writer"]
    first = items[0]
    assert span_text(text, first.text_edit.range, client.encoding) == "/pdf-tools"
    assert first.detail == (
        "Extract text and tables from PDF files. Use when the user sends a PDF or asks ab…"
    )
    assert first.documentation.value.startswith("**skill `pdf-tools`** · `pdf-tools/SKILL.md`")


async def test_slash_completion_in_a_reference_file_but_not_in_paths(
    client: LanguageClient,
) -> None:
    relative = "report-writer/references/outline.md"
    saved = (client.root / relative).read_text(encoding="utf-8")
    text = saved + "3. Then run /re\n"
    items = await _complete(client, relative, text, "/re\n", 3)
    assert {item.label for item in items} == {"/pdf-tools", "/release-notes", "/report-writer"}
    assert span_text(text, items[0].text_edit.range, client.encoding) == "/re"
    in_path = await _complete(client, relative, text, "../../pdf-tools", 3)
    assert all(not item.label.startswith("/") for item in in_path)


async def test_hover_on_a_skill_name_shows_its_description(client: LanguageClient) -> None:
    path = client.root / "pdf-tools" / "SKILL.md"
    text = path.read_text(encoding="utf-8")
    uri = open_file(client, path, text)
    found = await client.text_document_hover_async(
        types.HoverParams(
            text_document=_doc(uri),
            position=position(text, "/report-writer", client.encoding, shift=4),
        )
    )
    assert found is not None
    assert found.contents.value == (
        "**skill `report-writer`** · `report-writer/SKILL.md`\n\n"
        "Write a short report from extracted text. Use after pdf-tools has extracted a "
        "document.\n\nNamed in 2 places of the workspace."
    )


async def test_highlights_mark_the_name_key_as_written(client: LanguageClient) -> None:
    path = client.root / "report-writer" / "SKILL.md"
    text = path.read_text(encoding="utf-8")
    uri = open_file(client, path, text)
    mentions = await client.text_document_document_highlight_async(
        types.DocumentHighlightParams(
            text_document=_doc(uri), position=position(text, "/pdf-tools", client.encoding)
        )
    )
    assert [(h.range.start.line, h.kind) for h in mentions or ()] == [
        (2, types.DocumentHighlightKind.Read),
        (9, types.DocumentHighlightKind.Read),
    ]
    own = await client.text_document_document_highlight_async(
        types.DocumentHighlightParams(
            text_document=_doc(uri),
            position=position(text, "name: report-writer", client.encoding, shift=7),
        )
    )
    assert [(h.range.start.line, h.kind) for h in own or ()] == [
        (1, types.DocumentHighlightKind.Write)
    ]


async def test_a_saved_document_makes_the_index_look_for_new_skills(
    client: LanguageClient,
) -> None:
    text = (client.root / "release-notes" / "SKILL.md").read_text(encoding="utf-8")
    edited = text + "Archive with /archive-notes.\n"
    path = client.root / "release-notes" / "SKILL.md"
    uri = open_file(client, path, text)
    replace_all(client, uri, edited, 2)
    at = position(edited, "/archive-notes", client.encoding, shift=2)
    params = types.DefinitionParams(text_document=_doc(uri), position=at)
    assert not await client.text_document_definition_async(params)
    folder = client.root / "archive-notes"
    folder.mkdir()
    (folder / "SKILL.md").write_text(
        "---\nname: archive-notes\ndescription: Archive notes. Use when archiving.\n---\n",
        encoding="utf-8",
    )
    try:
        # Found once the editor reports a save (it may also report the new file).
        client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=_doc(uri)))
        found = await client.text_document_definition_async(params)
        assert _found(found) == {(uri_of(folder / "SKILL.md"), 1, 6, 19)}
    finally:
        shutil.rmtree(folder)
        client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=_doc(uri)))
        replace_all(client, uri, text, 3)


async def test_a_markdown_file_with_an_upper_case_suffix_names_skills_too(
    client: LanguageClient,
) -> None:
    """``NOTES.MD`` is markdown for definition as it is for hover and completion."""
    path = client.root / "NOTES.MD"  # outside the skill folders: no other test counts it
    text = "Run /pdf-tools first.\n"
    uri = uri_of(path)
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="markdown", version=1, text=text
            )
        )
    )
    found = await client.text_document_definition_async(
        types.DefinitionParams(
            text_document=_doc(uri), position=position(text, "/pdf-tools", client.encoding, shift=3)
        )
    )
    assert _found(found) == {_place(client, "pdf-tools/SKILL.md", "name: pdf-tools", 6, 9)}
