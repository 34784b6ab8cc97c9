"""The server never stalls, never leaves a request unanswered and keeps nothing per edit.

Raw JSON-RPC over stdio (tests/lsp/raw_lsp.py), so that params a typed client would
refuse to send reach the server, and everything the server writes is seen.
"""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from typing import Any

import pytest
from pygls.io_ import StdoutWriter

from tests.lsp.raw_lsp import RawLsp
from tests.lsp.support import checks_of, fresh_workspace, uri_of

DEPLOY = "deploy/deploy_check.py"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):
    root = fresh_workspace("steady")
    raw = RawLsp(root, tmp_path_factory.mktemp("steady") / "stderr.txt", {"executeCode": False})
    yield raw
    raw.close()


def _at(uri: str, line: object, character: object) -> dict:
    return {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}


@pytest.mark.parametrize(
    ("method", "params", "named"),
    [
        ("textDocument/hover", lambda uri: _at(uri, -1, 0), "Position.line"),
        ("textDocument/completion", lambda uri: _at(uri, 0, -5), "Position.character"),
        ("textDocument/definition", lambda uri: _at(uri, -3, -5), "Position"),
        ("textDocument/references", lambda uri: {**_at(uri, -1, 0), "context": {}}, ""),
        ("textDocument/hover", lambda uri: {"textDocument": {"uri": uri}}, "position"),
        ("textDocument/hover", lambda uri: _at(uri, "x", 0), "x"),
        ("textDocument/rename", lambda uri: {**_at(uri, 2**40, 0), "newName": "b"}, "2147483647"),
        ("textDocument/documentSymbol", lambda uri: {"textDocument": 5}, ""),
    ],
    ids=["line", "character", "both", "references", "missing", "type", "huge", "document"],
)
def test_a_request_with_invalid_params_gets_an_invalid_params_error(
    server: RawLsp, method: str, params, named: str
) -> None:
    uri = server.open(server.root / DEPLOY, (server.root / DEPLOY).read_text(encoding="utf-8"))
    answer = server.request(method, params(uri))
    assert answer["error"]["code"] == -32602, answer
    assert answer["error"]["message"].startswith(f"invalid params for {method}: ")
    assert named in answer["error"]["message"]
    # The server goes on answering, and said nothing about an internal error.
    fine = server.request("textDocument/hover", _at(uri, 0, 0))
    assert "result" in fine
    assert not [line for line in server.logs() if "internal error" in line]
    assert "Traceback" not in server.stderr_text()


def test_rename_outside_a_step_is_a_plain_request_failed_error(server: RawLsp) -> None:
    text = (server.root / DEPLOY).read_text(encoding="utf-8")
    uri = server.open(server.root / DEPLOY, text, version=2)
    lines = text.splitlines()
    line = next(number for number, body in enumerate(lines) if body.startswith("class "))
    answer = server.request(
        "textDocument/rename", {**_at(uri, line, 7), "newName": "renamed"}, timeout=30
    )
    assert answer["error"] == {"code": -32803, "message": "there is no step name here to rename"}
    assert not [line for line in server.logs() if "internal error" in line]
    assert "Traceback" not in server.stderr_text()


def test_a_line_of_unclosed_brackets_holds_up_no_request(server: RawLsp) -> None:
    # It used to hold the interpreter for over a minute while tree-sitter queried it.
    root = server.root
    deploy = server.open(root / DEPLOY, (root / DEPLOY).read_text(encoding="utf-8"), version=3)
    wall = server.open(root / "deploy" / "wall.py", "(" * 300_000, version=1)
    other = server.send("textDocument/documentSymbol", {"textDocument": {"uri": deploy}})
    own = server.send("textDocument/hover", _at(wall, 0, 150_000))
    # Generous bounds: a regression takes minutes; the answers now take well under one.
    assert "result" in server.answer(other, timeout=20)
    assert "result" in server.answer(own, timeout=20)
    server.wait(
        lambda messages: any(
            m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == wall
            for m in messages
        ),
        timeout=20,
        what="diagnostics of the bracket wall",
    )


def test_requests_are_answered_while_a_slow_text_is_indexed(server: RawLsp) -> None:
    """The syntax index is computed off the event loop: a request about another document
    is answered before the slow text's own diagnostics are ready. (Half a million lines
    of one bracket each: a single line that long would be left out of the parse.)"""
    root = server.root
    text = (root / DEPLOY).read_text(encoding="utf-8")
    deploy = server.open(root / DEPLOY, text, version=4)
    assert "result" in server.request("textDocument/hover", _at(deploy, 0, 0))
    wall = uri_of(root / "deploy" / "long.py")
    for version in (1, 2):
        server.open(root / "deploy" / "long.py", "(\n" * 500_000, version=version)
        ident = server.send("textDocument/documentSymbol", {"textDocument": {"uri": deploy}})
        answer = server.answer(ident, timeout=20)
        assert answer["result"], answer

        def wall_published(messages: list[dict], version: int = version) -> int | None:
            return next(
                (
                    position
                    for position, m in enumerate(messages)
                    if m.get("method") == "textDocument/publishDiagnostics"
                    and m["params"]["uri"] == wall
                    and m["params"].get("version") == version
                ),
                None,
            )

        published = server.wait(wall_published, timeout=30, what="the slow text's diagnostics")
        assert server.messages.index(answer) < published
        server.notify("textDocument/didClose", {"textDocument": {"uri": wall}})


