"""``scripts/run mcp`` on the wire: every line a client writes gets an answer, well-formed
or not (raw JSON-RPC lines, no MCP library between the test and the server)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from skillkit_core.protocol.jsontext import request_id_in_text
from tests.protocol.raw_jsonrpc import INITIALIZE_PARAMS, RawServer, nested_request
from tests.protocol.support import DEPLOY_CHECK, PATIENT, ROOT

PARSE_ERROR = -32700
INVALID_REQUEST = -32600


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RawServer]:
    env = {k: v for k, v in os.environ.items() if k != "SKILLKIT_DEBUG"}
    argv = [sys.executable, "-m", "skillkit_core.protocol", DEPLOY_CHECK, "mcp"]
    with RawServer(argv, cwd=ROOT, stderr=tmp_path / "stderr.txt", env=env) as raw:
        raw.initialize()
        yield raw


def assert_still_serving(server: RawServer, request_id: int) -> None:
    answer = server.request(request_id, "tools/list")
    assert {tool["name"] for tool in answer["result"]["tools"]} == {"start", "advance"}


def test_a_line_that_is_not_json_gets_a_parse_error(server: RawServer) -> None:
    server.send_line("hello, this is not JSON")
    answer = server.receive()
    assert answer["jsonrpc"] == "2.0" and answer["id"] is None, answer
    assert answer["error"]["code"] == PARSE_ERROR
    assert "hello, this is not JSON" in answer["error"]["message"]
    assert_still_serving(server, 1)


def test_a_broken_request_is_answered_with_its_own_id(server: RawServer) -> None:
    server.send_line('{"jsonrpc":"2.0","id":41,"method":"tools/list",')
    answer = server.answer_to(41)
    assert answer["error"]["code"] == PARSE_ERROR, answer
    assert_still_serving(server, 2)


def test_a_request_whose_id_is_nested_5000_deep_gets_an_error(server: RawServer) -> None:
    # Reading the id of the unparsable line recursed out of the stack: the server died.
    server.send_line('{"jsonrpc":"2.0","id":' + "[" * 5000 + "]" * 5000 + ',"method":"ping"}')
    answer = server.receive()
    assert answer["id"] is None and answer["error"]["code"] == PARSE_ERROR, answer
    assert_still_serving(server, 3)


def test_a_request_whose_id_is_a_lone_surrogate_gets_an_error(server: RawServer) -> None:
    # The id read back from the refused line could not be written as UTF-8: the SDK's
    # writer died, and scripts/run wrote its own error result on the JSON-RPC stream.
    server.send_line('{"jsonrpc":"2.0","id":"\\udcff","method":"ping"}')
    answer = server.receive()
    assert answer["id"] is None and answer["error"]["code"] == PARSE_ERROR, answer
    assert_still_serving(server, 4)


def test_a_request_nested_100000_deep_gets_an_error_not_silence(server: RawServer) -> None:
    server.send_line(nested_request(7, 100_000))
    answer = server.answer_to(7)
    assert answer["error"]["code"] == PARSE_ERROR, answer
    assert "nested too deeply" in answer["error"]["message"]
    assert_still_serving(server, 3)


def test_json_that_is_not_a_jsonrpc_message_is_an_invalid_request(server: RawServer) -> None:
    server.send_line('{"jsonrpc":"2.0","id":5}')
    answer = server.answer_to(5)
    assert answer["error"]["code"] == INVALID_REQUEST, answer
    assert "method" in answer["error"]["message"]
    server.send_line("[1, 2]")
    answer = server.receive()
    assert (answer["id"], answer["error"]["code"]) == (None, INVALID_REQUEST), answer
    assert_still_serving(server, 4)


@pytest.mark.parametrize(
    "line",
    [
        '{"jsonrpc":"2.0","id":6,"method":"tools/call","params":[1,2]}',
        '{"jsonrpc":"2.0","id":6,"method":"tools/list","params":"x"}',
        '{"jsonrpc":"1.0","id":6,"method":"ping"}',
        '{"jsonrpc":"2.0","id":6,"method":5}',
    ],
)
def test_an_invalid_request_whose_id_can_be_read_is_answered_with_it(
    server: RawServer, line: str
) -> None:
    # The MCP specification (basic/index) and JSON-RPC 2.0 (section 5): the error
    # carries the request's id unless it cannot be read. It came back null: the client
    # waited on request 6 for good.
    server.send_line(line)
    answer = server.answer_to(6)
    assert answer["error"]["code"] == INVALID_REQUEST, answer
    assert_still_serving(server, 7)


@pytest.mark.parametrize("bad_id", ["null", "1.5", "2.0", "true", '{"n":1}', "[3]"])
def test_a_request_whose_id_is_no_string_or_integer_is_an_invalid_request(
    server: RawServer, bad_id: str
) -> None:
    # The SDK's transport reads such a line as a notification and answers nothing: the
    # client waited forever. JSON-RPC 2.0 (section 5) answers with a null id.
    server.send_line(f'{{"jsonrpc":"2.0","id":{bad_id},"method":"tools/list"}}')
    answer = server.receive()
    assert (answer["id"], answer["error"]["code"]) == (None, INVALID_REQUEST), answer
    assert "'tools/list' is a request" in answer["error"]["message"]
    assert_still_serving(server, 6)


def test_an_initialize_whose_id_is_no_string_or_integer_is_an_invalid_request(
    tmp_path: Path,
) -> None:
    # The first request of every client: the SDK's session answers it, not a handler.
    env = {k: v for k, v in os.environ.items() if k != "SKILLKIT_DEBUG"}
    argv = [sys.executable, "-m", "skillkit_core.protocol", DEPLOY_CHECK, "mcp"]
    with RawServer(argv, cwd=ROOT, stderr=tmp_path / "stderr.txt", env=env) as raw:
        params = json.dumps(INITIALIZE_PARAMS)
        raw.send_line(f'{{"jsonrpc":"2.0","id":null,"method":"initialize","params":{params}}}')
        answer = raw.receive()
        assert (answer["id"], answer["error"]["code"]) == (None, INVALID_REQUEST), answer
        raw.initialize()  # a proper one still works


def test_a_notification_gets_no_answer(server: RawServer) -> None:
    server.send_line('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}')
    server.send_line('{"jsonrpc":"2.0","method":"no/such/thing"}')
    assert_still_serving(server, 7)  # the first line back is this answer


def test_blank_lines_are_not_messages(server: RawServer) -> None:
    server.send_line("")
    server.send_line("   ")
    assert_still_serving(server, 5)  # the first line back is this answer, not an error


def test_a_whole_run_still_works_after_junk(server: RawServer) -> None:
    for junk in ("}{", "\x00\x01", '"just a string"', nested_request(8, 3000)):
        server.send_line(junk)
    answers = [server.receive() for _ in range(4)]
    assert [a["error"]["code"] for a in answers] == [
        PARSE_ERROR,
        PARSE_ERROR,
        INVALID_REQUEST,
        PARSE_ERROR,
    ]
    started = server.request(9, "tools/call", {"name": "start", "arguments": {}})
    payload = json.loads(started["result"]["content"][0]["text"])
    assert (payload["status"], payload["step"]) == ("prompt", "choose")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"jsonrpc":"2.0","id":3,"method":"x"', 3),
        ('{"id" : "abc", "params": [[[[', "abc"),
        ('{"method":"id","params":{"id":4},"id":12', 12),
        ('{"params":{"id":4}}', None),
        ('{"id":true}', None),
        ('{"id":null,"x":1', None),
        ('["id", 3]', None),
        ("not json", None),
        ('{"a":"\\"id\\"","id":6', 6),
        ('{"id":"\\udcff","x":', None),
        ('\ufeff{"id":7,"method":"ping"}', 7),
    ],
)
def test_the_request_id_is_read_from_an_unparsable_line(text: str, expected: object) -> None:
    assert request_id_in_text(text) == expected


def test_a_client_that_hangs_up_with_a_call_in_flight_ends_the_server_quietly(
    server: RawServer,
) -> None:
    server.send(
        {
            "jsonrpc": "2.0",
            "id": 20,
            "method": "tools/call",
            "params": {"name": "start", "arguments": {}},
        }
    )
    code = server.hang_up()  # before the answer is written
    assert code == 0, server.stderr_text()
    assert server.stderr_text() == ""


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("face", ["scripts-run", "serve"])
def test_a_stdout_that_cannot_be_written_ends_the_server_with_that_error(
    tmp_path: Path, face: str
) -> None:
    """A full disk behind stdout: the server ends at once, saying why in one line, not
    with the SDK task group's traceback or an internal error."""
    import subprocess

    if face == "serve":
        skill = tmp_path / "notes"
        skill.mkdir()
        (skill / "SKILL.md").write_text("---\nname: notes\ndescription: Notes.\n---\nBody.\n")
        argv = [sys.executable, "-m", "skillkit_core.cli", "serve", str(tmp_path)]
        expected = "error[output]: the output could not be written: No space left on device"
    else:
        argv = [sys.executable, "-m", "skillkit_core.protocol", DEPLOY_CHECK, "mcp"]
        expected = (
            "skillkit: error[output]: the output could not be written: No space left on device"
        )
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INITIALIZE_PARAMS}
    env = {k: v for k, v in os.environ.items() if k != "SKILLKIT_DEBUG"}
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            argv,
            input=json.dumps(initialize) + "\n",
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env=env,
            timeout=60,
        )
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == expected
    assert "Traceback" not in done.stderr and "internal" not in done.stderr


