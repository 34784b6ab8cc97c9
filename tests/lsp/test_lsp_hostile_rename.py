"""Hostile renames of hand-written skills: names that escape a folder or break the
specification, names already taken, a skill that is the workspace folder itself, a
document open from outside the workspace, and CRLF and lone-CR line endings. A refused
rename is an error; an accepted one edits and renames only inside the workspace, each
edit covering exactly the old name."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.uris import to_fs_path
from pytest_lsp import LanguageClient

from skill_lsp.positions import split_lines
from tests.lsp.support import open_file, slice_units, units

pytestmark = pytest.mark.asyncio(loop_scope="module")

HELPER = "---\nname: helper\ndescription: Helps. Use when testing.\n---\n\nCall /root-skill.\n"
ROOT = "---\nname: root-skill\ndescription: The workspace. Use when testing.\n---\n\nUse /helper.\n"
TWIN = "---\nname: twin\ndescription: One of two. Use when testing.\n---\n\nUse /helper.\n"
# The same skill with other line breaks: the edit positions must count them as LSP does.
_BODY = ["---", "name: {}", "description: Breaks. Use it.", "---", "", "Ask /helper, then"]
CRLF = "\r\n".join([*_BODY, "the helper skill.", ""]).format("crlf")
LONE_CR = "\r".join([*_BODY, "the `/helper` again.", ""]).format("lone-cr")
OUTSIDER = "---\nname: outsider\ndescription: Not ours. Use when testing.\n---\n\nUse /helper.\n"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("rename")
    root = base / "ws"
    files = {
        "SKILL.md": ROOT,
        "helper/SKILL.md": HELPER,
        "twin-a/SKILL.md": TWIN,
        "twin-b/SKILL.md": TWIN,
        "crlf/SKILL.md": CRLF,
        "lone-cr/SKILL.md": LONE_CR,
        "../outside/SKILL.md": OUTSIDER,
        "helper/references/notes.md": "# Notes\n\nThen `/helper` again.\n",
    }
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    (root / "scratch").mkdir()
    return root


def _doc(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)


def _at(text: str, needle: str, shift: int, encoding: str) -> types.Position:
    lines = split_lines(text)
    for number, line in enumerate(lines):
        if needle in line:
            column = line.index(needle) + shift
            return types.Position(number, units(line[:column], encoding))
    raise AssertionError(needle)


async def _rename(
    client: LanguageClient, relative: str, needle: str, shift: int, new_name: str
) -> types.WorkspaceEdit | None:
    path = client.root / relative
    text = path.read_bytes().decode("utf-8")
    uri = open_file(client, path, text, version=3)
    return await client.text_document_rename_async(
        types.RenameParams(
            text_document=_doc(uri),
            position=_at(text, needle, shift, client.encoding),
            new_name=new_name,
        )
    )


def _inside(path: str, root: Path) -> bool:
    relative = os.path.relpath(os.path.realpath(path), os.path.realpath(root))
    return relative != "." and not relative.startswith("..")


def _check_edit(client: LanguageClient, edit: types.WorkspaceEdit, old: str) -> None:
    """Every change lies strictly inside the workspace, and every text edit covers ``old``
    exactly (lines counted the LSP way)."""
    assert edit.changes is None
    for change in edit.document_changes or ():
        if isinstance(change, types.RenameFile):
            assert _inside(to_fs_path(change.old_uri), client.root), change
            assert _inside(to_fs_path(change.new_uri), client.root), change
            continue
        assert isinstance(change, types.TextDocumentEdit)
        path = to_fs_path(change.text_document.uri)
        assert _inside(path, client.root), change.text_document.uri
        lines = split_lines(Path(path).read_bytes().decode("utf-8"))
        for item in change.edits:
            start, end = item.range.start, item.range.end
            assert start.line == end.line
            covered = slice_units(
                lines[start.line], start.character, end.character, client.encoding
            )
            assert covered == old


@pytest.mark.parametrize(
    "new_name",
    [
        "../escaped",
        "../../etc",
        "a/b",
        "a\\b",
        ".",
        "..",
        "nul\x00byte",
        "Helper",
        "h" * 65,
        "ｈelper",  # fullwidth h: NFKC makes it another name
        "help‐er",  # U+2010 HYPHEN, not "-"
        "help\u200ber",  # a zero-width space inside
        "helper\u202e",  # a right-to-left override
        "hélper".replace("é", "e\u0301"),  # a combining accent: not NFKC
        "",
        "twin",
        "scratch",
    ],
)
async def test_rename_refuses_hostile_names(client: LanguageClient, new_name: str) -> None:
    with pytest.raises(JsonRpcException):
        await _rename(client, "helper/SKILL.md", "name: helper", 7, new_name)


async def test_rename_to_the_same_name_renames_no_folder(client: LanguageClient) -> None:
    edit = await _rename(client, "helper/SKILL.md", "name: helper", 7, "helper")
    assert edit is not None
    _check_edit(client, edit, "helper")
    assert not [c for c in edit.document_changes or () if isinstance(c, types.RenameFile)]


async def test_rename_of_a_name_two_skills_declare_is_refused(client: LanguageClient) -> None:
    with pytest.raises(JsonRpcException):
        await _rename(client, "twin-a/SKILL.md", "name: twin", 7, "twin-one")


async def test_rename_of_the_workspace_folder_itself_stays_inside(client: LanguageClient) -> None:
    """The skill at the workspace root cannot have its folder renamed (that would move the
    workspace, and its new name lies outside it): refused."""
    with pytest.raises(JsonRpcException):
        await _rename(client, "SKILL.md", "name: root-skill", 7, "base-skill")


async def test_rename_edits_only_inside_the_workspace(client: LanguageClient) -> None:
    outside = client.root.parent / "outside" / "SKILL.md"
    open_file(client, outside, OUTSIDER, version=1)
    edit = await _rename(client, "helper/SKILL.md", "name: helper", 7, "assistant")
    assert edit is not None
    _check_edit(client, edit, "helper")
    edited = {
        os.path.relpath(to_fs_path(c.text_document.uri), client.root)
        for c in edit.document_changes or ()
        if isinstance(c, types.TextDocumentEdit)
    }
    assert {"helper/SKILL.md", "SKILL.md", "crlf/SKILL.md", "lone-cr/SKILL.md"} <= edited


@pytest.mark.parametrize(
    ("relative", "needle"), [("crlf/SKILL.md", "/helper"), ("lone-cr/SKILL.md", "`/helper")]
)
async def test_rename_from_crlf_and_lone_cr_documents(
    client: LanguageClient, relative: str, needle: str
) -> None:
    shift = 3 if needle.startswith("`") else 2
    edit = await _rename(client, relative, needle, shift, "assistant")
    assert edit is not None
    _check_edit(client, edit, "helper")


async def test_rename_from_a_reference_file(client: LanguageClient) -> None:
    edit = await _rename(client, "helper/references/notes.md", "`/helper", 3, "assistant")
    assert edit is not None
    _check_edit(client, edit, "helper")
    edited = {
        os.path.relpath(to_fs_path(c.text_document.uri), client.root)
        for c in edit.document_changes or ()
        if isinstance(c, types.TextDocumentEdit)
    }
    assert {"helper/SKILL.md", "helper/references/notes.md"} <= edited
    (folder,) = [c for c in edit.document_changes or () if isinstance(c, types.RenameFile)]
    assert to_fs_path(folder.new_uri) == str(client.root / "assistant")
