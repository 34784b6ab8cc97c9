"""One MCP connection on stdio, through the official SDK's transport, made to answer
every line and to end quietly.

Used by ``scripts/run mcp`` and ``skillkit serve``. Two things the SDK leaves undone:

- A line that is not a JSON-RPC message reaches the server as an exception, which it
  logs and drops: the client waits forever for an answer. Here every such line is
  answered with a JSON-RPC error (JSON-RPC 2.0, section 5.1): ``-32700`` (parse error) for
  a line that is not JSON, or that nests deeper than the SDK's parser goes (about 250
  levels), and ``-32600`` (invalid request) for JSON that is not a JSON-RPC message. The
  answer carries the request's ``id`` when one can be read from the line (a top-level
  ``"id"`` member, found by a linear scan that does not build the value), so a client
  waiting on that request gets its error; otherwise ``id`` is null. Blank lines are not
  messages and get no answer.
- A request whose ``id`` is neither a string nor an integer (``null``, ``1.5``, ``true``),
  or that has none, passes the transport as a notification, which gets no answer. One
  whose method the server answers as a request (``initialize`` included) is answered
  ``-32600`` with a null ``id`` (see :meth:`AnsweringReadStream._without_id`).
- A client that goes away (stdin closed, stdout a broken pipe) is the normal end of a
  connection, not an error to print; a stdout that fails otherwise (a full disk) ends it
  with that error itself, not the task group's wrapping of it.
- A handler that fails unexpectedly is answered with JSON-RPC's internal error
  (``-32603``) naming the kind of failure, its details going to stderr (the SDK answered
  code 0, which JSON-RPC does not define, with the exception's text: a server path);
  see :class:`InternalErrors`.
- A JSON-RPC batch (a line holding an array) is served on a connection of MCP
  2025-03-26, the one version that has them ("Implementations MUST support receiving
  JSON-RPC batches"; 2025-06-18 removed them): its members are handled as messages of
  their own, and their answers go back together as one array once all are in (none for
  a batch of notifications). Other versions, and a connection not yet initialized,
  answer it ``-32600``; ``initialize`` in a batch is refused (2025-03-26 lifecycle: it
  "MUST NOT be part of a JSON-RPC batch"). See :class:`Batches`.
- When stdin closes, requests already received get :data:`END_GRACE` seconds to be
  answered before the connection ends and cancels the rest: a client that writes its
  requests and closes stdin (``printf … | scripts/run mcp``) gets the answers of quick
  ones, which the SDK would cancel at once, while a long call (a script, an action)
  still ends soon after its client left.
"""

from __future__ import annotations

import contextlib
import functools
import json
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

import anyio
import mcp_types as types
from mcp.shared.message import SessionMessage

from skillkit_core.errors import SkillkitError
from skillkit_core.protocol.jsontext import (
    request_id,
    request_id_in_text,
)

# How much of a refused line an error message quotes.
_QUOTE = 60
END_GRACE = 2.0
"""Seconds the requests in flight when stdin closes have to be answered."""
BATCH_VERSIONS = frozenset({"2025-03-26"})
"""The MCP versions whose connections take JSON-RPC batches."""


async def serve_stdio_connection(server: Any, initialization_options: Any) -> None:
    """Serve ``server`` (an SDK low-level ``Server``) on stdin/stdout until the client
    disconnects, answering lines that are not JSON-RPC messages (see the module)."""
    from mcp.server.stdio import stdio_server

    if not any(isinstance(m, InternalErrors) for m in server.middleware):
        server.middleware.insert(0, InternalErrors())
    try:
        async with stdio_server() as (read_stream, write_stream):
            batches = Batches()
            answering = AnsweringReadStream(
                read_stream, write_stream, server.get_request_handler, batches
            )
            tracking = _AnswerTrackingWriteStream(write_stream, answering.in_flight, batches)
            await server.run(answering, tracking, initialization_options)
    except* (BrokenPipeError, ConnectionResetError):
        pass  # the client closed its end of stdout: the connection is over
    except* OSError as failed:
        # stdout cannot be written (a full disk, say): the connection is over too, and
        # the caller says why (the SDK's task group wraps the error in a group).
        raise failed.exceptions[0] from None