def test_requests_written_before_stdin_closes_are_all_answered(tmp_path: Path) -> None:
    """A client that writes its requests and closes stdin (``printf … | run mcp``): the
    SDK ended the connection at the end of stdin and cancelled what it had not answered
    yet, so the last answers were missing most of the time."""
    env = {k: v for k, v in os.environ.items() if k != "SKILLKIT_DEBUG"}
    argv = [sys.executable, "-m", "skillkit_core.protocol", DEPLOY_CHECK, "mcp"]
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INITIALIZE_PARAMS},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "ping"},
        {
            "jsonrpc": "2.0",
            "id": 4,
            "method": "tools/call",
            "params": {"name": "start", "arguments": {"params": {}}},
        },
    ]
    lines = "".join(json.dumps(message) + "\n" for message in messages)
    for _ in range(3):
        done = subprocess.run(
            argv, input=lines, capture_output=True, text=True, cwd=tmp_path, env=env, timeout=60
        )
        answers = [json.loads(line) for line in done.stdout.splitlines()]
        assert done.returncode == 0, done.stderr
        assert [answer["id"] for answer in answers] == [1, 2, 3, 4], done.stdout
        assert not answers[3]["result"].get("isError"), answers[3]


def _call(request_id: int, tool: str, arguments: dict[str, object]) -> dict[str, object]:
    params = {"name": tool, "arguments": arguments}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


