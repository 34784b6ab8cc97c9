"""A raw newline-delimited JSON-RPC client for MCP servers on stdio: it writes any line,
well-formed or not, and reads the server's answers with a deadline (no MCP library, so
nothing is validated or dropped on the client side)."""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import time
from pathlib import Path
from typing import Any

PROTOCOL_VERSION = "2025-06-18"
INITIALIZE_PARAMS: dict[str, Any] = {
    "protocolVersion": PROTOCOL_VERSION,
    "capabilities": {},
    "clientInfo": {"name": "raw-test-client", "version": "1"},
}


class RawServer:
    """A server process and the raw lines that go in and out of it."""

    def __init__(self, argv: list[str], *, cwd: Path, stderr: Path, env: dict[str, str]) -> None:
        self.stderr_path = stderr
        self._err = stderr.open("wb")
        self.process = subprocess.Popen(
            argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._err
        )
        self._pending = b""

    def send_line(self, line: str | bytes) -> None:
        data = line.encode("utf-8") if isinstance(line, str) else line
        assert self.process.stdin is not None
        self.process.stdin.write(data + b"\n")
        self.process.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.send_line(json.dumps(message))

    def receive(self, timeout: float = 20.0) -> dict[str, Any]:
        """The next line the server writes, as JSON; fails after ``timeout`` seconds."""
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        deadline = time.monotonic() + timeout
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while b"\n" not in self._pending:
                left = deadline - time.monotonic()
                if left <= 0 or not selector.select(left):
                    raise AssertionError(
                        f"no answer within {timeout} s; stderr:\n{self.stderr_text()}"
                    )
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    raise AssertionError(f"the server closed stdout; stderr:\n{self.stderr_text()}")
                self._pending += chunk
        line, self._pending = self._pending.split(b"\n", 1)
        return json.loads(line)

    def answer_to(self, request_id: Any, timeout: float = 20.0) -> dict[str, Any]:
        """The response to ``request_id``, skipping notifications the server sends."""
        while True:
            message = self.receive(timeout)
            if "id" in message:
                assert message["id"] == request_id, message
                return message

    def request(self, request_id: int, method: str, params: dict[str, Any] | None = None) -> Any:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return self.answer_to(request_id)

    def initialize(self) -> dict[str, Any]:
        answer = self.request(0, "initialize", INITIALIZE_PARAMS)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return answer

    def stderr_text(self) -> str:
        if not self._err.closed:
            self._err.flush()
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")

    def close(self, timeout: float = 20.0) -> int:
        """Close stdin (the client is done) and wait for the server to exit."""
        assert self.process.stdin is not None
        if not self.process.stdin.closed:
            self.process.stdin.close()
        try:
            return self.process.wait(timeout)
        finally:
            self._finish()

    def hang_up(self, timeout: float = 20.0) -> int:
        """Close both pipes at once, as a client that dies does, and wait for the exit."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdout.close()
        self.process.stdin.close()
        try:
            return self.process.wait(timeout)
        finally:
            self._finish()

    def _finish(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
        self._err.close()

    def __enter__(self) -> RawServer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self.process.stdin is not None and not self.process.stdin.closed:
            self.process.stdin.close()
        self._finish()


def nested_request(request_id: int, depth: int) -> str:
    """An ``advance`` call whose output is a list nested ``depth`` levels deep."""
    head = (
        f'{{"jsonrpc":"2.0","id":{request_id},"method":"tools/call","params":'
        '{"name":"advance","arguments":{"session":"00000000","step":"x","output":'
    )
    return head + "[" * depth + "]" * depth + "}}}"