class AnsweringReadStream:
    """The transport's read stream with its exceptions answered instead of passed on.

    Each exception item (a line the transport could not read as a JSON-RPC message) is
    turned into a JSON-RPC error on ``write_stream``, and so is a notification whose
    method is a request's (``request_handler(method)`` is not ``None``: a request whose id
    the transport could not read); other messages pass through unchanged. Everything else
    (``last_context``, closing) is the inner stream's.
    """

    def __init__(
        self,
        inner: Any,
        write_stream: Any,
        request_handler: Callable[[str], Any],
        batches: Batches | None = None,
    ) -> None:
        self._inner = inner
        self._write_stream = write_stream
        self._request_handler = request_handler
        self._batches = batches if batches is not None else Batches()
        #: Members of a batch not handed to the server yet.
        self._pending: deque[SessionMessage] = deque()
        #: Ids of the requests received and not answered yet.
        self.in_flight: set[int | str] = set()

    async def receive(self) -> Any:
        while True:
            if self._pending:
                item = self._pending.popleft()
                self._note(item)
                return item
            try:
                item = await self._inner.receive()
            except anyio.EndOfStream:
                with anyio.move_on_after(END_GRACE):
                    while self.in_flight:
                        await anyio.sleep(0.005)
                raise
            if isinstance(item, Exception):
                members = _batch_members(item)
                if members is not None and self._batches.version in BATCH_VERSIONS:
                    await self._open_batch(members)
                    continue
                reply = error_for(item)
            else:
                reply = self._without_id(getattr(item, "message", None))
                if reply is None:
                    self._note(item)
                    await self._drop_from_batch(_cancelled(item))
                    return item
            if reply is not None:
                await self._send(SessionMessage(reply))

    async def _send(self, item: SessionMessage) -> None:
        # A writer that is gone means the connection is ending anyway.
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            await self._write_stream.send(item)

    async def _open_batch(self, members: list[Any]) -> None:
        """Queue a batch's messages for the server; the answers of members that are no
        messages (or may not be batched) wait with the others in a :class:`Batch`."""
        batch = Batch()
        for member in members:
            try:
                message = types.jsonrpc_message_adapter.validate_python(member, by_name=False)
            except Exception as problem:
                refused = error_for(problem)
                if refused is not None:
                    batch.answers.append(refused)
                continue
            reply = self._without_id(message)
            if reply is None and isinstance(message, types.JSONRPCRequest):
                if message.method == "initialize":
                    reply = _error(
                        types.INVALID_REQUEST,
                        "Invalid request: initialize must not be part of a JSON-RPC batch",
                        message.id,
                    )
                else:
                    batch.waiting.add(message.id)
            if reply is not None:
                batch.answers.append(reply)
            else:
                self._pending.append(SessionMessage(message))
        if batch.waiting:
            self._batches.open.append(batch)
        elif batch.answers:
            await self._send(batch.message())

    async def _drop_from_batch(self, request_id: int | str | None) -> None:
        """A cancelled request gets no answer (MCP cancellation): its batch stops waiting
        for it, and goes out if it waited for nothing else."""
        batch = self._batches.holding(request_id)
        if batch is None:
            return
        batch.waiting.discard(request_id)
        if not batch.waiting:
            self._batches.open.remove(batch)
            if batch.answers:
                await self._send(batch.message())

    def _without_id(self, message: Any) -> types.JSONRPCError | None:
        """The error answering a request that came as a notification; ``None`` for any
        other message.

        The transport cannot say whether the line had an ``id`` that was no string or
        integer, or none at all. Either way it is no MCP message: MCP requests carry a
        string or integer id (never null), notifications none, and a request's method
        is never a notification's. So it is answered, with a null id (JSON-RPC 2.0,
        section 5: the id of an invalid request that cannot be read)."""
        if not isinstance(message, types.JSONRPCNotification):
            return None
        # initialize is answered by the SDK's session itself, not by a handler.
        if message.method != "initialize" and self._request_handler(message.method) is None:
            return None
        return _error(
            types.INVALID_REQUEST,
            f"Invalid request: {message.method!r} is a request, which needs an id that is "
            "a string or an integer",
            None,
        )

    def _note(self, item: Any) -> None:
        message = getattr(item, "message", None)
        if isinstance(message, types.JSONRPCRequest):
            self.in_flight.add(message.id)
        else:
            self.in_flight.discard(_cancelled(item))  # no answer is due

    def __aiter__(self) -> AnsweringReadStream:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> AnsweringReadStream:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class Batch:
    """One JSON-RPC batch being answered: the ids of its requests still ``waiting`` and
    the ``answers`` in so far."""

    def __init__(self) -> None:
        self.waiting: set[int | str] = set()
        self.answers: list[types.JSONRPCResponse | types.JSONRPCError] = []

    def message(self) -> SessionMessage:
        """The answers as one message, which the transport writes as a JSON array."""
        return SessionMessage(_batch_answer().model_construct(root=self.answers))


