"""Renaming a skill: its ``name:``, its folder (a RenameFile the client applies) and every
place naming it, in one workspace edit; names that break the spec or are taken are
refused."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.uris import to_fs_path
from pytest_lsp import LanguageClient

from tests.lsp.support import (
    LINKED_SKILLS,
    apply_text_edits,
    open_file,
    position,
    span_text,
    uri_of,
)

WORKSPACE = LINKED_SKILLS
pytestmark = pytest.mark.asyncio(loop_scope="module")

# Every place naming report-writer: (file, text before the name, the name's offset in it).
REPORT_WRITER_PLACES = {
    ("report-writer/SKILL.md", "name: report-writer", 6),
    ("pdf-tools/SKILL.md", "`/report-writer`", 2),
    ("release-notes/SKILL.md", "`/report-writer`", 2),
}


def _doc(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)


def _open(client: LanguageClient, relative: str) -> tuple[str, str]:
    path = client.root / relative
    text = path.read_text(encoding="utf-8")
    return open_file(client, path, text, version=7), text


async def _rename(client: LanguageClient, new_name: str) -> types.WorkspaceEdit | None:
    uri, text = _open(client, "pdf-tools/SKILL.md")
    return await client.text_document_rename_async(
        types.RenameParams(
            text_document=_doc(uri),
            position=position(text, "/report-writer", client.encoding, shift=5),
            new_name=new_name,
        )
    )


async def test_prepare_rename_offers_the_name_without_its_slash(client: LanguageClient) -> None:
    uri, text = _open(client, "pdf-tools/SKILL.md")
    found = await client.text_document_prepare_rename_async(
        types.PrepareRenameParams(
            text_document=_doc(uri),
            position=position(text, "/report-writer", client.encoding, shift=3),
        )
    )
    assert isinstance(found, types.PrepareRenamePlaceholder)
    assert found.placeholder == "report-writer"
    assert span_text(text, found.range, client.encoding) == "report-writer"
    nothing = await client.text_document_prepare_rename_async(
        types.PrepareRenameParams(
            text_document=_doc(uri), position=position(text, "# PDF tools", client.encoding)
        )
    )
    assert nothing is None


async def test_rename_rewrites_every_place_and_renames_the_folder(
    client: LanguageClient, tmp_path: Path
) -> None:
    edit = await _rename(client, "report-builder")
    assert edit is not None and edit.changes is None
    changes = list(edit.document_changes or ())
    text_edits = [change for change in changes if isinstance(change, types.TextDocumentEdit)]
    renames = [change for change in changes if isinstance(change, types.RenameFile)]
    # Text edits first (on the old paths), then the folder.
    assert changes[-1] is renames[0] and len(renames) == 1
    assert renames[0].old_uri == uri_of(client.root / "report-writer")
    assert renames[0].new_uri == uri_of(client.root / "report-builder")
    edited = set()
    for change in text_edits:
        relative = os.path.relpath(to_fs_path(change.text_document.uri), client.root)
        text = (client.root / relative).read_text(encoding="utf-8")
        # pdf-tools/SKILL.md is open (version 7): its edit names that version.
        assert change.text_document.version == (7 if relative == "pdf-tools/SKILL.md" else None)
        for item in change.edits:
            assert item.new_text == "report-builder"
            assert span_text(text, item.range, client.encoding) == "report-writer"
            edited.add((relative, item.range.start.line, item.range.start.character))
    expected = set()
    for relative, needle, shift in REPORT_WRITER_PLACES:
        text = (client.root / relative).read_text(encoding="utf-8")
        at = position(text, needle, client.encoding, shift=shift)
        expected.add((relative, at.line, at.character))
    assert edited == expected

    # Applied to a copy of the workspace, the renamed skill checks clean.
    copy = tmp_path / "applied"
    shutil.copytree(client.root, copy)
    for change in text_edits:
        relative = os.path.relpath(to_fs_path(change.text_document.uri), client.root)
        target = copy / relative
        text = target.read_text(encoding="utf-8")
        target.write_text(apply_text_edits(text, change.edits, client.encoding), encoding="utf-8")
    old = os.path.relpath(to_fs_path(renames[0].old_uri), client.root)
    new = os.path.relpath(to_fs_path(renames[0].new_uri), client.root)
    (copy / old).rename(copy / new)
    from skillkit_core.lint.check_folder import check_skill_folder

    findings = check_skill_folder(str(copy / "report-builder"))
    assert [f for f in findings if f.severity == "error"] == []
    assert "name: report-builder" in (copy / "report-builder" / "SKILL.md").read_text()
    assert "`/report-builder`" in (copy / "release-notes" / "SKILL.md").read_text()


@pytest.mark.parametrize(
    ("new_name", "message"),
    [
        ("Report Writer", "'Report Writer' is not a valid skill name: name 'Report Writer' must"),
        ("report--writer", "must not contain consecutive hyphens"),
        ("-report", "must not start or end with a hyphen"),
        (" report", "must not have surrounding spaces"),
        # Not spaces (it said so): a form the comparison normalises away.
        ("ｒｅｐｏｒｔ", "is not in Unicode NFKC form; write 'report'"),
        ("pdf-tools", "a skill named 'pdf-tools' already exists"),
    ],
)
async def test_rename_refuses_bad_and_taken_names(
    client: LanguageClient, new_name: str, message: str
) -> None:
    with pytest.raises(JsonRpcException) as raised:
        await _rename(client, new_name)
    assert raised.value.code == types.ErrorCodes.InvalidParams
    assert message in raised.value.message


async def test_rename_refuses_a_folder_that_exists(client: LanguageClient) -> None:
    (client.root / "report-builder").mkdir()
    try:
        with pytest.raises(JsonRpcException) as raised:
            await _rename(client, "report-builder")
        assert "report-builder already exists" in raised.value.message
    finally:
        (client.root / "report-builder").rmdir()


def _edit_summary(edit: types.WorkspaceEdit | None) -> list[tuple]:
    assert edit is not None
    summary = []
    for change in edit.document_changes or ():
        if isinstance(change, types.RenameFile):
            summary.append(("rename", change.old_uri, change.new_uri))
        else:
            places = [(e.range.start.line, e.range.start.character) for e in change.edits]
            summary.append((change.text_document.uri, tuple(places)))
    return sorted(summary, key=repr)


@pytest.mark.parametrize(
    ("relative", "needle", "shift"),
    [
        ("report-writer/SKILL.md", "name: report-writer", 10),
        ("report-writer/SKILL.md", "name: report-writer", 6),
        ("release-notes/SKILL.md", "/report-writer", 14),
    ],
)
async def test_rename_from_the_name_key_and_an_invocation_give_the_same_edit(
    client: LanguageClient, relative: str, needle: str, shift: int
) -> None:
    from_pdf_tools = _edit_summary(await _rename(client, "report-builder"))
    path = client.root / relative
    text = path.read_text(encoding="utf-8")
    uri = open_file(client, path, text, version=7)
    edit = await client.text_document_rename_async(
        types.RenameParams(
            text_document=_doc(uri),
            position=position(text, needle, client.encoding, shift=shift),
            new_name="report-builder",
        )
    )
    assert _edit_summary(edit) == from_pdf_tools


async def test_rename_from_a_plain_mention_in_another_skill(client: LanguageClient) -> None:
    uri, text = _open(client, "report-writer/SKILL.md")
    edit = await client.text_document_rename_async(
        types.RenameParams(
            text_document=_doc(uri),
            position=position(text, "the release-notes skill", client.encoding, shift=6),
            new_name="changelog",
        )
    )
    summary = _edit_summary(edit)
    assert ("rename", uri_of(client.root / "release-notes"), uri_of(client.root / "changelog")) in (
        summary
    )
    files = {entry[0] for entry in summary if entry[0] != "rename"}
    assert files == {uri_of(client.root / "release-notes" / "SKILL.md"), uri}
