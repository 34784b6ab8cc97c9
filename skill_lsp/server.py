"""The skillkit language server: the server object, its shared state, its features.

Only creation and registration live here; each capability is a module of
:mod:`skill_lsp.features`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

from skill_lsp.index import DocumentStore
from skill_lsp.rpc import SteadyRpc
from skill_lsp.settings import Settings

SERVER_NAME = "skillkit"


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("pyskillkit")
    except PackageNotFoundError:
        return "0+unknown"


class SkillProtocol(SteadyRpc, LanguageServerProtocol):
    """pygls's protocol, except that documents live only in :mod:`skill_lsp.index`.

    pygls would keep a second copy of every document and apply each edit to it first,
    re-splitting the text, and its position codec rewrites out-of-range positions in the
    notification before handlers see it. The store applies edits itself (LSP line breaks,
    positions clamped as the specification says), so the copy is skipped. How messages
    are answered and forgotten is :class:`skill_lsp.rpc.SteadyRpc`'s.
    """

    def _user_handler(self, method: str, params: Any) -> Iterator[Any]:
        handler = self.fm.features.get(method)
        if handler is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: types.DidOpenTextDocumentParams) -> Any:
        yield from self._user_handler(types.TEXT_DOCUMENT_DID_OPEN, params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams) -> Any:
        yield from self._user_handler(types.TEXT_DOCUMENT_DID_CHANGE, params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: types.DidCloseTextDocumentParams) -> Any:
        yield from self._user_handler(types.TEXT_DOCUMENT_DID_CLOSE, params)


class SkillServer(LanguageServer):
    """A pygls server with the state every feature shares.

    ``documents`` holds per-version snapshots; ``settings`` the current settings;
    ``semantic`` runs the worker; ``diagnostics`` merges and sends findings;
    ``files`` knows the skill files of the workspace; ``roots`` are the workspace folders.
    """

    def __init__(self) -> None:
        super().__init__(SERVER_NAME, _version(), max_workers=2, protocol_cls=SkillProtocol)
        from skill_lsp.diagnostics import DiagnosticsHub
        from skill_lsp.semantic import SemanticLayer
        from skill_lsp.workspace import WorkspaceFiles

        self.documents = DocumentStore()
        self.settings = Settings()
        self.roots: list[str] = []
        self.semantic = SemanticLayer(self)
        self.diagnostics = DiagnosticsHub(self)
        self.files = WorkspaceFiles(self)
        self.input: Any = None
        """The :class:`~skill_lsp.framing.ResyncingReader` of stdin, once serving."""

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Errors outside a request go to the client's log, not to pop-ups. A client that
        can no longer be written to (stdout failing: a full disk) ends the server: every
        report would fail again, and nothing the server does can reach the editor."""
        from skillkit_core.streams import failed_on_stream

        if failed_on_stream(error):
            _stop_unreachable(error)
        if isinstance(error, UNREADABLE) and source is JsonRpcException and self.input:
            # pygls's reading of a body failed (its message loop reports those with this
            # source): JSON-RPC asks for a parse error answer.
            self.protocol.refuse_unreadable(self.input.last_body, error)
            return
        from skill_lsp.log import log_message

        log_message(self, f"internal error ({getattr(source, '__name__', source)}): {error}")


UNREADABLE = (json.JSONDecodeError, UnicodeDecodeError, RecursionError)
"""What pygls's ``json.loads`` of a body raises for one that is no JSON, no UTF-8, or
nested too deeply to read."""


def quiet_unreadable() -> None:
    """pygls logs a traceback for every body it cannot read; the server answers each with
    a parse error instead (:meth:`~skill_lsp.rpc.SteadyRpc.refuse_unreadable`)."""
    import logging

    def answered(record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        return not isinstance(error, UNREADABLE)

    logging.getLogger("pygls.server").addFilter(answered)  # the logger start_io hands on


def _stop_unreachable(error: BaseException) -> None:
    """Say why on stderr (the editor's log of the server), then end the process."""
    import contextlib
    import os
    import sys

    from skillkit_core.streams import cannot_write

    with contextlib.suppress(OSError, ValueError, AttributeError):
        sys.stderr.write(f"skillkit lsp: error[output]: {cannot_write(error)}; stopping\n")
        sys.stderr.flush()
    os._exit(1)  # the semantic worker ends when its pipe to this process closes


def create_server() -> SkillServer:
    """A server with every feature registered."""
    from skill_lsp.features import register_all

    server = SkillServer()
    register_all(server)
    return server


def main() -> None:
    """Serve over stdio until the client says exit.

    The syntax index is computed in a thread; a 1 ms switch interval (instead of 5 ms)
    hands the GIL back to the event loop sooner while it runs. Everything imported by
    then (pygls, lsprotocol's types and converters: most of the server's objects) lives
    as long as the server, so it is moved out of the cyclic collector's sight: a full
    collection then walks the documents' data only, not tens of thousands of objects
    that never die (it held a keystroke's diagnostics up by tens of milliseconds).
    """
    import gc
    import sys

    from skillkit_core.lint.result_cache import open_patterns

    # The regular expressions earlier servers compiled are taken from the cache (opened
    # already, before the imports, by python -m skill_lsp); those this one compiles are
    # kept when it exits.
    patterns = open_patterns()
    sys.setswitchinterval(0.001)
    server = create_server()
    gc.freeze()
    from skill_lsp.framing import ResyncingReader

    server.input = ResyncingReader(sys.stdin.buffer)
    quiet_unreadable()
    try:
        server.start_io(stdin=server.input)  # type: ignore[arg-type]
    finally:
        if patterns is not None:
            patterns.save()
    if getattr(server, "exit_code", 0):
        sys.exit(server.exit_code)
