"""The structure of hand-written skills: document symbols (frontmatter keys, headings by
level), folding ranges, and the lens with the disclosure tiers and listing shares that
``skillkit preview`` computes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.support import LINKED_SKILLS, open_file, replace_all, units

WORKSPACE = LINKED_SKILLS
pytestmark = pytest.mark.asyncio(loop_scope="module")


def _doc(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)


def _range(line: int, start: int, end_line: int, end: int) -> types.Range:
    return types.Range(types.Position(line, start), types.Position(end_line, end))


def _line_end(text: str, line: int, encoding: str) -> int:
    return units(text.split("\n")[line], encoding)


async def _symbols(client: LanguageClient, uri: str) -> list[types.DocumentSymbol]:
    found = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=_doc(uri))
    )
    return list(found or ())


def _outline(symbols: list[types.DocumentSymbol], depth: int = 0) -> list[tuple]:
    rows = []
    for symbol in symbols:
        rows.append((depth, symbol.name, symbol.kind, symbol.detail))
        rows.extend(_outline(list(symbol.children or ()), depth + 1))
    return rows


async def _folds(client: LanguageClient, uri: str) -> list[tuple[int, int, str | None]]:
    found = await client.text_document_folding_range_async(
        types.FoldingRangeParams(text_document=_doc(uri))
    )
    return [(item.start_line, item.end_line, item.kind) for item in found or ()]


async def _lenses(client: LanguageClient, uri: str) -> list[types.CodeLens]:
    found = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=_doc(uri))
    )
    return list(found or ())


async def test_server_declares_links_and_folding(tmp_path: Path) -> None:
    from tests.lsp.raw_lsp import RawLsp

    raw = RawLsp(tmp_path, tmp_path / "stderr.txt")
    try:
        answer = next(m for m in raw.messages if m.get("id") == 1)
    finally:
        raw.close()
    capabilities = answer["result"]["capabilities"]
    assert capabilities["documentLinkProvider"] == {"resolveProvider": False}
    assert capabilities["foldingRangeProvider"] is True
    assert capabilities["documentSymbolProvider"] is True


async def test_symbols_are_frontmatter_keys_and_headings_by_level(client: LanguageClient) -> None:
    path = client.root / "pdf-tools" / "SKILL.md"
    text = path.read_text(encoding="utf-8")
    uri = open_file(client, path)
    symbols = await _symbols(client, uri)
    kinds = types.SymbolKind
    description = "Extract text and tables from PDF files. Use when the user sends a PDF"
    assert _outline(symbols) == [
        (0, "frontmatter", kinds.Namespace, "5 keys"),
        (1, "name", kinds.Property, "pdf-tools"),
        (1, "description", kinds.Property, description[:59] + "…"),
        (1, "arguments", kinds.Property, "2 items"),
        (1, "allowed-tools", kinds.Property, "Read Bash(python:*)"),
        (1, "effort", kinds.Property, "medium"),
        (0, "PDF tools", kinds.String, "#"),
        (1, "Steps", kinds.String, "##"),
        (1, "Notes", kinds.String, "##"),
    ]
    enc = client.encoding
    frontmatter, title = symbols
    assert frontmatter.range == _range(0, 0, 6, 3)
    assert frontmatter.selection_range == _range(0, 0, 0, 3)
    name = frontmatter.children[0]
    assert name.range == _range(1, 0, 1, len("name: pdf-tools"))
    assert name.selection_range == _range(1, 0, 1, 4)
    assert frontmatter.children[2].range == _range(3, 0, 3, len("arguments: [file, pages]"))
    assert title.range == _range(8, 0, 21, _line_end(text, 21, enc))
    assert title.selection_range == _range(8, 2, 8, 11)
    steps, notes = title.children
    assert steps.range == _range(12, 0, 16, _line_end(text, 16, enc))
    assert steps.selection_range == _range(12, 3, 12, 8)
    assert notes.range == _range(18, 0, 21, _line_end(text, 21, enc))


async def test_headings_in_code_are_not_symbols_and_levels_may_skip(
    client: LanguageClient,
) -> None:
    path = client.root / "report-writer" / "SKILL.md"
    text = (
        "---\nname: report-writer\ndescription: D.\nmetadata:\n  author: me\n  version: 1\n---\n"
        "# Café ☕ #\n\n```bash\n# not a heading\n```\n\n### Deep\n\n## Back up\n#nohash\n#\n"
    )
    uri = open_file(client, path, text)
    symbols = await _symbols(client, uri)
    kinds = types.SymbolKind
    assert _outline(symbols) == [
        (0, "frontmatter", kinds.Namespace, "3 keys"),
        (1, "name", kinds.Property, "report-writer"),
        (1, "description", kinds.Property, "D."),
        (1, "metadata", kinds.Property, "2 keys"),
        (2, "author", kinds.Property, "me"),
        (2, "version", kinds.Property, "1"),
        (0, "Café ☕", kinds.String, "#"),
        (1, "Deep", kinds.String, "###"),
        (1, "Back up", kinds.String, "##"),
        (0, "(empty heading)", kinds.String, "#"),
    ]
    metadata = symbols[0].children[2]
    assert metadata.range == _range(3, 0, 5, len("  version: 1"))
    cafe = symbols[1]
    enc = client.encoding
    assert cafe.selection_range == _range(7, 2, 7, 2 + units("Café ☕", enc))
    assert cafe.range == _range(7, 0, 16, len("#nohash"))
    folds = await _folds(client, uri)
    assert folds == [(0, 6, "region"), (7, 16, None), (9, 11, None), (15, 16, None)]


async def test_reference_files_have_heading_symbols(client: LanguageClient) -> None:
    path = client.root / "pdf-tools" / "references" / "extracting.md"
    uri = open_file(client, path)
    assert _outline(await _symbols(client, uri)) == [
        (0, "Extracting text", types.SymbolKind.String, "#")
    ]
    assert await _folds(client, uri) == [(0, 3, None)]


async def test_folding_ranges_cover_frontmatter_sections_and_code(client: LanguageClient) -> None:
    path = client.root / "pdf-tools" / "SKILL.md"
    uri = open_file(client, path, version=5)
    assert await _folds(client, uri) == [
        (0, 6, "region"),
        (8, 21, None),
        (12, 16, None),
        (18, 21, None),
    ]
    text = path.read_text(encoding="utf-8") + "\n## Example\n\n~~~sh\nrun it\n\nagain\n"
    replace_all(client, uri, text, 6)
    # An unclosed fence folds to the end of the document.
    assert await _folds(client, uri) == [
        (0, 6, "region"),
        (8, 28, None),
        (12, 16, None),
        (18, 21, None),
        (23, 28, None),
        (25, 29, None),
    ]


def _lens_numbers(title: str) -> dict[str, float | int]:
    """The numbers of a tiers lens title, by what they count."""
    numbers: dict[str, float | int] = {}
    for label, value in re.findall(r"(metadata|body|files on demand) ~(\d+) tokens", title):
        numbers[label] = int(value)
    for host, percent, used, limit in re.findall(
        r"(Claude Code listing budget|Codex listing budget) ([\d.]+)% \((\d+)/(\d+) \w+\)", title
    ):
        numbers[host] = float(percent)
        numbers[host + " used"] = int(used)
        numbers[host + " limit"] = int(limit)
    return numbers


def _preview_numbers(folder: Path) -> dict[str, float | int]:
    """The same numbers from ``skillkit preview FOLDER --format json``'s core function."""
    from skillkit_core.simulate.commands import preview_command

    data = json.loads(preview_command(str(folder), output_format="json").content)
    claude, codex = data["tier1"]["hosts"]
    return {
        "metadata": data["tier1"]["tokens"],
        "body": data["tier2"]["tokens"],
        "files on demand": data["tier3"]["tokens"],
        "Claude Code listing budget": claude["percent"],
        "Claude Code listing budget used": claude["used"],
        "Claude Code listing budget limit": claude["limit"],
        "Codex listing budget": codex["percent"],
        "Codex listing budget used": codex["used"],
        "Codex listing budget limit": codex["limit"],
    }