@contextmanager
def _patient(tmp_path: Path, **params: object) -> Iterator[tuple[RawServer, dict[str, object]]]:
    """``scripts/run mcp`` of the patient fixture, a run started (request 1) with its
    release file and log in ``tmp_path``; the server and the arguments that answer its
    step ``go``."""
    env = {k: v for k, v in os.environ.items() if k != "SKILLKIT_DEBUG"}
    argv = [sys.executable, "-m", "skillkit_core.protocol", PATIENT, "mcp"]
    params = {"release": str(tmp_path / "release"), "log": str(tmp_path / "log.jsonl"), **params}
    with RawServer(argv, cwd=ROOT, stderr=tmp_path / "stderr.txt", env=env) as server:
        server.initialize()
        server.send(_call(1, "start", {"params": params}))
        session = json.loads(server.answer_to(1)["result"]["content"][0]["text"])["session"]
        yield server, {"session": session, "step": "work", "output": {"go": True}}


def test_a_slow_plain_action_leaves_the_server_answering_and_can_be_cancelled(
    tmp_path: Path,
) -> None:
    """A plain ``def`` action runs in a worker thread, as the SDK's own server runs a plain
    ``def`` tool (mcp.server.mcpserver.utilities.func_metadata): it used to run on the
    event loop, where nothing else was answered, not even the cancellation meant to stop
    it, until it returned."""
    release, log = tmp_path / "release", tmp_path / "log.jsonl"
    with _patient(tmp_path) as (server, go):
        server.send(_call(2, "advance", go))
        server.send({"jsonrpc": "2.0", "id": 3, "method": "ping"})
        assert server.answer_to(3, timeout=5) == {"jsonrpc": "2.0", "id": 3, "result": {}}
        cancel = {"requestId": 2, "reason": "the user stopped it"}
        server.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": cancel})
        # The action sees its signal at once (it would wait 30 s for the release file).
        deadline = time.monotonic() + 5
        while not log.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        seen = {"released": False, "cancelled": True, "main_thread": False}
        assert log.read_text() == json.dumps(seen) + "\n"
        # The cancelled step is not recorded: answered again, its action runs again.
        release.touch()
        server.send(_call(4, "advance", go))
        result = json.loads(server.answer_to(4)["result"]["content"][0]["text"])
        assert result == {"session": go["session"], "status": "done", "finalOutput": {"go": True}}
        seen = {"released": True, "cancelled": False, "main_thread": False}
        assert log.read_text().splitlines()[1:] == [json.dumps(seen)]
    assert "Traceback" not in (tmp_path / "stderr.txt").read_text()


