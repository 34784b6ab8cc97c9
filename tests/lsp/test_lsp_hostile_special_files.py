"""A hostile workspace for the SKILL.md features: FIFOs, a symlink to ``/dev/zero``, an
unreadable script, a huge script, a symlink leading out of the skill and a
``references/`` that is a symlink loop. Every request must answer (a generous
``asyncio.wait_for`` stands for "does not hang"), the server must stay up, and nothing
outside the skill may be shown."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.support import open_file, position, wait_for

pytestmark = [
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs and /dev/zero"),
]

# A request that takes longer than this is taken as hung.
ANSWER_WITHIN = 30.0
SECRET = "TOP-SECRET-OUTSIDE-THE-SKILL"

SKILL_MD = """\
---
name: alpha
description: A skill whose folder holds special files. Use when testing.
---

# Alpha

Run scripts/run.sh, then scripts/zero.sh, scripts/pipe.sh, scripts/locked.sh,
scripts/huge.sh and scripts/secret.sh.

Read [pipe](references/pipe.md#top), [zero](references/zero.md#top) and
[outside](references/secret.md#top), then references/pipe.md and references/zero.md.

Hand over to `/beta`.
"""


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Built in place (copying a FIFO would block)."""
    base = tmp_path_factory.mktemp("hostile")
    outside = base / "outside"
    outside.mkdir()
    (outside / "secret.sh").write_text(f"#!/bin/sh\necho {SECRET}\n", encoding="utf-8")
    (outside / "secret.md").write_text(f"# top\n\n{SECRET}\n", encoding="utf-8")
    root = base / "ws"
    skill = root / "alpha"
    scripts = skill / "scripts"
    references = skill / "references"
    scripts.mkdir(parents=True)
    references.mkdir()
    (skill / "SKILL.md").write_text(SKILL_MD, encoding="utf-8")
    (scripts / "run.sh").write_text("#!/bin/sh\necho ok\n", encoding="utf-8")
    os.symlink("/dev/zero", scripts / "zero.sh")
    os.mkfifo(scripts / "pipe.sh")
    locked = scripts / "locked.sh"
    locked.write_text("#!/bin/sh\n", encoding="utf-8")
    locked.chmod(0)
    with open(scripts / "huge.sh", "wb") as stream:
        stream.write(b"#!/bin/sh\n" + b"echo x\n" * (3 * 1024 * 1024))
    os.symlink(outside / "secret.sh", scripts / "secret.sh")
    os.mkfifo(references / "pipe.md")
    os.symlink("/dev/zero", references / "zero.md")
    os.symlink(outside / "secret.md", references / "secret.md")
    # A skill whose references/ points at itself.
    beta = root / "beta"
    beta.mkdir()
    (beta / "SKILL.md").write_text(
        "---\nname: beta\ndescription: Loops. Use when testing.\n---\n\nSee references/\n",
        encoding="utf-8",
    )
    os.symlink("references", beta / "references")
    # A FIFO called SKILL.md, and one SKILL.md that is /dev/zero.
    gamma = root / "gamma"
    gamma.mkdir()
    os.mkfifo(gamma / "SKILL.md")
    delta = root / "delta"
    delta.mkdir()
    os.symlink("/dev/zero", delta / "SKILL.md")
    yield root
    locked.chmod(0o644)


def _doc(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)


async def _answer(request):  # type: ignore[no-untyped-def]
    return await asyncio.wait_for(request, ANSWER_WITHIN)


def _open_alpha(client: LanguageClient) -> tuple[str, str]:
    path = client.root / "alpha" / "SKILL.md"
    return open_file(client, path, SKILL_MD), SKILL_MD


async def _hover(client: LanguageClient, uri: str, text: str, needle: str) -> str:
    found = await _answer(
        client.text_document_hover_async(
            types.HoverParams(
                text_document=_doc(uri), position=position(text, needle, client.encoding, shift=3)
            )
        )
    )
    if found is None:
        return ""
    contents = found.contents
    return contents.value if isinstance(contents, types.MarkupContent) else str(contents)


async def test_links_answer_beside_fifos_and_dev_zero(client: LanguageClient) -> None:
    uri, _ = _open_alpha(client)
    links = await _answer(
        client.text_document_document_link_async(types.DocumentLinkParams(text_document=_doc(uri)))
    )
    targets = {link.target.rsplit("/", 1)[-1] for link in links or ()}
    assert "run.sh" in targets
    # Special files are not files a link can open.
    assert not {"pipe.sh", "zero.sh", "pipe.md", "zero.md"} & targets


@pytest.mark.parametrize(
    "needle", ["scripts/zero.sh", "scripts/pipe.sh", "scripts/locked.sh", "scripts/huge.sh"]
)
async def test_script_hovers_answer_on_special_files(client: LanguageClient, needle: str) -> None:
    uri, text = _open_alpha(client)
    shown = await _hover(client, uri, text, needle)
    assert len(shown) < 20_000


async def test_script_hover_shows_nothing_from_outside_the_skill(client: LanguageClient) -> None:
    uri, text = _open_alpha(client)
    assert SECRET not in await _hover(client, uri, text, "scripts/secret.sh")


@pytest.mark.parametrize("needle", ["(references/pipe.md", "(references/zero.md"])
async def test_definition_with_a_fragment_answers_on_special_files(
    client: LanguageClient, needle: str
) -> None:
    uri, text = _open_alpha(client)
    await _answer(
        client.text_document_definition_async(
            types.DefinitionParams(
                text_document=_doc(uri), position=position(text, needle, client.encoding, shift=4)
            )
        )
    )


async def test_skill_names_resolve_beside_special_files(client: LanguageClient) -> None:
    """The skill index reads every markdown file of each skill: FIFOs and ``/dev/zero``
    among them must not block it."""
    uri, text = _open_alpha(client)
    found = await _answer(
        client.text_document_definition_async(
            types.DefinitionParams(
                text_document=_doc(uri), position=position(text, "/beta", client.encoding, shift=2)
            )
        )
    )
    assert found and found[0].uri.endswith("beta/SKILL.md")
    references = await _answer(
        client.text_document_references_async(
            types.ReferenceParams(
                text_document=_doc(uri),
                position=position(text, "/beta", client.encoding, shift=2),
                context=types.ReferenceContext(include_declaration=True),
            )
        )
    )
    assert references


async def test_completion_in_a_references_loop_answers(client: LanguageClient) -> None:
    path = client.root / "beta" / "SKILL.md"
    text = path.read_text(encoding="utf-8")
    uri = open_file(client, path, text)
    at = position(text, "references/", client.encoding, shift=len("references/"))
    found = await _answer(
        client.text_document_completion_async(
            types.CompletionParams(text_document=_doc(uri), position=at)
        )
    )
    items = found.items if isinstance(found, types.CompletionList) else (found or [])
    assert items == [] or all(item.label for item in items)


async def test_symbols_and_lenses_answer(client: LanguageClient) -> None:
    uri, _ = _open_alpha(client)
    symbols = await _answer(
        client.text_document_document_symbol_async(
            types.DocumentSymbolParams(text_document=_doc(uri))
        )
    )
    assert symbols
    lenses = await _answer(
        client.text_document_code_lens_async(types.CodeLensParams(text_document=_doc(uri)))
    )
    assert lenses is not None


async def test_the_skill_beside_special_files_is_diagnosed(client: LanguageClient) -> None:
    uri, _ = _open_alpha(client)
    await wait_for(lambda: uri in client.diagnostics, ANSWER_WITHIN, f"diagnostics of {uri}")
