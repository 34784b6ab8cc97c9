"""JSON-RPC batches on ``scripts/run mcp``: served on a connection of MCP 2025-03-26,
the one version that has them (its basic/index.mdx, "Batching": implementations "MUST
support receiving JSON-RPC batches"), refused on later ones (2025-06-18 removed them).
A batch's answers come back as one array (JSON-RPC 2.0, section 6)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.protocol.raw_jsonrpc import INITIALIZE_PARAMS, RawServer
from tests.protocol.support import DEPLOY_CHECK, ROOT

INVALID_REQUEST = -32600


def _server(tmp_path: Path, version: str) -> RawServer:
    env = {k: v for k, v in os.environ.items() if k != "SKILLKIT_DEBUG"}
    argv = [sys.executable, "-m", "skillkit_core.protocol", DEPLOY_CHECK, "mcp"]
    raw = RawServer(argv, cwd=ROOT, stderr=tmp_path / "stderr.txt", env=env)
    answer = raw.request(0, "initialize", {**INITIALIZE_PARAMS, "protocolVersion": version})
    assert answer["result"]["protocolVersion"] == version
    raw.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    return raw


@pytest.fixture
def batching(tmp_path: Path) -> Iterator[RawServer]:
    with _server(tmp_path, "2025-03-26") as raw:
        yield raw


def _request(request_id: int, method: str) -> dict:
    return {"jsonrpc": "2.0", "id": request_id, "method": method}


def test_a_batch_is_answered_with_one_array(batching: RawServer) -> None:
    batching.send_line(
        "["
        '{"jsonrpc":"2.0","id":1,"method":"ping"},'
        '{"jsonrpc":"2.0","method":"notifications/roots/list_changed"},'
        '{"jsonrpc":"2.0","id":"two","method":"tools/list"}'
        "]"
    )
    answers = batching.receive()
    assert isinstance(answers, list) and len(answers) == 2, answers
    by_id = {answer["id"]: answer for answer in answers}
    assert by_id[1]["result"] == {}
    assert {tool["name"] for tool in by_id["two"]["result"]["tools"]} == {"start", "advance"}


def test_members_that_are_no_messages_get_their_errors_in_the_array(
    batching: RawServer,
) -> None:
    batching.send_line(
        '[1, {"jsonrpc":"2.0","id":5,"method":"initialize"}, '
        + '{"jsonrpc":"2.0","id":6,"method":"ping"}]'
    )
    answers = batching.receive()
    assert len(answers) == 3, answers
    errors = [answer for answer in answers if "error" in answer]
    assert {(e["id"], e["error"]["code"]) for e in errors} == {
        (None, INVALID_REQUEST),
        (5, INVALID_REQUEST),
    }
    assert "must not be part of a JSON-RPC batch" in next(
        e["error"]["message"] for e in errors if e["id"] == 5
    )
    assert [answer["result"] for answer in answers if answer.get("id") == 6] == [{}]


def test_a_batch_of_notifications_gets_no_answer(batching: RawServer) -> None:
    batching.send_line('[{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}]')
    assert batching.request(7, "ping")["result"] == {}


def test_an_empty_batch_is_an_invalid_request(batching: RawServer) -> None:
    batching.send_line("[]")
    answer = batching.receive()
    assert answer["id"] is None and answer["error"]["code"] == INVALID_REQUEST


def test_later_versions_refuse_a_batch(tmp_path: Path) -> None:
    with _server(tmp_path, "2025-06-18") as raw:
        raw.send_line(f"[{_request(1, 'ping')}]".replace("'", '"'))
        answer = raw.receive()
        assert answer["id"] is None and answer["error"]["code"] == INVALID_REQUEST
        assert raw.request(2, "ping")["result"] == {}
