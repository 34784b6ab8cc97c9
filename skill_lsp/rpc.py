"""How the server treats JSON-RPC messages, where pygls 2.1.1 falls short.

:class:`SteadyRpc` is mixed into the server's protocol class. It

- forgets each handler's future once the handler finished (pygls keeps the future of
  every notification and of every step of a generator handler for good: each
  ``didChange`` left one behind, +42 MB over 21,000 edits);
- answers a request whose params do not fit the method's types (a negative position, a
  missing field) with an ``InvalidParams`` error naming the field, where pygls raised
  while decoding the message, so that the request was never answered;
- answers what is no request as JSON-RPC 2.0 asks (section 5.1): a body that is no JSON,
  no UTF-8 or too deeply nested to read with a parse error, a message without
  ``jsonrpc: "2.0"``, a batch, a method that is no string or an id that is no string or
  integer with an invalid-request error, each with the request's id where it can be read
  (pygls logged a traceback and answered nothing, or answered an internal error carrying
  its traceback);
- holds a request about a Python document whose syntax index is not computed yet until
  the syntax pool computed it (see :class:`skill_lsp.index.DocumentStore`), so that the
  event loop, and every other request, goes on meanwhile;
- sends a handler's deliberate error (a ``JsonRpcException`` other than an internal
  error, such as "there is no step name here to rename") as the answer only, without the
  traceback and the "internal error" report pygls adds to every error.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInternalError, JsonRpcRequestCancelled

from skillkit_core.protocol.jsontext import request_id

_log = logging.getLogger(__name__)
INVALID_PARAMS = -32602
INVALID_REQUEST = -32600
PARSE_ERROR = -32700
# How much of a refused message's problem is told (the rest is the client's own input).
_DETAIL_LIMIT = 500


class RefusedMessage:
    """A message whose params could not be decoded; ``answer`` is the error a request
    gets (its id and the error), sent when the message is handled: a refused element of
    a batch is not answered on its own, the batch is."""

    def __init__(
        self,
        method: str,
        problem: str,
        answer: tuple[Any, types.ResponseError] | None = None,
    ) -> None:
        self.method = method
        self.problem = problem
        self.answer = answer


class RequestFailed(JsonRpcException):
    """LSP's RequestFailed: the request was valid, but there is nothing to do it on."""

    CODE = -32803