@functools.cache
def _batch_answer() -> Any:
    from pydantic import RootModel

    return RootModel[list[types.JSONRPCResponse | types.JSONRPCError]]


class Batches:
    """What the connection knows of batches: the protocol ``version`` it negotiated (read
    from the ``initialize`` answer) and the batches ``open``."""

    def __init__(self) -> None:
        self.version: str | None = None
        self.open: list[Batch] = []

    def note(self, message: Any) -> None:
        """Take the negotiated version from the answer to ``initialize``."""
        result = getattr(message, "result", None)
        if isinstance(result, dict) and "protocolVersion" in result and "serverInfo" in result:
            self.version = result["protocolVersion"]

    def holding(self, request_id: int | str | None) -> Batch | None:
        """The open batch waiting for ``request_id`` (``None``: none)."""
        return next((batch for batch in self.open if request_id in batch.waiting), None)


def _cancelled(item: Any) -> int | str | None:
    """The id of the request a ``notifications/cancelled`` item cancels; ``None`` for
    other items, and for an id that is no string or integer (no request has one)."""
    message = getattr(item, "message", None)
    if not (
        isinstance(message, types.JSONRPCNotification)
        and message.method == "notifications/cancelled"
        and isinstance(message.params, dict)
    ):
        return None
    request_id = message.params.get("requestId")
    return request_id if isinstance(request_id, int | str) else None


def _batch_members(problem: Exception) -> list[Any] | None:
    """The members of the JSON array a refused line held, or ``None``."""
    errors = _validation_errors(problem)
    if not errors or errors[0].get("type") == "json_invalid":
        return None
    value = _message_of(errors)
    return value if isinstance(value, list) and value else None


class _AnswerTrackingWriteStream:
    """The transport's write stream, crossing each answered request off ``in_flight`` and
    holding the answers of a batch's requests until the batch is complete."""

    def __init__(
        self, inner: Any, in_flight: set[int | str], batches: Batches | None = None
    ) -> None:
        self._inner = inner
        self._in_flight = in_flight
        self._batches = batches if batches is not None else Batches()

    async def send(self, item: Any) -> None:
        message = getattr(item, "message", None)
        answer = isinstance(message, types.JSONRPCResponse | types.JSONRPCError)
        batch = self._batches.holding(message.id) if answer and self._batches.open else None
        if batch is not None:
            batch.answers.append(_writable(item).message)
            batch.waiting.discard(message.id)
            if batch.waiting:
                self._in_flight.discard(message.id)
                return
            self._batches.open.remove(batch)
            item = batch.message()
        else:
            item = _writable(item)
            if isinstance(message, types.JSONRPCResponse):
                self._batches.note(message)
        await self._inner.send(item)
        if answer:
            self._in_flight.discard(message.id)

    async def __aenter__(self) -> _AnswerTrackingWriteStream:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self._inner.aclose()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def _writable(item: Any) -> Any:
    """``item`` as the SDK's writer can write it. Text holding a lone surrogate (a file
    name that is not UTF-8, as Python reads it from the disk, in a path an answer names)
    cannot be written as UTF-8, and the writer's failure ended the connection: such text
    is sent with the surrogate escaped (``\\udcff``). Tried on every message, which costs a
    second serialization; rebuilt only when it fails."""
    message = getattr(item, "message", None)
    if message is None:
        return item
    from pydantic_core import PydanticSerializationError

    try:
        message.model_dump_json(by_alias=True, exclude_unset=True)
    except PydanticSerializationError:
        data = _escaped(message.model_dump(by_alias=True, exclude_unset=True))
        return SessionMessage(type(message).model_validate(data), metadata=item.metadata)
    return item


