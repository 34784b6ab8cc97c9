"""Paths in hand-written skills: document links, go-to-definition, completion of files
inside a link target or after ``references/``, and hovers on scripts."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.support import (
    LINKED_SKILLS,
    edit,
    open_file,
    position,
    replace_all,
    units,
    uri_of,
)

WORKSPACE = LINKED_SKILLS
pytestmark = pytest.mark.asyncio(loop_scope="module")


def _doc(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)


def _span(text: str, needle: str, encoding: str, nth: int = 0) -> types.Range:
    start = position(text, needle, encoding, nth=nth)
    return types.Range(start, types.Position(start.line, start.character + units(needle, encoding)))


async def _found_links(client: LanguageClient, uri: str) -> list[types.DocumentLink]:
    found = await client.text_document_document_link_async(
        types.DocumentLinkParams(text_document=_doc(uri))
    )
    return list(found or ())


async def _links(client: LanguageClient, uri: str) -> list[tuple[types.Range, str]]:
    return [(link.range, link.target) for link in await _found_links(client, uri)]


async def _complete(client: LanguageClient, uri: str, at: types.Position) -> list[str]:
    found = await client.text_document_completion_async(
        types.CompletionParams(text_document=_doc(uri), position=at)
    )
    if found is None:
        return []
    items = found.items if isinstance(found, types.CompletionList) else found
    return sorted(item.label for item in items)


async def test_links_and_mentions_of_existing_files_are_links(client: LanguageClient) -> None:
    skill = client.root / "pdf-tools"
    path = skill / "SKILL.md"
    text = path.read_text(encoding="utf-8")
    uri = open_file(client, path)
    enc = client.encoding
    assert await _links(client, uri) == [
        (
            _span(text, "references/extracting.md", enc),
            uri_of(skill / "references" / "extracting.md"),
        ),
        (
            _span(text, "scripts/extract.py", enc),
            uri_of(skill / "scripts" / "extract.py"),
        ),
        (
            _span(text, "references/tables.md", enc),
            uri_of(skill / "references" / "tables.md"),
        ),
        (
            _span(text, "assets/table-template.csv", enc),
            uri_of(skill / "assets" / "table-template.csv"),
        ),
    ]  # references/forms.md is missing: the linter's finding, not a link


async def test_reference_links_start_at_the_reference_and_mentions_at_the_skill(
    client: LanguageClient,
) -> None:
    skill = client.root / "pdf-tools"
    path = skill / "references" / "extracting.md"
    text = path.read_text(encoding="utf-8")
    uri = open_file(client, path)
    enc = client.encoding
    assert await _links(client, uri) == [
        (
            _span(text, "scripts/extract.py", enc),
            uri_of(skill / "scripts" / "extract.py"),
        ),
        (
            _span(text, "tables.md", enc),
            uri_of(skill / "references" / "tables.md"),
        ),
        (_span(text, "../SKILL.md", enc), uri_of(skill / "SKILL.md")),
    ]


async def test_a_link_to_another_skill_leads_out_of_the_folder(client: LanguageClient) -> None:
    path = client.root / "report-writer" / "references" / "outline.md"
    text = path.read_text(encoding="utf-8")
    uri = open_file(client, path)
    target = client.root / "pdf-tools" / "SKILL.md"
    assert await _links(client, uri) == [
        (
            _span(text, "../../pdf-tools/SKILL.md", client.encoding),
            uri_of(target),
        )
    ]


async def test_tooltips_name_the_file_where_the_client_shows_them(
    client: LanguageClient,
) -> None:
    skill = client.root / "pdf-tools"
    uri = open_file(client, skill / "references" / "extracting.md")
    links = await _found_links(client, uri)
    support = client.capabilities.text_document.document_link
    if support is not None and support.tooltip_support:
        outside = client.root / "report-writer" / "references" / "outline.md"
        outside_links = await _found_links(client, open_file(client, outside))
        assert [link.tooltip for link in links] == [
            "scripts/extract.py",
            "references/tables.md",
            "SKILL.md",
        ]
        # Outside the skill folder: the whole path.
        assert [link.tooltip for link in outside_links] == [
            str(client.root / "pdf-tools" / "SKILL.md")
        ]
    else:
        assert [link.tooltip for link in links] == [None, None, None]


async def test_other_files_have_no_links(client: LanguageClient) -> None:
    readme = client.root / "README.md"
    uri = open_file(client, readme)
    assert await _links(client, uri) == []


async def test_definition_on_a_path_opens_the_file(client: LanguageClient) -> None:
    skill = client.root / "pdf-tools"
    path = skill / "SKILL.md"
    text = path.read_text(encoding="utf-8")
    uri = open_file(client, path)
    zero = types.Range(types.Position(0, 0), types.Position(0, 0))
    for needle, target in (
        ("references/extracting.md", skill / "references" / "extracting.md"),
        ("scripts/extract.py", skill / "scripts" / "extract.py"),
        ("assets/table-template.csv", skill / "assets" / "table-template.csv"),
    ):
        at = position(text, needle, client.encoding, shift=4)
        found = await client.text_document_definition_async(
            types.DefinitionParams(text_document=_doc(uri), position=at)
        )
        assert found == [types.Location(uri=uri_of(target), range=zero)], needle
    missing = position(text, "references/forms.md", client.encoding, shift=3)
    found = await client.text_document_definition_async(
        types.DefinitionParams(text_document=_doc(uri), position=missing)
    )
    assert not found


async def _typed(client: LanguageClient, path: Path, typed: str, version: int) -> tuple[str, str]:
    """Open ``path`` with ``typed`` appended as a new last line; (uri, new text)."""
    text = path.read_text(encoding="utf-8")
    uri = open_file(client, path, version=version)
    lines = text.split("\n")
    end = types.Position(len(lines) - 1, units(lines[-1], client.encoding))
    edit(client, uri, version + 1, types.Range(end, end), typed)
    return uri, text + typed


async def test_completion_inside_a_link_target_lists_the_folder(client: LanguageClient) -> None:
    skill = client.root / "report-writer"
    uri, text = await _typed(client, skill / "SKILL.md", "See [the outline](references/", 10)
    lines = text.split("\n")
    at = types.Position(len(lines) - 1, units(lines[-1], client.encoding))
    assert await _complete(client, uri, at) == ["outline.md"]
    found = await client.text_document_completion_async(
        types.CompletionParams(text_document=_doc(uri), position=at)
    )
    item = found.items[0]
    assert item.kind == types.CompletionItemKind.File
    assert item.text_edit == types.TextEdit(range=types.Range(at, at), new_text="outline.md")


async def test_completion_at_a_link_start_lists_the_skill_folder(client: LanguageClient) -> None:
    skill = client.root / "pdf-tools"
    uri, text = await _typed(client, skill / "SKILL.md", "Also [see](", 20)
    lines = text.split("\n")
    at = types.Position(len(lines) - 1, units(lines[-1], client.encoding))
    # SKILL.md itself is not offered.
    assert await _complete(client, uri, at) == ["assets/", "references/", "scripts/"]


async def test_typing_the_paren_of_a_link_triggers_the_folder_list(
    client: LanguageClient, tmp_path: Path
) -> None:
    from tests.lsp.raw_lsp import RawLsp

    raw = RawLsp(tmp_path, tmp_path / "stderr.txt")
    try:
        answer = next(m for m in raw.messages if m.get("id") == 1)
    finally:
        raw.close()
    assert "(" in answer["result"]["capabilities"]["completionProvider"]["triggerCharacters"]
    skill = client.root / "release-notes"
    uri, text = await _typed(client, skill / "SKILL.md", "Read [the notes](", 40)
    lines = text.split("\n")
    at = types.Position(len(lines) - 1, units(lines[-1], client.encoding))
    found = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=_doc(uri),
            position=at,
            context=types.CompletionContext(
                trigger_kind=types.CompletionTriggerKind.TriggerCharacter, trigger_character="("
            ),
        )
    )
    assert sorted(item.label for item in found.items) == ["scripts/"]


async def test_completion_replaces_the_segment_being_typed(client: LanguageClient) -> None:
    skill = client.root / "pdf-tools"
    text = (skill / "SKILL.md").read_text(encoding="utf-8")
    uri = open_file(client, skill / "SKILL.md", version=30)
    # The cursor in the middle of "extracting.md" in an existing link.
    at = position(text, "extracting.md", client.encoding, shift=3)
    found = await client.text_document_completion_async(
        types.CompletionParams(text_document=_doc(uri), position=at)
    )
    labels = sorted(item.label for item in found.items)
    assert labels == ["extracting.md", "tables.md"]
    assert found.items[0].text_edit.range == _span(text, "extracting.md", client.encoding)


async def test_completion_after_a_skill_folder_in_prose(client: LanguageClient) -> None:
    skill = client.root / "pdf-tools"
    uri, text = await _typed(client, skill / "SKILL.md", "Then run `scripts/", 40)
    lines = text.split("\n")
    at = types.Position(len(lines) - 1, units(lines[-1], client.encoding))
    assert await _complete(client, uri, at) == ["extract.py"]


async def test_completion_in_a_reference_file(client: LanguageClient) -> None:
    skill = client.root / "pdf-tools"
    path = skill / "references" / "tables.md"
    uri, text = await _typed(client, path, "\nSee [also](", 50)
    lines = text.split("\n")
    at = types.Position(len(lines) - 1, units(lines[-1], client.encoding))
    # Relative to the reference's folder; the reference itself is not offered.
    assert await _complete(client, uri, at) == ["extracting.md"]
    replace_all(client, uri, text + "\nsee assets/", 52)
    at = types.Position(len(lines), len("see assets/"))
    assert await _complete(client, uri, at) == ["table-template.csv"]


async def test_hover_on_a_script_shows_its_interpreter_and_first_lines(
    client: LanguageClient,
) -> None:
    path = client.root / "pdf-tools" / "SKILL.md"
    text = path.read_text(encoding="utf-8")
    uri = open_file(client, path, version=60)
    at = position(text, "scripts/extract.py", client.encoding, shift=2)
    found = await client.text_document_hover_async(
        types.HoverParams(text_document=_doc(uri), position=at)
    )
    value = found.contents.value
    assert value.startswith("**`scripts/extract.py`** · script")
    assert "Runs with `python3` (python), from its shebang `#!/usr/bin/env python3`." in value
    assert '"""Print the text of a PDF file' in value
    assert "```python\n#!/usr/bin/env python3\n" in value


