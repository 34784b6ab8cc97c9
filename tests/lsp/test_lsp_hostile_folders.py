"""Completion of paths in a hostile skill folder: a ``references/`` of 50,000 files, a
folder that is a symlink loop, and a skill whose folder holds 5,000 markdown files for
the skill index to read. Requests must answer (a generous ``asyncio.wait_for`` stands
for "does not hang") with bounded lists."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from skill_lsp.skill_md_links import MAX_ENTRIES
from tests.lsp.support import open_file, position

pytestmark = pytest.mark.asyncio(loop_scope="module")

ANSWER_WITHIN = 60.0
FILES = 50_000
TEXT = (
    "---\nname: crowded\ndescription: Many files. Use when testing.\n---\n\n"
    "Read references/ and [x](references/) and [y](loop/) and [z](references/many-md/)\n"
    "then hand over to /crowded.\n"
)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("crowded") / "ws"
    references = root / "crowded" / "references"
    many_md = references / "many-md"
    many_md.mkdir(parents=True)
    (root / "crowded" / "SKILL.md").write_text(TEXT, encoding="utf-8")
    for number in range(FILES):
        (references / f"file-{number:05d}.txt").touch()
    for number in range(5_000):
        (many_md / f"note-{number:04d}.md").write_text("/crowded\n", encoding="utf-8")
    os.symlink("loop", root / "crowded" / "loop")
    return root


def _doc(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)


async def _labels(client: LanguageClient, uri: str, needle: str) -> list[str]:
    at = position(TEXT, needle, client.encoding, shift=len(needle))
    found = await asyncio.wait_for(
        client.text_document_completion_async(
            types.CompletionParams(text_document=_doc(uri), position=at)
        ),
        ANSWER_WITHIN,
    )
    items = found.items if isinstance(found, types.CompletionList) else (found or [])
    return [item.label for item in items]


@pytest.mark.parametrize("needle", ["Read references/", "[x](references/"])
async def test_completion_in_a_folder_of_50000_files_is_bounded(
    client: LanguageClient, needle: str
) -> None:
    uri = open_file(client, client.root / "crowded" / "SKILL.md", TEXT)
    labels = await _labels(client, uri, needle)
    assert labels
    assert len(labels) <= MAX_ENTRIES


async def test_completion_in_a_symlink_loop_answers_empty(client: LanguageClient) -> None:
    uri = open_file(client, client.root / "crowded" / "SKILL.md", TEXT)
    assert await _labels(client, uri, "[y](loop/") == []


async def test_skill_references_answer_with_thousands_of_markdown_files(
    client: LanguageClient,
) -> None:
    uri = open_file(client, client.root / "crowded" / "SKILL.md", TEXT)
    found = await asyncio.wait_for(
        client.text_document_references_async(
            types.ReferenceParams(
                text_document=_doc(uri),
                position=position(TEXT, "/crowded", client.encoding, shift=2),
                context=types.ReferenceContext(include_declaration=True),
            )
        ),
        ANSWER_WITHIN,
    )
    assert found
