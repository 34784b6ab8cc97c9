"""Helpers for the language server's end-to-end tests (pytest-lsp over stdio)."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.uris import from_fs_path
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

WORKSPACE = Path(__file__).parent / "workspace"
PRESETS = ("neovim", "visual-studio-code")
# Rule pages and transcripts go here, not into the user's cache.
CACHE = tempfile.mkdtemp(prefix="skillkit-lsp-tests-")
SERVER = ClientServerConfig(
    server_command=[sys.executable, "-m", "skill_lsp"],
    server_env={**os.environ, "XDG_CACHE_HOME": CACHE},
)


# Three hand-written SKILL.md skills that name and link to each other.
LINKED_SKILLS = Path(__file__).parent / "linked_skills"


def copy_workspace(target: Path, source: Path = WORKSPACE) -> Path:
    """A private copy of a fixture workspace."""
    shutil.copytree(source, target)
    return target


def uri_of(path: Path) -> str:
    """The ``file:`` URI of ``path``."""
    return from_fs_path(str(path)) or path.as_uri()


def preset_encoding(preset: str) -> str:
    """The position encoding the server negotiates with each preset."""
    return "utf-8" if preset == "neovim" else "utf-16"


def units(text: str, encoding: str) -> int:
    """Length of ``text`` in the client's position units."""
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    if encoding == "utf-16":
        return len(text.encode("utf-16-le")) // 2
    return len(text)


def position(
    text: str, needle: str, encoding: str, *, nth: int = 0, shift: int = 0
) -> types.Position:
    """The client position of the ``nth`` occurrence of ``needle`` (plus ``shift`` code
    points), in ``encoding`` units."""
    start = -1
    for _ in range(nth + 1):
        start = text.index(needle, start + 1)
    offset = start + shift
    line = text.count("\n", 0, offset)
    line_start = text.rfind("\n", 0, offset) + 1
    return types.Position(line, units(text[line_start:offset], encoding))


def span_text(text: str, where: types.Range, encoding: str) -> str:
    """The text a single-line client range covers."""
    assert where.start.line == where.end.line, where
    line = text.split("\n")[where.start.line]
    return slice_units(line, where.start.character, where.end.character, encoding)


def slice_units(line: str, start: int, end: int, encoding: str) -> str:
    """``line`` between two positions given in client units."""
    if encoding == "utf-8":
        data = line.encode("utf-8")
        return data[start:end].decode("utf-8")
    if encoding == "utf-16":
        data = line.encode("utf-16-le")
        return data[start * 2 : end * 2].decode("utf-16-le")
    return line[start:end]


async def initialize(
    client: LanguageClient,
    preset: str,
    root: Path,
    options: dict[str, Any] | None = None,
    capabilities: types.ClientCapabilities | None = None,
) -> types.InitializeResult:
    """Start a session the way the preset's editor would, rooted at ``root``."""
    accept_registrations(client)
    # Like an editor in a trusted folder (the server assumes untrusted when not told).
    settings = {"worker": {"timeout": 20}, "workspaceTrusted": True, **(options or {})}
    return await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities or client_capabilities(preset),
            root_uri=uri_of(root),
            workspace_folders=[types.WorkspaceFolder(uri=uri_of(root), name=root.name)],
            initialization_options=settings,
        )
    )


def accept_registrations(client: LanguageClient) -> None:
    """Answer ``client/registerCapability`` and ``workspace/codeLens/refresh`` like an
    editor (the test client does not); kept in ``client.registrations`` and counted in
    ``client.lens_refreshes``."""
    if types.CLIENT_REGISTER_CAPABILITY in client.protocol.fm.features:
        return
    client.registrations = []  # type: ignore[attr-defined]
    client.lens_refreshes = 0  # type: ignore[attr-defined]

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register_capability(client: LanguageClient, params: types.RegistrationParams) -> None:
        client.registrations.extend(params.registrations)  # type: ignore[attr-defined]

    @client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def refresh_lenses(client: LanguageClient, params: None) -> None:
        client.lens_refreshes += 1  # type: ignore[attr-defined]


def open_file(client: LanguageClient, path: Path, text: str | None = None, version: int = 1) -> str:
    """Send ``didOpen`` for ``path`` (with ``text`` instead of the saved contents)."""
    body = path.read_text(encoding="utf-8") if text is None else text
    uri = uri_of(path)
    language = "markdown" if path.suffix == ".md" else "python"
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id=language, version=version, text=body
            )
        )
    )
    return uri


def replace_all(client: LanguageClient, uri: str, text: str, version: int) -> None:
    """Send a whole-document ``didChange``."""
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


def edit(client: LanguageClient, uri: str, version: int, where: types.Range, new_text: str) -> None:
    """Send one incremental ``didChange``."""
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangePartial(range=where, text=new_text)],
        )
    )


async def wait_for(
    condition: Callable[[], Any], timeout: float = 30.0, what: str = "condition"
) -> Any:
    """Poll ``condition`` until it returns something truthy."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


def codes(client: LanguageClient, uri: str) -> list[str]:
    """The rule ids of the diagnostics last published for ``uri``."""
    return [str(d.code) for d in client.diagnostics.get(uri, ())]


async def wait_for_codes(
    client: LanguageClient, uri: str, wanted: set[str], timeout: float = 30.0
) -> list[types.Diagnostic]:
    """Wait until every rule id in ``wanted`` is among ``uri``'s diagnostics."""
    await wait_for(lambda: wanted <= set(codes(client, uri)), timeout, f"{wanted} on {uri}")
    return list(client.diagnostics[uri])


def fresh_workspace(name: str) -> Path:
    """A private copy of the fixture workspace in a new temporary folder."""
    return copy_workspace(Path(tempfile.mkdtemp(prefix=f"skillkit-{name}-")) / "ws")


def apply_text_edits(text: str, edits: list[types.TextEdit], encoding: str) -> str:
    """``text`` with LSP edits (in ``encoding`` units) applied, last first."""
    lines = text.split("\n")

    def offset(where: types.Position) -> int:
        before = sum(len(line) + 1 for line in lines[: where.line])
        line = lines[where.line] if where.line < len(lines) else ""
        return before + len(slice_units(line, 0, where.character, encoding))

    ordered = sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character))
    for change in reversed(ordered):
        start, end = offset(change.range.start), offset(change.range.end)
        text = text[:start] + change.new_text + text[end:]
    return text


def read_code_actions_by_their_command_type(client: LanguageClient) -> None:
    """lsprotocol 2025.0.0 reads any answer item with a ``command`` key as a ``Command``,
    so a ``CodeAction`` with an edit and a command arrives mangled; tell them apart as
    the specification does (a Command's ``command`` is a string). Real clients parse JSON
    and are unaffected."""
    converter = client.protocol._converter

    def structure(value: Any, _: type) -> types.Command | types.CodeAction:
        if isinstance(value.get("command"), str):
            return converter.structure(value, types.Command)
        return converter.structure(value, types.CodeAction)

    converter.register_structure_hook(types.Command | types.CodeAction, structure)


def checks_of(path: Path) -> list[int]:
    """The processes whose command line names ``path`` (the check and its keeper)."""
    import os

    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if str(path).encode() in cmdline and b"check" in cmdline:
            found.append(int(pid))
    return found