async def test_hover_on_a_script_without_a_shebang_names_the_extension(
    client: LanguageClient,
) -> None:
    skill = client.root / "release-notes"
    (skill / "scripts" / "tidy.py").write_text("print('tidy')\n", encoding="utf-8")
    path = skill / "SKILL.md"
    text = path.read_text(encoding="utf-8") + "Finally run `scripts/tidy.py`.\n"
    uri = open_file(client, path, text, version=70)
    at = position(text, "scripts/tidy.py", client.encoding, shift=9)
    found = await client.text_document_hover_async(
        types.HoverParams(text_document=_doc(uri), position=at)
    )
    value = found.contents.value
    assert "No shebang: the extension implies python (`#!/usr/bin/env python3`)." in value
    assert "print('tidy')" in value
    shell = position(text, "scripts/collect.sh", client.encoding, shift=2)
    found = await client.text_document_hover_async(
        types.HoverParams(text_document=_doc(uri), position=shell)
    )
    assert "Runs with `sh` (shell), from its shebang `#!/bin/sh`." in found.contents.value


async def test_a_half_typed_document_answers_without_crashing(client: LanguageClient) -> None:
    path = client.root / "report-writer" / "SKILL.md"
    half = "---\nname: report-wri\ndescription: [unclosed\n\n# Title\n\n[x](refer"
    uri = open_file(client, path, half, version=80)
    lines = half.split("\n")
    end = types.Position(len(lines) - 1, len(lines[-1]))
    # No closing '---': the whole text is frontmatter, so nothing is a body path.
    assert await _links(client, uri) == []
    assert await _complete(client, uri, end) == []
    for typed in ("[x](", "[x](<", "[](#", "`scripts/", "scripts/../../", "[x]("):
        text = "---\nname: report-writer\ndescription: D.\n---\n\n" + typed
        replace_all(client, uri, text, 81)
        at = types.Position(5, len(typed))
        await _complete(client, uri, at)
        await _links(client, uri)
        await client.text_document_hover_async(
            types.HoverParams(text_document=_doc(uri), position=at)
        )
        await client.text_document_definition_async(
            types.DefinitionParams(text_document=_doc(uri), position=at)
        )
    replace_all(client, uri, "---\nname: report-writer\n---\n\n[x](references/out", 82)
    assert await _complete(client, uri, types.Position(4, 22)) == ["outline.md"]