def test_a_plain_action_that_fails_in_its_thread_reports_its_own_error(tmp_path: Path) -> None:
    # The worker thread's error left a task group wrapped in an ExceptionGroup, whose
    # name and count were all the agent read.
    with _patient(tmp_path, fail=True) as (server, go):
        server.send(_call(2, "advance", go))
        result = json.loads(server.answer_to(2)["result"]["content"][0]["text"])
    assert result["status"] == "error" and result["retry"] is True, result
    assert result["message"].endswith("failed: ValueError: the disk is on fire"), result


def test_a_client_that_hangs_up_during_a_slow_plain_action_stops_it(tmp_path: Path) -> None:
    with _patient(tmp_path) as (server, go):
        server.send(_call(2, "advance", go))
        server.send({"jsonrpc": "2.0", "id": 3, "method": "ping"})
        server.answer_to(3, timeout=5)  # the action is under way
        started = time.monotonic()
        assert server.hang_up(timeout=10) == 0, server.stderr_text()
        assert time.monotonic() - started < 10
        assert server.stderr_text() == ""
    assert json.loads((tmp_path / "log.jsonl").read_text())["cancelled"] is True


def test_a_handler_that_fails_unexpectedly_gets_an_internal_error_not_code_0(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The SDK answered an exception no handler meant (an OSError, say) with code 0, which
    JSON-RPC does not define, carrying the exception's text: a path on the server."""
    import anyio
    from mcp.shared.exceptions import MCPError

    from skillkit_core.protocol.mcp_stdio import InternalErrors

    class Context:
        method = "resources/directory/read"

    async def failing(ctx: object) -> None:
        raise OSError(36, "File name too long", "/srv/private/skill/\x1b]0;x\x07")

    async def deliberate(ctx: object) -> None:
        raise MCPError(code=-32602, message="no such skill")

    with pytest.raises(MCPError) as caught:
        anyio.run(InternalErrors(), Context(), failing)
    assert caught.value.error.code == -32603
    assert caught.value.error.message == (
        "Internal error: resources/directory/read failed (OSError); the server's log says more"
    )
    logged = capsys.readouterr().err
    assert "/srv/private" in logged and "\x1b" not in logged  # escaped, as every face does
    with pytest.raises(MCPError) as passed:
        anyio.run(InternalErrors(), Context(), deliberate)
    assert passed.value.error.code == -32602


@pytest.mark.parametrize(
    ("method", "params"),
    [("tools/call", {"name": 5}), ("tools/call", {"name": "start", "arguments": "x"})],
)
def test_params_that_do_not_fit_are_invalid_params_not_an_internal_error(
    server: RawServer, method: str, params: dict
) -> None:
    # The internal-error middleware took pydantic's ValidationError for a failure.
    answer = server.request(11, method, params)
    assert answer["error"]["code"] == -32602, answer
    assert_still_serving(server, 12)


def test_an_mcp_server_that_stops_writes_no_protocol_result_on_its_stream(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """stdout carries JSON-RPC once ``mcp`` serves: a server that died there had a JSON
    ``error`` result of the command line protocol written after its messages."""
    import io

    from skillkit_core.loader import load_entry
    from skillkit_core.protocol import mcp_server
    from skillkit_core.protocol.runner import main

    def dies(*args: object) -> None:
        raise RuntimeError("the writer died")

    monkeypatch.setattr(mcp_server, "serve", dies)
    out, err = io.StringIO(), io.StringIO()
    code = main(load_entry(DEPLOY_CHECK), ["mcp"], stdout=out, stderr=err)
    assert (code, out.getvalue()) == (1, "")
    assert err.getvalue() == (
        "skillkit: error[internal]: the MCP server stopped: RuntimeError: the writer died\n"
    )


def test_a_cursor_for_a_list_of_one_page_is_invalid(server: RawServer) -> None:
    # None was handed out: pagination says an invalid cursor SHOULD be -32602.
    answer = server.request(31, "tools/list", {"cursor": "bogus"})
    assert answer["error"]["code"] == -32602 and "single page" in answer["error"]["message"]
    assert_still_serving(server, 32)


def test_a_cancellation_naming_no_request_id_leaves_the_server_serving(server: RawServer) -> None:
    # A requestId that is a list reached a set of ids in flight and ended the server.
    params = {"requestId": [1]}
    server.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params})
    assert_still_serving(server, 33)
