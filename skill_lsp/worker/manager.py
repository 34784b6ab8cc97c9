"""The server's side of the worker: start it, send one request at a time, enforce the
time limit, and replace the process when it hangs or dies.

The worker runs under a keeper (:func:`skillkit_core.process_tree.keeper_command`) in a
session of its own, and both adopt the orphans of the author's code: whatever a module
starts is killed after each analysis by the worker, when the worker dies by the keeper,
and when the worker is stopped or times out with the whole tree
(:func:`skillkit_core.process_tree.kill_tree`), setsid'd and double-forked ones included.

Nothing the worker does can raise out of :meth:`WorkerManager.call` except the
:class:`WorkerError` family, which the semantic layer turns into a diagnostic.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import sys
from collections.abc import Callable
from typing import Any

from skill_lsp.worker import protocol
from skill_lsp.worker.output import OutputLimit
from skillkit_core.process_tree import keeper_command, kill_tree

READY_TIMEOUT = 60.0
# One answer holds every step's rendered prompt; asyncio's default 64 KiB line is too small.
LINE_LIMIT = 256 * 1024 * 1024
# What is kept of one line the worker writes to stderr (the log shows less).
STDERR_LINE_LIMIT = 8192


class WorkerError(Exception):
    """The worker could not answer."""

    kind = "error"


class WorkerTimeout(WorkerError):
    """The request did not finish in time; the worker was killed. ``fresh``: the worker
    had run no code before this request (else what an earlier module left running, a
    thread holding the interpreter, may be what took the time)."""

    kind = "timeout"
    fresh = True


class WorkerCrashed(WorkerError):
    """The worker process exited while working on the request."""

    kind = "crash"


class WorkerRequestFailed(WorkerError):
    """The worker answered with an error (a bug, or a request it could not serve)."""

    kind = "failed"


class WorkerManager:
    """Owns at most one worker process; requests queue behind each other."""

    def __init__(
        self,
        *,
        cwd: str | None = None,
        log: Callable[[str], None] | None = None,
        python: str | None = None,
        memory_limit: Callable[[], int] | None = None,
    ) -> None:
        self.cwd = cwd
        #: MiB (0: none) of resident memory past which the worker is replaced after its
        #: answer, read at each request (the setting may change).
        self.memory_limit = memory_limit or (lambda: 0)
        self.python = python or sys.executable
        self._log = log or (lambda message: None)
        self.output = OutputLimit(self._log)
        self._process: asyncio.subprocess.Process | None = None
        self._stderr_task: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        self._ids = itertools.count(1)
        self.restarts = 0
        self.answered = 0
        self.pid: int | None = None

    @property
    def running(self) -> bool:
        """Whether a worker process is alive right now."""
        return self._process is not None and self._process.returncode is None

    async def start(self) -> None:
        """Start the worker now (it is otherwise started by the first request)."""
        async with self._lock:
            await self._ensure()

    async def _ensure(self) -> asyncio.subprocess.Process:
        if self._process is not None and self._process.returncode is None:
            return self._process
        env = dict(os.environ)
        # Compiling the author's helper modules must not litter the workspace.
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env["PYTHONIOENCODING"] = "utf-8"
        process = await asyncio.create_subprocess_exec(
            *keeper_command([self.python, "-m", "skill_lsp.worker"]),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=self.cwd,
            env=env,
            limit=LINE_LIMIT,
            start_new_session=True,
        )
        self._process = process
        self.answered = 0  # requests this process has answered
        self._stderr_task = asyncio.ensure_future(self._forward_stderr(process))
        try:
            line = await asyncio.wait_for(process.stdout.readline(), READY_TIMEOUT)
        except TimeoutError:
            await self._kill()
            raise WorkerCrashed(
                f"the analysis worker did not start in {READY_TIMEOUT:.0f} s"
            ) from None
        if not line:
            code = await process.wait()
            self._process = None
            raise WorkerCrashed(f"the analysis worker exited at start (exit code {code})")
        try:
            ready = protocol.decode(line)
        except ValueError:
            ready = {}
        pid = ready.get("pid")
        self.pid = pid if isinstance(pid, int) else process.pid
        self._log(f"analysis worker started (pid {self.pid})")
        return process

    async def _forward_stderr(self, process: asyncio.subprocess.Process) -> None:
        stream = process.stderr
        if stream is None:
            return

        def forward(line: bytes) -> None:
            text = line.decode("utf-8", "replace").rstrip()
            if text:
                self.output.forward(f"[worker {process.pid}] ", text)

        # Read in chunks, not lines: what the author's code prints may be one line of
        # hundreds of megabytes, which a line reader would hold whole (the output shows
        # the start of a line only).
        pending, cut = b"", False
        with contextlib.suppress(Exception):
            while chunk := await stream.read(1 << 16):
                *lines, pending = (pending + chunk).split(b"\n")
                for line in lines:
                    if not cut:
                        forward(line)
                    cut = False  # the end of a cut line is dropped
                if len(pending) > STDERR_LINE_LIMIT:
                    if not cut:
                        forward(pending[:STDERR_LINE_LIMIT])
                    pending, cut = b"", True
            if pending and not cut:
                forward(pending)

    async def call(self, op: str, arguments: dict[str, Any], timeout: float) -> Any:
        """Send one request and wait at most ``timeout`` seconds for its answer."""
        async with self._lock:
            process = await self._ensure()
            fresh = self.answered == 0
            self.output.start()
            ident = next(self._ids)
            assert process.stdin is not None and process.stdout is not None
            try:
                request = {"id": ident, "op": op, **arguments}
                request[protocol.MEMORY_LIMIT] = self.memory_limit()
                process.stdin.write(protocol.encode(request))
                await process.stdin.drain()
            except (BrokenPipeError, ConnectionResetError) as error:
                code = await self._reap()
                raise WorkerCrashed(f"the analysis worker is gone (exit code {code})") from error
            loop = asyncio.get_running_loop()
            deadline = loop.time() + timeout
            while True:
                remaining = deadline - loop.time()
                try:
                    line = await asyncio.wait_for(process.stdout.readline(), max(remaining, 0))
                except TimeoutError:
                    await self._kill()
                    self.restarts += 1
                    late = WorkerTimeout(f"the analysis did not finish within {timeout:g} s")
                    late.fresh = fresh
                    raise late from None
                except (ValueError, asyncio.LimitOverrunError) as error:
                    await self._kill()
                    raise WorkerCrashed(f"the worker's answer was unreadable: {error}") from None
                except asyncio.CancelledError:
                    # The caller gave up (a cancelled simulate): the worker is still busy
                    # with it, and the next request, waiting behind it, was blamed for
                    # the time. The next one gets a fresh worker.
                    await asyncio.shield(self._kill())
                    raise
                if not line:
                    code = await self._reap()
                    self.restarts += 1
                    raise WorkerCrashed(f"the analysis worker exited (exit code {code})")
                try:
                    message = protocol.decode(line)
                except ValueError:
                    continue
                if message.get("id") != ident:
                    continue  # an answer to a request whose caller gave up
                self.answered += 1
                if message.get("ending"):  # it ends after this answer: start afresh next
                    await self._reap()
                if message.get("ok"):
                    return message.get("result")
                raise WorkerRequestFailed(str(message.get("error") or "unknown worker error"))

    async def _reap(self) -> int | None:
        process, self._process = self._process, None
        if process is None:
            return None
        try:
            return await asyncio.wait_for(process.wait(), 5)
        except TimeoutError:
            await _kill_tree(process)
            return await process.wait()

    async def _kill(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        await _kill_tree(process)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(process.wait(), 5)
        self._log(f"analysis worker {self.pid or process.pid} stopped")

    async def restart(self) -> None:
        """Stop the worker at once (a request in flight fails as crashed); the next
        request starts a fresh one."""
        await self._kill()
        self.restarts += 1

    async def stop(self) -> None:
        """Stop the worker for good (server shutdown): close stdin, then kill if needed."""
        process, self._process = self._process, None
        if process is None:
            return
        with contextlib.suppress(Exception):
            if process.stdin is not None:
                process.stdin.close()
            await asyncio.wait_for(process.wait(), 2)
        if process.returncode is None:
            await _kill_tree(process)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(process.wait(), 2)


async def _kill_tree(process: asyncio.subprocess.Process) -> None:
    """Kill the keeper, the worker and everything the author's code started (off the
    event loop: the walk reads /proc)."""
    if process.returncode is not None:
        return
    loop = asyncio.get_running_loop()
    with contextlib.suppress(Exception):
        await loop.run_in_executor(None, kill_tree, process.pid)