async def test_reference_files_hover_and_lead_to_their_paths(client: LanguageClient) -> None:
    skill = client.root / "pdf-tools"
    path = skill / "references" / "extracting.md"
    text = path.read_text(encoding="utf-8")
    uri = open_file(client, path, version=90)
    at = position(text, "scripts/extract.py", client.encoding, shift=8)
    found = await client.text_document_hover_async(
        types.HoverParams(text_document=_doc(uri), position=at)
    )
    assert found.contents.value.startswith("**`scripts/extract.py`** · script")
    sibling = position(text, "tables.md", client.encoding, shift=1)
    found = await client.text_document_hover_async(
        types.HoverParams(text_document=_doc(uri), position=sibling)
    )
    assert found.contents.value.startswith("**`references/tables.md`** · ~")
    assert "Tables come out as CSV" in found.contents.value
    zero = types.Range(types.Position(0, 0), types.Position(0, 0))
    for where, target in (
        (at, skill / "scripts" / "extract.py"),
        (sibling, path.parent / "tables.md"),
    ):
        found = await client.text_document_definition_async(
            types.DefinitionParams(text_document=_doc(uri), position=where)
        )
        assert found == [types.Location(uri=uri_of(target), range=zero)]


async def test_a_fragment_leads_to_its_heading(client: LanguageClient) -> None:
    skill = client.root / "pdf-tools"
    path = skill / "SKILL.md"
    text = path.read_text(encoding="utf-8") + (
        "See [the steps](#steps), [extracting](references/extracting.md#extracting-text)"
        " and [nothing](#no-such-heading).\n"
    )
    uri = open_file(client, path, text, version=100)

    async def definition(needle: str) -> list[types.Location] | None:
        at = position(text, needle, client.encoding, shift=2)
        return await client.text_document_definition_async(
            types.DefinitionParams(text_document=_doc(uri), position=at)
        )

    assert await definition("#steps") == [
        types.Location(uri=uri, range=_span(text, "Steps", client.encoding))
    ]
    reference = skill / "references" / "extracting.md"
    heading = types.Range(types.Position(0, 2), types.Position(0, len("# Extracting text")))
    assert await definition("references/extracting.md#") == [
        types.Location(uri=uri_of(reference), range=heading)
    ]
    assert not await definition("#no-such-heading")