async def test_tiers_lens_gives_the_numbers_of_skillkit_preview(client: LanguageClient) -> None:
    for skill in ("pdf-tools", "report-writer", "release-notes"):
        folder = client.root / skill
        uri = open_file(client, folder / "SKILL.md", version=10)
        lenses = await _lenses(client, uri)
        assert len(lenses) == 1, skill
        lens = lenses[0]
        assert lens.range == _range(0, 0, 0, 0)
        assert await client.code_lens_resolve_async(lens) == lens
        assert _lens_numbers(lens.command.title) == _preview_numbers(folder), skill


async def test_clicking_the_tiers_lens_shows_skillkit_preview(client: LanguageClient) -> None:
    from skillkit_core.simulate.commands import preview_command

    folder = client.root / "report-writer"
    uri = open_file(client, folder / "SKILL.md", version=11)
    (lens,) = await _lenses(client, uri)
    assert lens.command.command == "skillkit.preview"
    assert list(lens.command.arguments) == [{"uri": uri}]
    options = {**lens.command.arguments[0], "show": False}
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=lens.command.command, arguments=[options])
    )
    assert result["markdown"] == preview_command(str(folder)).content
    assert (
        Path(result["uri"].removeprefix("file://")).read_text(encoding="utf-8")
        == (result["markdown"])
    )