class SteadyRpc:
    """Overrides for pygls's ``JsonRPCProtocol`` (mix in before it)."""

    _request_futures: dict[Any, Any]
    _converter: Any
    _server: Any

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._held: dict[Any, asyncio.Task[None]] = {}
        self._request_futures = _Futures(self._request_futures)
        # The futures of the steps a generator handler started, by the request's id.
        self._steps: dict[Any, list[Any]] = {}
        self._starting: Any = None

    def _handle_request(self, msg_id: Any, method_name: str, params: Any) -> None:
        """pygls's, after the syntax index of the request's document is ready."""
        documents = getattr(self._server, "documents", None)
        uri = _document_uri(params)
        snapshot = documents.get(uri) if documents is not None and uri is not None else None
        if snapshot is None or not documents.needs_index(snapshot):
            super()._handle_request(msg_id, method_name, params)  # type: ignore[misc]
            return

        async def when_indexed() -> None:
            await documents.indexed(uri)
            if self._held.pop(msg_id, None) is not None:
                super(SteadyRpc, self)._handle_request(msg_id, method_name, params)  # type: ignore[misc]

        self._held[msg_id] = asyncio.ensure_future(when_indexed())

    def _handle_cancel_notification(self, msg_id: Any) -> None:
        """A request still waiting for its document's index is answered as cancelled; a
        request served by a generator handler (pygls's ``workspace/executeCommand``)
        cancels the step it runs too, which pygls leaves running (a ``skillkit check``
        went on after its request was cancelled)."""
        held = self._held.pop(msg_id, None)
        if held is None:
            steps = self._steps.pop(msg_id, ())  # before the request's callbacks forget them
            super()._handle_cancel_notification(msg_id)  # type: ignore[misc]
            for step in steps:
                step.cancel()
            return
        held.cancel()
        error = JsonRpcRequestCancelled(f'Request with id "{msg_id}" is canceled')
        self._send_response(msg_id, error=error.to_response_error())  # type: ignore[attr-defined]

    def _execute_handler(
        self,
        msg_id: Any,
        handler: Any,
        callback: Any,
        args: Any = None,
        kwargs: Any = None,
    ) -> None:
        """pygls's, except that a finished handler's future leaves ``_request_futures``.

        pygls files the future of every async, threaded or generator handler under its
        message id (so that ``$/cancelRequest`` finds it), but only a request's result
        callback takes it out again: notifications (under a made-up id) and the steps of
        generator handlers (pygls's own ``didOpen``/``didChange``/``didClose``) stayed.
        """

        def finished(future: Any) -> None:
            if self._request_futures.get(msg_id) is future:
                self._request_futures.pop(msg_id, None)
            self._steps.pop(msg_id, None)
            callback(future)

        # A generator handler runs its first step from within this call: remember whose.
        starting, self._starting = self._starting, self._starting or msg_id
        try:
            super()._execute_handler(msg_id, handler, finished, args, kwargs)  # type: ignore[misc]
        finally:
            self._starting = starting
        step = self._request_futures.get(msg_id) if starting is not None else None
        if step is not None:
            self._steps.setdefault(starting, []).append(step)

    def structure_message(self, data: dict[str, Any]) -> Any:
        """pygls's, except that params that do not fit their method are refused cleanly,
        and so is a request whose method is no string or whose id is no string or
        integer (LSP's ids; pygls answered the first with an internal error and its
        traceback, and the second as a request)."""
        if "jsonrpc" not in data or "method" not in data:
            return super().structure_message(data)  # type: ignore[misc]
        method = data["method"]
        if "id" in data and (not isinstance(method, str) or request_id(data["id"]) is None):
            why = (
                "its id is no string or integer"
                if isinstance(method, str)
                else "its method is no string"
            )
            return _refused(data["id"], INVALID_REQUEST, f"Invalid request: {why}")
        if not isinstance(method, str):
            return RefusedMessage(repr(method), "a notification whose method is no string")
        kind = self.get_message_type(method)  # type: ignore[attr-defined]
        if kind is None:
            return super().structure_message(data)  # type: ignore[misc]
        try:
            return self._converter.structure(data, kind)
        except Exception as error:  # cattrs says what did not fit; the message is refused
            problem = f"invalid params for {method}: {_describe(error)}"
        if "id" in data:
            return _refused(data["id"], INVALID_PARAMS, problem, method)
        _log.warning("ignored a notification: %s", problem)
        return RefusedMessage(method, problem)

    def _refuse(self, ident: Any, code: int, problem: str) -> None:
        """Answer the request ``ident`` (its id, or null when it has none that LSP takes)
        with an error."""
        self._send_error(request_id(ident), types.ResponseError(code=code, message=problem))

    def _send_error(self, ident: Any, error: types.ResponseError) -> None:
        """Send an error response; one to no readable id carries ``"id": null``, as
        JSON-RPC 2.0 asks (pygls's converter leaves a null id out of the message)."""
        if ident is not None:
            self._send_response(ident, error=error)  # type: ignore[attr-defined]
            return
        unstructured = self._converter.unstructure(error)
        self._send_data({"jsonrpc": "2.0", "id": None, "error": unstructured})  # type: ignore[attr-defined]

    def refuse_unreadable(self, body: bytes, error: BaseException) -> None:
        """Answer a message that could not be read as JSON (JSON-RPC's parse error), with
        its id where a scan of the text finds one, else a null one."""
        from skillkit_core.protocol.jsontext import request_id_in_text

        ident = request_id_in_text(body.decode("utf-8", "replace"))
        if isinstance(error, RecursionError):
            problem = "Parse error: the message is nested too deeply to read"
        elif isinstance(error, UnicodeDecodeError):
            problem = "Parse error: the message is not UTF-8"
            ident = None  # read from replaced characters: perhaps not the id sent
        else:
            problem = f"Parse error: {error}"
        self._refuse(ident, PARSE_ERROR, problem[:_DETAIL_LIMIT])

    def handle_message(self, message: Any) -> Any:
        """A request refused while it was read gets its error now; JSON that is no JSON-RPC
        message (no ``jsonrpc`` member, a batch, a bare value) gets InvalidRequest, with
        its id when it is an object that has one (pygls raised reading ``jsonrpc`` and
        answered nothing); a request after ``shutdown`` gets InvalidRequest (LSP), where
        pygls drops it and its client waits for good; the rest go to pygls."""
        if isinstance(message, RefusedMessage):
            if message.answer is not None:
                self._send_error(*message.answer)
            return None
        if getattr(message, "jsonrpc", None) != "2.0":
            self._refuse_no_message(message)
            return None
        if getattr(self, "_shutdown", False) and _is_request(message):
            error = types.ResponseError(
                code=INVALID_REQUEST, message="the server is shutting down: only exit is taken"
            )
            self._send_response(message.id, error=error)  # type: ignore[attr-defined]
            return None
        return super().handle_message(message)  # type: ignore[misc]

    def _refuse_no_message(self, message: Any) -> None:
        """Answer a request that is no JSON-RPC 2.0 message; a notification or a
        response of that kind is only logged (nobody waits for an answer to it)."""
        if isinstance(message, list):
            problem = "Invalid request: a message is one JSON object (LSP has no batches)"
            self._refuse(None, INVALID_REQUEST, problem)
            return
        fields = message if isinstance(message, dict) else {}
        if not isinstance(message, dict):  # a typed message (jsonrpc "1.0"), a bare value
            fields = {
                key: getattr(message, key) for key in ("id", "method") if hasattr(message, key)
            }
        if "id" in fields and "method" in fields:
            problem = 'Invalid request: no jsonrpc member of "2.0"'
            self._refuse(fields["id"], INVALID_REQUEST, problem)
        elif not fields:
            problem = (
                'Invalid request: a message needs jsonrpc "2.0" and a method, result or error'
                if isinstance(message, dict)  # {} and the like
                else "Invalid request: a message is a JSON object"
            )
            self._refuse(None, INVALID_REQUEST, problem)
        else:
            _log.warning('ignored a message without jsonrpc "2.0"')

    def _send_handler_result(self, future: Any, *, msg_id: Any) -> None:
        """A handler's deliberate error is the answer, not an internal error to report."""
        error = None if future.cancelled() else future.exception()
        if isinstance(error, JsonRpcException) and not isinstance(error, JsonRpcInternalError):
            self._request_futures.pop(msg_id, None)
            self._send_response(msg_id, error=error.to_response_error())  # type: ignore[attr-defined]
            return
        super()._send_handler_result(future, msg_id=msg_id)  # type: ignore[misc]