async def test_a_skill_path_that_climbs_out_is_no_link(client: LanguageClient) -> None:
    path = client.root / "release-notes" / "SKILL.md"
    text = path.read_text(encoding="utf-8") + "Not ours: scripts/../../pdf-tools/SKILL.md.\n"
    uri = open_file(client, path, text, version=110)
    assert await _links(client, uri) == [
        (
            _span(text, "scripts/collect.sh", client.encoding),
            uri_of(path.parent / "scripts" / "collect.sh"),
        )
    ]


async def test_a_fragment_into_another_file_counts_its_lines_and_units_as_the_editor(
    client: LanguageClient,
) -> None:
    """A form feed is no line break for LSP, and a non-ASCII heading's end is in the
    client's units (UTF-8 for Neovim, UTF-16 for VS Code)."""
    skill = client.root / "pdf-tools"
    notes = client.root / "größen.md"  # outside every folder another test lists
    notes.write_text("---\ntitle: x\n---\nIntro\x0cpage two\n## Größe der Seite\n", "utf-8")
    text = (skill / "SKILL.md").read_text(encoding="utf-8") + (
        "Sizes: [sizes](../größen.md#größe-der-seite).\n"
    )
    uri = open_file(client, skill / "SKILL.md", text, version=120)
    found = await client.text_document_definition_async(
        types.DefinitionParams(
            text_document=_doc(uri), position=position(text, "größen.md#", client.encoding)
        )
    )
    start = types.Position(4, 3)
    end = types.Position(4, 3 + units("Größe der Seite", client.encoding))
    assert found == [types.Location(uri=uri_of(notes), range=types.Range(start, end))]


async def test_a_name_a_link_cannot_hold_bare_is_completed_percent_escaped(
    client: LanguageClient,
) -> None:
    # CommonMark 6.3: a bare link destination holds no space (nor unbalanced
    # parentheses); `[n](references/my notes.md)` was plain text, with no link.
    skill = client.root / "report-writer"
    spaced = skill / "references" / "my notes (draft).md"
    spaced.write_text("Notes.\n", encoding="utf-8")
    try:
        uri, text = await _typed(client, skill / "SKILL.md", "See [n](references/my", 40)
        lines = text.split("\n")
        at = types.Position(len(lines) - 1, units(lines[-1], client.encoding))
        found = await client.text_document_completion_async(
            types.CompletionParams(text_document=_doc(uri), position=at)
        )
        item = next(i for i in found.items if i.label == "my notes (draft).md")
        assert item.text_edit.new_text == "my%20notes%20%28draft%29.md"
        edit(client, uri, 42, item.text_edit.range, item.text_edit.new_text + ")")
        targets = [target for _, target in await _links(client, uri)]
        assert uri_of(spaced) in targets or spaced.as_uri() in targets, targets
    finally:
        spaced.unlink()
