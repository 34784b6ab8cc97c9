"""A language server whose stdout fails (a full disk behind it) stops at once and says
why on stderr, the editor's log of it, instead of trying to report the failure through
the stream that fails."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.lsp.support import SERVER


def _message(payload: dict) -> bytes:
    body = json.dumps(payload).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_server_that_cannot_write_to_its_client_stops_saying_why() -> None:
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"processId": None, "rootUri": None, "capabilities": {}},
    }
    with open("/dev/full", "wb") as full:
        server = subprocess.Popen(
            [sys.executable, "-m", "skill_lsp"],
            stdin=subprocess.PIPE,
            stdout=full,
            stderr=subprocess.PIPE,
            env=SERVER.server_env,
        )
        assert server.stdin is not None and server.stderr is not None
        server.stdin.write(_message(initialize))
        server.stdin.flush()  # stdin stays open, as an editor's does
        try:
            code = server.wait(timeout=30)  # it would wait for the next message otherwise
        finally:
            server.kill()
        err = server.stderr.read().decode("utf-8", "replace")
    assert code == 1
    assert err.strip().splitlines()[-1] == (
        "skillkit lsp: error[output]: the output could not be written: "
        "No space left on device; stopping"
    )