def test_edits_leave_no_future_behind() -> None:
    """pygls kept the future of every notification handled by a generator or coroutine:
    each didChange left one in ``_request_futures`` for good (+42 MB over 21,000 edits)."""
    from skill_lsp.server import create_server

    async def edit_many() -> int:
        server = create_server()
        protocol = server.protocol
        protocol.set_writer(StdoutWriter(io.BytesIO()))

        def receive(message: dict) -> None:
            protocol.handle_message(protocol.structure_message({"jsonrpc": "2.0", **message}))

        receive(
            {
                "id": 1,
                "method": "initialize",
                "params": {"capabilities": {}, "initializationOptions": {"executeCode": False}},
            }
        )
        receive({"method": "initialized", "params": {}})
        uri = uri_of(Path("/nonexistent/skill.py"))
        document = {"uri": uri, "languageId": "python", "version": 1, "text": "x = 1\n"}
        receive({"method": "textDocument/didOpen", "params": {"textDocument": document}})
        start = {"line": 0, "character": 0}
        for version in range(2, 2_002):
            receive(
                {
                    "method": "textDocument/didChange",
                    "params": {
                        "textDocument": {"uri": uri, "version": version},
                        "contentChanges": [{"range": {"start": start, "end": start}, "text": "a"}],
                    },
                }
            )
            if version % 100 == 0:
                await asyncio.sleep(0)
        await asyncio.sleep(0.2)
        left = len(protocol._request_futures)
        await server.semantic.shutdown()
        return left

    assert asyncio.run(edit_many()) <= 2


