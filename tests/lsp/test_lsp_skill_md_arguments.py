"""Arguments in a SKILL.md body: completion after ``$``, hovers saying what Claude Code
substitutes, and the linter's argument-in-code warning shown inline."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.support import (
    LINKED_SKILLS,
    open_file,
    position,
    replace_all,
    span_text,
    wait_for_codes,
)

WORKSPACE = LINKED_SKILLS
pytestmark = pytest.mark.asyncio(loop_scope="module")


def _doc(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)


def _pdf_tools(client: LanguageClient) -> tuple[str, str]:
    path = client.root / "pdf-tools" / "SKILL.md"
    text = path.read_text(encoding="utf-8")
    return open_file(client, path, text), text


async def _hover(client: LanguageClient, uri: str, text: str, needle: str, shift: int) -> str:
    found = await client.text_document_hover_async(
        types.HoverParams(
            text_document=_doc(uri), position=position(text, needle, client.encoding, shift=shift)
        )
    )
    assert found is not None, needle
    return found.contents.value


async def test_dollar_completes_declared_names_and_positions(client: LanguageClient) -> None:
    uri, text = _pdf_tools(client)
    found = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=_doc(uri),
            position=position(text, "$file", client.encoding, shift=1),
            context=types.CompletionContext(
                trigger_kind=types.CompletionTriggerKind.TriggerCharacter, trigger_character="$"
            ),
        )
    )
    assert found is not None
    assert [item.label for item in found.items] == [
        "$file",
        "$pages",
        "$ARGUMENTS",
        "$0",
        "$ARGUMENTS[0]",
        "$1",
        "$ARGUMENTS[1]",
    ]
    first = found.items[0]
    assert span_text(text, first.text_edit.range, client.encoding) == "$file"
    assert first.detail == "argument 1 (`arguments`)"
    pages = found.items[1].documentation.value
    assert pages == (
        "Claude Code puts the 2nd argument (index 1; `arguments` names it `pages`) here when "
        "the skill is invoked."
    )
    assert "`/pdf-tools`" in found.items[2].documentation.value


async def test_no_argument_completion_without_a_dollar(client: LanguageClient) -> None:
    uri, text = _pdf_tools(client)
    found = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=_doc(uri), position=position(text, "# PDF tools", client.encoding)
        )
    )
    assert found is None or found.items == []


async def test_hovers_say_what_claude_code_substitutes(client: LanguageClient) -> None:
    uri, text = _pdf_tools(client)
    zero = await _hover(client, uri, text, '"$0"', 2)
    assert zero.startswith("**`$0`** · skill argument")
    assert (
        "Claude Code replaces it with the 1st argument (index 0; `arguments` names it `file`) "
        "typed after `/pdf-tools`" in zero
    )
    assert "The same as `$ARGUMENTS[0]`, `$file`." in zero
    assert "Left as written when fewer are given (empty in older versions)." in zero
    second = await _hover(client, uri, text, "$ARGUMENTS[1]", 11)
    assert "the 2nd argument (index 1; `arguments` names it `pages`)" in second
    assert "The same as `$1`, `$pages`." in second
    named = await _hover(client, uri, text, "$file", 3)
    assert "the 1st argument (index 0; `arguments` names it `file`)" in named
    assert "The same as `$0`, `$ARGUMENTS[0]`." in named
    assert "Empty when fewer are given." in named
    whole = await _hover(client, uri, text, "$ARGUMENTS.", 4)
    assert "the whole argument string typed after `/pdf-tools`, as typed" in whole
    assert "`ARGUMENTS: <value>` appended" in whole


async def test_argument_in_code_shows_inline_with_its_hover(client: LanguageClient) -> None:
    uri, text = _pdf_tools(client)
    edited = text + "\n```bash\nawk '{print $1}' table.csv\n```\n"
    replace_all(client, uri, edited, 2)
    found = await wait_for_codes(client, uri, {"argument-in-code"})
    warning = next(d for d in found if d.code == "argument-in-code")
    assert warning.severity == types.DiagnosticSeverity.Warning
    assert span_text(edited, warning.range, client.encoding) == "$1"
    assert warning.range.start == position(edited, "$1}", client.encoding)
    assert "Claude Code replaces '$1' in this code block" in warning.message
    hover = await _hover(client, uri, edited, "$1}", 1)
    assert "the 2nd argument (index 1; `arguments` names it `pages`)" in hover
    assert "*In a code block too" in hover
    replace_all(client, uri, text, 3)
