"""A raw LSP client over stdio (Content-Length framing, no library): it sends any params,
valid or not, and reads everything the server writes, with deadlines."""

from __future__ import annotations

import itertools
import json
import os
import selectors
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.lsp.support import SERVER, uri_of


class RawLsp:
    """One server process; ``messages`` holds every message it sent, in order."""

    def __init__(
        self,
        root: Path,
        stderr: Path,
        options: dict[str, Any] | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        self.stderr_path = stderr
        self._err = stderr.open("wb")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "skill_lsp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._err,
            env=env or SERVER.server_env,
            cwd=root,
        )
        self._buffer = b""
        self._ids = itertools.count(1)
        self.messages: list[dict[str, Any]] = []
        self.root = root
        answer = self.request(
            "initialize",
            {
                "processId": os.getpid(),
                "capabilities": {},
                "rootUri": uri_of(root),
                "workspaceFolders": [{"uri": uri_of(root), "name": root.name}],
                "initializationOptions": {"worker": {"timeout": 20}, **(options or {})},
            },
        )
        assert "result" in answer, answer
        self.notify("initialized", {})

    # -- writing ----------------------------------------------------------------------

    def _write(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def send_body(self, body: bytes) -> None:
        """One frame holding ``body`` as it is (no ``jsonrpc`` added, any bytes)."""
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def notify(self, method: str, params: Any) -> None:
        self._write({"method": method, "params": params})

    def send(self, method: str, params: Any) -> int:
        """Send a request; its id (answer with :meth:`answer`)."""
        ident = next(self._ids)
        self._write({"id": ident, "method": method, "params": params})
        return ident

    def request(self, method: str, params: Any, timeout: float = 30.0) -> dict[str, Any]:
        return self.answer(self.send(method, params), timeout)

    def open(self, path: Path, text: str, version: int = 1) -> str:
        uri = uri_of(path)
        self.notify(
            "textDocument/didOpen",
            {
                "textDocument": {
                    "uri": uri,
                    "languageId": "python",
                    "version": version,
                    "text": text,
                }
            },
        )
        return uri

    # -- reading ----------------------------------------------------------------------

    def _read_some(self, deadline: float) -> bool:
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            left = deadline - time.monotonic()
            if left <= 0 or not selector.select(left):
                return False
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            raise AssertionError(f"the server exited; stderr:\n{self.stderr_text()}")
        self._buffer += chunk
        while b"\r\n\r\n" in self._buffer:
            head, rest = self._buffer.split(b"\r\n\r\n", 1)
            length = next(
                int(line.split(b":", 1)[1])
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length:")
            )
            if len(rest) < length:
                break
            self.messages.append(json.loads(rest[:length]))
            self._buffer = rest[length:]
        return True

    def wait(self, condition: Any, timeout: float = 30.0, what: str = "a message") -> Any:
        """Read until ``condition(messages)`` is truthy; its value."""
        deadline = time.monotonic() + timeout
        while True:
            found = condition(self.messages)
            if found:
                return found
            if not self._read_some(deadline) and time.monotonic() >= deadline:
                raise AssertionError(f"timed out waiting for {what}")

    def answer(self, ident: int, timeout: float = 30.0) -> dict[str, Any]:
        """The response to request ``ident``."""

        def find(messages: list[dict[str, Any]]) -> dict[str, Any] | None:
            return next((m for m in messages if m.get("id") == ident and "method" not in m), None)

        return self.wait(find, timeout, f"the answer to request {ident}")

    def logs(self) -> list[str]:
        return [
            m["params"]["message"] for m in self.messages if m.get("method") == "window/logMessage"
        ]

    def stderr_text(self) -> str:
        self._err.flush()
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")

    def close(self) -> None:
        if self.process.poll() is None:
            try:
                self.request("shutdown", None, timeout=10)
                self.notify("exit", None)
                self.process.wait(timeout=10)
            except (AssertionError, OSError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait()
        self._err.close()