async def test_tiers_lens_follows_the_unsaved_text(client: LanguageClient) -> None:
    from skillkit_core.simulate.tiers import tier_view

    folder = client.root / "release-notes"
    path = folder / "SKILL.md"
    uri = open_file(client, path, version=20)
    text = path.read_text(encoding="utf-8").replace(
        "Draft release notes", "Draft and publish release notes"
    ) + ("More body text.\n" * 40)
    replace_all(client, uri, text, 21)
    title = (await _lenses(client, uri))[0].command.title
    view = tier_view(folder, text=text)
    assert f"body ~{view.body_tokens} tokens" in title
    codex = view.shares[1]
    assert f"Codex listing budget {codex.percent}% ({codex.used}/21760 bytes)" in title
    assert view.body_tokens > tier_view(folder).body_tokens


async def test_half_typed_skill_md_structure_does_not_crash(client: LanguageClient) -> None:
    path = client.root / "report-writer" / "SKILL.md"
    uri = open_file(client, path, "---\nname: report-wri\ndescription: [unclosed\n# Title", 30)
    assert await _symbols(client, uri) == []
    assert await _folds(client, uri) == []
    title = (await _lenses(client, uri))[0].command.title
    assert "not listed:" in title
    for version, text in enumerate(
        ("", "---", "---\n---", "# only\n```\n", "---\nname: x\n---\n#\n##", "\r\n---\r\n"),
        start=31,
    ):
        replace_all(client, uri, text, version)
        await _symbols(client, uri)
        await _folds(client, uri)
        await _lenses(client, uri)
    replace_all(client, uri, "no frontmatter\n# Heading\ntext\n", 40)
    assert await _lenses(client, uri) == []
    assert _outline(await _symbols(client, uri)) == [(0, "Heading", types.SymbolKind.String, "#")]


async def test_a_reference_files_frontmatter_is_not_its_outline(client: LanguageClient) -> None:
    """A YAML comment in a reference's frontmatter is no heading (as fragments skip it)."""
    path = client.root / "pdf-tools" / "references" / "with-frontmatter.md"
    text = "---\n# a YAML comment\ntitle: Forms\n---\n# Forms\n\nFill them in.\n"
    uri = open_file(client, path, text)
    assert _outline(await _symbols(client, uri)) == [(0, "Forms", types.SymbolKind.String, "#")]