def _escaped(value: Any) -> Any:
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, dict):
        return {_escaped(key): _escaped(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_escaped(item) for item in value]
    return value


def error_for(problem: Exception) -> types.JSONRPCError | None:
    """The JSON-RPC error answering a line the transport refused with ``problem``; ``None``
    for a blank line."""
    errors = _validation_errors(problem)
    first = errors[0] if errors else {}
    if first.get("type") == "json_invalid":
        line = first.get("input")
        text = line if isinstance(line, str) else ""
        if not text.strip():
            return None
        reason = str(first.get("msg", "invalid JSON"))
        if "recursion limit" in reason:
            reason = f"the message is nested too deeply to read ({reason})"
        return _error(
            types.PARSE_ERROR,
            f"Parse error: {reason}; each line must be one JSON-RPC message, got {_quoted(text)}",
            request_id_in_text(text),
        )
    if errors:
        value = _message_of(errors)
        return _error(
            types.INVALID_REQUEST,
            "Invalid request: not a JSON-RPC 2.0 request, notification or response "
            f"({_problems(errors)})",
            request_id(value.get("id")) if isinstance(value, dict) else None,
        )
    return _error(types.PARSE_ERROR, f"Parse error: {type(problem).__name__}: {problem}", None)


@contextlib.contextmanager
def protocol_error(kind: type[SkillkitError]) -> Iterator[None]:
    """Answer a ``kind`` error the core raises as JSON-RPC's invalid params, not as the
    tool result every other refusal is (an unknown tool: the MCP specification lists it
    among protocol errors)."""
    from mcp.shared.exceptions import MCPError

    try:
        yield
    except kind as error:
        raise MCPError(code=types.INVALID_PARAMS, message=error.message) from None


class InternalErrors:
    """Server middleware (outermost): an exception a handler did not mean to raise is
    answered ``-32603`` with the exception's type, and described on stderr. An
    ``MCPError`` (a handler's deliberate answer), pydantic's ``ValidationError`` (params
    that do not fit the method, which the SDK answers ``-32602``) and cancellation pass
    unchanged."""

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        from mcp.shared.exceptions import MCPError
        from pydantic import ValidationError

        try:
            return await call_next(ctx)
        except (MCPError, ValidationError):
            raise
        except Exception as error:
            import sys

            from skillkit_core.safe_text import escape_controls

            kind = type(error).__name__
            method = getattr(ctx, "method", "?")
            said = escape_controls(f"{method}: {kind}: {error}", line_breaks=True)
            with contextlib.suppress(OSError, ValueError):
                print(f"skillkit: error[internal]: {said}", file=sys.stderr)
            raise MCPError(
                code=types.INTERNAL_ERROR,
                message=f"Internal error: {method} failed ({kind}); the server's log says more",
            ) from None


def _message_of(errors: list[dict[str, Any]]) -> Any:
    """The message a validation failed on. An error's ``input`` is the value at its
    location (the params of ``"params": [1, 2]``); a member's missing top-level field
    (``JSONRPCResponse.result``, say) is reported with the whole message as its input,
    where the id is (an error for id 6 came back with a null id)."""
    for error in errors:
        if error.get("type") == "missing" and len(error.get("loc", ())) == 2:
            return error.get("input")
    return errors[0].get("input") if errors else None


def _validation_errors(problem: Exception) -> list[dict[str, Any]]:
    errors = getattr(problem, "errors", None)
    if not callable(errors):
        return []
    try:
        found = errors()
    except (TypeError, ValueError):
        return []
    return [error for error in found if isinstance(error, dict)] if isinstance(found, list) else []


def _problems(errors: list[dict[str, Any]]) -> str:
    """The union's complaints, once each: ``'method': Field required; …``."""
    seen: list[str] = []
    for error in errors:
        where = ".".join(str(part) for part in error.get("loc", ())[1:])
        text = f"{where}: {error.get('msg')}" if where else str(error.get("msg"))
        if text not in seen:
            seen.append(text)
    return "; ".join(seen[:4]) + (f"; and {len(seen) - 4} more" if len(seen) > 4 else "")


def _quoted(text: str) -> str:
    text = text.strip()
    return json.dumps(text if len(text) <= _QUOTE else text[:_QUOTE] + "…")


def _error(code: int, message: str, request_id: int | str | None) -> types.JSONRPCError:
    return types.JSONRPCError(
        jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message)
    )