class _Futures(dict):  # type: ignore[type-arg]
    """pygls's futures by message id, whose ``items()`` is a copy: pygls's ``shutdown``
    cancels each future while iterating them, and a cancelled future's callbacks take it
    out of this dict at once (the answer to ``shutdown`` was "dictionary changed size
    during iteration" whenever a command was running)."""

    def items(self) -> Any:
        return list(super().items())


def _refused(ident: Any, code: int, problem: str, method: str = "") -> RefusedMessage:
    """A request refused while it was read, with the answer it gets when handled."""
    error = types.ResponseError(code=code, message=problem)
    return RefusedMessage(method, problem, (request_id(ident), error))


def _is_request(message: Any) -> bool:
    method = getattr(message, "method", None)
    return isinstance(method, str) and method != types.EXIT and hasattr(message, "id")


def _document_uri(params: Any) -> str | None:
    """The URI of the document a request is about (None for other requests)."""
    document = getattr(params, "text_document", None)
    uri = getattr(document, "uri", None)
    return uri if isinstance(uri, str) else None


def _describe(error: BaseException) -> str:
    """The innermost reasons of a decoding error, on one line."""
    reasons: list[str] = []

    def collect(item: BaseException) -> None:
        inner = getattr(item, "exceptions", None)
        if inner:
            for each in inner:
                collect(each)
        else:
            reasons.append(f"{type(item).__name__}: {item}")

    collect(error)
    text = "; ".join(reasons) or type(error).__name__
    return text if len(text) <= _DETAIL_LIMIT else text[:_DETAIL_LIMIT] + "…"