def test_what_a_module_prints_reaches_the_log_only_up_to_a_limit(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """A module printing 20 MB at import sent 60,005 ``window/logMessage`` notifications."""
    from skill_lsp.worker.output import MAX_LINES

    root = fresh_workspace("loud")
    trusted = {"executeCode": True, "workspaceTrusted": True, "trace": {"server": "messages"}}
    raw = RawLsp(root, tmp_path_factory.mktemp("loud") / "stderr.txt", trusted)
    try:
        path = root / "deploy" / "loud.py"
        text = (
            "from skillkit_core import skill, terminal\n"
            "for number in range(60_000):\n"
            "    print(number, 'x' * 330)\n"
            "print('y' * 5_000_000)\n"
            'flow = skill(name="loud", entry="a").step("a", prompt="A", next=terminal)\n'
        )
        path.write_text(text, encoding="utf-8")
        uri = raw.open(path, text)
        # With tracing on, the server logs each analysis when it is done.
        raw.wait(
            lambda messages: any("analysed " in line for line in raw.logs()),
            timeout=90,
            what="the analysis of the loud module",
        )
        answer = raw.request("textDocument/hover", _at(uri, 0, 0))
        assert "result" in answer
        worker_lines = [line for line in raw.logs() if line.startswith("[worker ")]
        assert len(worker_lines) <= MAX_LINES + 2, len(worker_lines)
        assert any("further output of this analysis is not shown" in line for line in worker_lines)
        assert sum(len(line) for line in worker_lines) < 100_000
    finally:
        raw.close()


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")
def test_shutdown_while_a_command_runs_answers_null_and_ends_it(tmp_path: Path) -> None:
    # pygls's shutdown cancels each request while iterating them, and a cancelled
    # command's callbacks took it out of that dict: "dictionary changed size during
    # iteration" was the answer, and the command went on.
    slow = tmp_path / "slow.py"
    slow.write_text("import time\n\ntime.sleep(60)\n", encoding="utf-8")
    raw = RawLsp(tmp_path, tmp_path / "stderr.txt", options={"workspaceTrusted": True})
    try:
        command = raw.send(
            "workspace/executeCommand",
            {"command": "skillkit.check", "arguments": [{"uri": uri_of(slow)}]},
        )
        _until(lambda: checks_of(slow), 30, "the check to start")
        assert raw.request("shutdown", None)["result"] is None
        assert raw.answer(command)["error"]["code"] == -32800  # cancelled
        _until(lambda: not checks_of(slow), 10, "the check's processes to end")
    finally:
        raw.close()


def _until(condition: Any, within: float, what: str) -> None:
    import time

    deadline = time.monotonic() + within
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


@pytest.mark.parametrize(
    "bad_frame",
    [
        b"Content-Length: abc\r\n\r\n{}",
        b'content-length: 39\r\n\r\n{"jsonrpc":"2.0","id":900,"method":"x"}',
        b'Content-Length: 39\n\n{"jsonrpc":"2.0","id":900,"method":"x"}',
        b'Content-Length: 38\r\n\r\n{"jsonrpc":"2.0","id":900,"method":"x"}',
    ],
    ids=["not-a-number", "lowercase", "bare-newlines", "one-byte-short"],
)
def test_a_malformed_frame_costs_that_frame_only(tmp_path: Path, bad_frame: bytes) -> None:
    # pygls took a header only as exactly "Content-Length: N\r\n": after one bad frame,
    # each body ran into the next header line and the server never answered again.
    raw = RawLsp(tmp_path, tmp_path / "stderr.txt")
    try:
        assert raw.process.stdin is not None
        raw.process.stdin.write(bad_frame)
        raw.process.stdin.flush()
        for _ in range(3):
            assert "result" in raw.request("workspace/symbol", {"query": ""}, timeout=20)
    finally:
        raw.close()


def test_a_request_after_shutdown_is_refused_and_exit_codes_follow_the_spec(
    tmp_path: Path,
) -> None:
    # pygls dropped a request after shutdown (its client waited for good), and swallowed
    # the exit code 1 that an exit without shutdown must give.
    raw = RawLsp(tmp_path, tmp_path / "stderr.txt")
    assert raw.request("shutdown", None)["result"] is None
    answer = raw.request("workspace/symbol", {"query": ""}, timeout=10)
    assert answer["error"]["code"] == -32600
    raw.notify("exit", None)
    assert raw.process.wait(10) == 0
    raw.close()
    abrupt = RawLsp(tmp_path, tmp_path / "stderr-2.txt")
    abrupt.notify("exit", None)
    assert abrupt.process.wait(10) == 1
    abrupt.close()


SYMBOLS = b'"method":"workspace/symbol","params":{"query":""}'
DEEP = b"[" * 5000 + b"]" * 5000


@pytest.mark.parametrize(
    ("body", "code", "ident", "said"),
    [
        (b'{"id":901,' + SYMBOLS + b"}", -32600, 901, "no jsonrpc"),
        (b'{"jsonrpc":"2.0","id":902,"method":5,"params":{}}', -32600, 902, "method"),
        (b'{"jsonrpc":"2.0","id":null,' + SYMBOLS + b"}", -32600, None, "id"),
        (b'{"jsonrpc":"2.0","id":[1],' + SYMBOLS + b"}", -32600, None, "id"),
        (b'[{"jsonrpc":"2.0","id":903,' + SYMBOLS + b"}]", -32600, None, "JSON object"),
        (b"{}", -32600, None, 'needs jsonrpc "2.0" and a method'),
        (b'{"jsonrpc":"2.0","id":904,' + SYMBOLS[:-2], -32700, 904, "Parse error"),
        (b'{"jsonrpc":"2.0","id":"a\xff",' + SYMBOLS + b"}", -32700, None, "Parse error"),
        (
            b'{"jsonrpc":"2.0","id":905,"method":"workspace/symbol","params":{"query":'
            + DEEP
            + b"}}",
            -32700,
            905,
            "nested",
        ),
        (b'{"jsonrpc":"2.0","id":' + DEEP + b',"method":"x","params":{}}', -32700, None, "nested"),
    ],
    ids=[
        "no-jsonrpc",
        "method-not-a-string",
        "null-id",
        "array-id",
        "batch",
        "empty-object",
        "truncated",
        "not-utf8",
        "nested-5000-deep",
        "id-nested-5000-deep",
    ],
)
def test_a_message_that_is_no_request_gets_an_error_not_silence(
    server: RawLsp, body: bytes, code: int, ident: object, said: str
) -> None:
    """JSON-RPC 2.0 (section 5.1): a parse error or an invalid request is answered, with
    the request's id where it can be read, else a null one. pygls logged a traceback and
    answered nothing (a client waited for good), or answered an internal error carrying
    the server's traceback."""
    server.send_body(body)

    def refusal(messages: list[dict]) -> dict | None:
        # An unreadable id is answered with "id": null, not with no id (section 5).
        return next((m for m in messages if "error" in m and m.get("id", ...) == ident), None)

    answer = server.wait(refusal, what=f"the refusal of {body[:40]!r}")
    server.messages.remove(answer)
    assert answer["error"]["code"] == code, answer
    assert said in answer["error"]["message"], answer
    assert "data" not in answer["error"], answer
    assert "result" in server.request("workspace/symbol", {"query": ""})
    assert "Traceback" not in server.stderr_text()


def test_a_batch_is_answered_once_not_once_per_refused_element(server: RawLsp) -> None:
    # Each element whose params or id did not fit was answered while the batch was read,
    # and then the batch was refused as well: three answers to one message.
    bad_params = b'{"jsonrpc":"2.0","id":906,"method":"textDocument/hover","params":{}}'
    bad_id = b'{"jsonrpc":"2.0","id":[907],' + SYMBOLS + b"}"
    seen = len(server.messages)
    server.send_body(b"[" + bad_params + b"," + bad_id + b"]")
    assert "result" in server.request("workspace/symbol", {"query": ""})
    errors = [m for m in server.messages[seen:] if "error" in m]
    assert [e["error"]["code"] for e in errors] == [-32600], errors
    assert errors[0].get("id", "absent") is None, errors
    assert "batches" in errors[0]["error"]["message"]
