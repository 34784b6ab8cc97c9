"""Hostile SKILL.md texts for the hand-written skill features: 5 MB of body, a 200 KB
line, 10,000 links, binary garbage, CRLF, lone CR, a BOM, a frontmatter that never
closes, tabs and nested fences, traversal and URI targets, and positions past the end or
inside a surrogate pair. Every request of the SKILL.md features must answer (a generous
``asyncio.wait_for`` stands for "does not hang") without an internal error, and links
and definitions never lead outside the workspace unless the text names such a file."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInternalError
from pygls.uris import to_fs_path
from pytest_lsp import LanguageClient

from skill_lsp.positions import split_lines
from tests.lsp.support import LINKED_SKILLS, open_file, units, wait_for_codes

WORKSPACE = LINKED_SKILLS
pytestmark = pytest.mark.asyncio(loop_scope="module")

ANSWER_WITHIN = 60.0
FRONTMATTER = "---\nname: hostile\ndescription: Hostile text. Use when testing.\n---\n"
_LINK_LINE = "See [outline](references/outline.md#intro), /pdf-tools and scripts/x.sh.\n"


def _garbage() -> str:
    chaos = random.Random(7)
    return bytes(chaos.randrange(256) for _ in range(200_000)).decode("latin-1")


HOSTILE = {
    "five-megabytes": FRONTMATTER + _LINK_LINE * (5 * 1024 * 1024 // len(_LINK_LINE)),
    "long-line": FRONTMATTER + "[a](references/" + "x" * 200_000 + ") /pdf-tool " * 3 + "\n",
    "long-references": FRONTMATTER + " references/a" * 30_000 + "\n",
    "ten-thousand-links": FRONTMATTER + "[t](references/tables.md) " * 10_000 + "\n",
    "brackets": FRONTMATTER + "](" * 100_000 + "\n" + "[" * 100_000 + "\n",
    "garbage": _garbage(),
    "garbage-after-frontmatter": FRONTMATTER + _garbage(),
    "crlf": FRONTMATTER.replace("\n", "\r\n") + "Use /pdf-tools.\r\n$ARGUMENTS $0\r\n",
    "lone-cr": FRONTMATTER.replace("\n", "\r") + "Use /pdf-tools.\r$ARGUMENTS $0\r",
    "bom": "\ufeff" + FRONTMATTER + "Use /pdf-tools and [x](references/outline.md).\n",
    "unclosed-frontmatter": "---\nname: hostile\ndescription: never closed\n" + "key: v\n" * 5000,
    "only-dashes": "---\n" * 10_000,
    "tabs-and-fences": FRONTMATTER
    + "\t# Title\n~~~\n```\n/pdf-tools\n~~~\n    ```\n    indented\n```\n````\n```\n"
    + "> ```\n> /pdf-tool\n",
    "traversal": FRONTMATTER
    + "[p](../../../../../../etc/passwd) [a](/etc/passwd) [f](file:///etc/passwd)\n"
    + "[e](%2e%2e/%2e%2e/%2e%2e/etc/passwd) [s](<references/with space (1).md>)\n"
    + "references/../../../../etc/passwd scripts/../../../../../../etc/hostname\n"
    + "[u](../../../../../../../etc/passwd#top) {baseDir}/../../../../../etc/passwd\n",
    "astral": FRONTMATTER + "🚀🚀 /pdf-tools 🚀 [x](references/outline.md) $ARGUMENTS 𝒜\n",
    "arguments": FRONTMATTER + "$" * 50_000 + " $ARGUMENTS[" + "9" * 5000 + "]\n",
}


def _doc(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)


def _positions(text: str, encoding: str) -> list[types.Position]:
    """The start, a few places inside, the end, past the end of a line and of the text, and
    inside a surrogate pair (UTF-16) or a UTF-8 sequence."""
    lines = split_lines(text)
    found = [types.Position(0, 0), types.Position(0, 10**6), types.Position(10**6, 10**6)]
    if len(text) > 1024 * 1024:  # a few places are enough to show a huge text is handled
        middle = len(lines) // 2
        return [*found, types.Position(middle, 6), types.Position(middle, 30)]
    for number in {1, 4, 5, len(lines) // 2, len(lines) - 1}:
        if 0 <= number < len(lines):
            line = lines[number]
            for column in {0, 6, len(line) // 2, len(line)}:
                column = min(column, len(line))
                found.append(types.Position(number, units(line[:column], encoding)))
            found.append(types.Position(number, units(line, encoding) + 50))
        astral = next((i for i, char in enumerate(lines[number]) if ord(char) > 0xFFFF), None)
        if 0 <= number < len(lines) and astral is not None:
            found.append(types.Position(number, units(lines[number][:astral], encoding) + 1))
    return found


async def _answered(request) -> object:  # type: ignore[no-untyped-def]
    """The answer, which must come; an error answer counts unless it is internal."""
    try:
        return await asyncio.wait_for(request, ANSWER_WITHIN)
    except JsonRpcInternalError:
        raise
    except Exception as error:  # refusals answer too
        if isinstance(error, asyncio.TimeoutError):
            raise
        return error


async def _ask_everything(client: LanguageClient, uri: str, text: str) -> None:
    doc = _doc(uri)
    await _answered(
        client.text_document_document_link_async(types.DocumentLinkParams(text_document=doc))
    )
    await _answered(
        client.text_document_folding_range_async(types.FoldingRangeParams(text_document=doc))
    )
    await _answered(
        client.text_document_document_symbol_async(types.DocumentSymbolParams(text_document=doc))
    )
    await _answered(client.text_document_code_lens_async(types.CodeLensParams(text_document=doc)))
    for at in _positions(text, client.encoding):
        await _answered(
            client.text_document_hover_async(types.HoverParams(text_document=doc, position=at))
        )
        await _answered(
            client.text_document_completion_async(
                types.CompletionParams(text_document=doc, position=at)
            )
        )
        await _answered(
            client.text_document_definition_async(
                types.DefinitionParams(text_document=doc, position=at)
            )
        )
        await _answered(
            client.text_document_references_async(
                types.ReferenceParams(
                    text_document=doc,
                    position=at,
                    context=types.ReferenceContext(include_declaration=True),
                )
            )
        )
        await _answered(
            client.text_document_prepare_rename_async(
                types.PrepareRenameParams(text_document=doc, position=at)
            )
        )
        await _answered(
            client.text_document_code_action_async(
                types.CodeActionParams(
                    text_document=doc,
                    range=types.Range(at, at),
                    context=types.CodeActionContext(diagnostics=[]),
                )
            )
        )


@pytest.mark.parametrize("kind", sorted(HOSTILE))
async def test_every_skill_md_request_answers_on_hostile_text(
    client: LanguageClient, kind: str
) -> None:
    folder = client.root / f"hostile-{kind}"
    folder.mkdir(exist_ok=True)
    path = folder / "SKILL.md"
    text = HOSTILE[kind]
    path.write_bytes(text.encode("utf-8", errors="surrogatepass"))
    uri = open_file(client, path, text)
    await _ask_everything(client, uri, text)
    client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=_doc(uri)))


async def test_links_from_traversal_targets_lead_to_no_file_outside(
    client: LanguageClient,
) -> None:
    """Targets climbing out of the workspace, absolute paths, file: URIs and
    percent-encoded dots name no file of the skill: no link, no definition."""
    folder = client.root / "hostile-traversal"
    folder.mkdir(exist_ok=True)
    path = folder / "SKILL.md"
    text = HOSTILE["traversal"]
    path.write_text(text, encoding="utf-8")
    uri = open_file(client, path, text, version=2)
    links = await _answered(
        client.text_document_document_link_async(types.DocumentLinkParams(text_document=_doc(uri)))
    )
    root = client.root.resolve()
    for link in links or ():
        target = Path(to_fs_path(link.target)).resolve()
        # A relative "../" link to a file that exists stays a link, as in any markdown
        # editor; nothing else may lead out of the workspace.
        assert root in target.parents or str(target) == "/etc/passwd", link.target
    outside = [link for link in links or () if root not in Path(to_fs_path(link.target)).parents]
    assert len(outside) <= 2  # the two "../../../../../../etc/passwd" links at most
    lines = split_lines(text)
    for number, line in enumerate(lines):
        for column in range(0, len(line), 3):
            found = await _answered(
                client.text_document_definition_async(
                    types.DefinitionParams(
                        text_document=_doc(uri), position=types.Position(number, column)
                    )
                )
            )
            for location in found or ():
                target = Path(to_fs_path(location.uri)).resolve()
                assert root in target.parents or str(target) == "/etc/passwd", location.uri
                if root not in target.parents:
                    assert lines[number].startswith(("[p](../", "[u](../")), (number, column)


async def test_a_typo_pasted_forty_thousand_times_is_reported_a_bounded_number_of_times(
    client: LanguageClient,
) -> None:
    from skill_lsp.skill_md_symbols import MAX_MISSPELT, MISSPELT_RULE
    from skillkit_core.lint.capping import MAX_PER_RULE

    folder = client.root / "hostile-typos"
    folder.mkdir(exist_ok=True)
    path = folder / "SKILL.md"
    text = FRONTMATTER + "/pdf-tool " * 40_000 + "\n"
    path.write_text(text, encoding="utf-8")
    uri = open_file(client, path, text)
    await wait_for_codes(client, uri, {MISSPELT_RULE}, timeout=ANSWER_WITHIN)
    found = [d for d in client.diagnostics[uri] if d.code == MISSPELT_RULE]
    # Found at most MAX_MISSPELT times, shown as skillkit check shows a rule's findings in
    # a file: the first MAX_PER_RULE, then one saying how many more there are.
    assert len(found) == MAX_PER_RULE + 1
    assert [d.range.start.character for d in found[:2]] == [1, 11]
    assert found[-1].message == (
        f"… and {MAX_MISSPELT - MAX_PER_RULE} more [{MISSPELT_RULE}] in this file"
    )
    assert found[-1].severity == types.DiagnosticSeverity.Information


@pytest.mark.parametrize(("kind", "eol"), [("lone-cr", "\r"), ("crlf", "\r\n"), ("lf", "\n")])
async def test_disable_actions_keep_the_documents_line_breaks(
    client: LanguageClient, kind: str, eol: str
) -> None:
    from skill_lsp.skill_md_symbols import MISSPELT_RULE
    from tests.lsp.support import read_code_actions_by_their_command_type

    folder = client.root / f"hostile-breaks-{kind}"
    folder.mkdir(exist_ok=True)
    path = folder / "SKILL.md"
    lines = ["---", f"name: hostile-breaks-{kind}", "description: Breaks. Use it.", "---", ""]
    text = eol.join([*lines, "Then ask /pdf-tool for it.", ""])
    path.write_bytes(text.encode("utf-8"))
    uri = open_file(client, path, text)
    (diagnostic,) = await wait_for_codes(client, uri, {MISSPELT_RULE}, timeout=ANSWER_WITHIN)
    read_code_actions_by_their_command_type(client)
    found = await _answered(
        client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=_doc(uri),
                range=diagnostic.range,
                context=types.CodeActionContext(diagnostics=[diagnostic]),
            )
        )
    )
    inserted = [
        edit.new_text
        for action in found or ()
        if isinstance(action, types.CodeAction) and action.title.startswith("Disable ")
        for edit in (action.edit.changes or {}).get(uri, ())
    ]
    assert len(inserted) == 2
    for new_text in inserted:
        assert new_text.endswith(eol)
        assert "\r" not in new_text.replace(eol, "") and "\n" not in new_text.replace(eol, "")
