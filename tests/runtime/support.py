"""Helpers for the runtime tests: a skill tree with symlinks, and a live MCP connection.

The static fixture skills live in ``skills/`` beside this file. Tests that need symlinks,
exact file modes or edits work on a copy where the symlinks are created, since a checkout
cannot be trusted to keep either.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SKILLS = Path(__file__).parent / "skills"
EXECUTABLES = ("library/toolbox/scripts/shebang-tool", "workflows/deploy-flow/scripts/run")


@dataclass(frozen=True)
class SkillTree:
    """A writable copy of ``skills/`` plus an ``outside/`` folder the symlinks point at."""

    base: Path

    @property
    def library(self) -> Path:
        return self.base / "library"

    @property
    def toolbox(self) -> Path:
        return self.base / "library" / "toolbox"

    @property
    def outside(self) -> Path:
        return self.base / "outside"

    def root(self, name: str) -> Path:
        return self.base / name


def make_skill_tree(base: Path) -> SkillTree:
    """Copy the fixture skills to ``base`` and add the symlinks the safety tests use."""
    shutil.copytree(SKILLS, base, symlinks=True)
    for relative in EXECUTABLES:
        (base / relative).chmod(0o755)
    (base / "library/toolbox/scripts/not-executable").chmod(0o644)
    outside = base / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("TOP-SECRET outside the skill\n")
    (outside / "evil.sh").write_text("echo escaped\n")
    toolbox = base / "library" / "toolbox"
    # Escapes: an absolute link to a file outside, a relative link climbing out to a sibling
    # skill, a linked folder outside, and a script linked from outside.
    (toolbox / "references/secret-link.md").symlink_to(outside / "secret.txt")
    (toolbox / "references/sibling-link.md").symlink_to(
        Path("../../team/writing/summarize/SKILL.md")
    )
    (toolbox / "linked-outside").symlink_to(outside, target_is_directory=True)
    (toolbox / "scripts/escape.sh").symlink_to(outside / "evil.sh")
    # Allowed: a link that stays inside the skill.
    (toolbox / "references/inner-link.md").symlink_to(Path("guide.md"))
    # Discovery: a symlinked skill folder and a cycle back to the root.
    (base / "linked-root").mkdir()
    (base / "linked-root/single-link").symlink_to(base / "single", target_is_directory=True)
    (base / "library/team/loop").symlink_to(base / "library", target_is_directory=True)
    return SkillTree(base)


def serve_command(*args: str) -> list[str]:
    """argv of the real ``skillkit serve`` in this virtualenv."""
    return [sys.executable, "-m", "skillkit_core.cli", "serve", *args]


@dataclass
class McpConnection:
    """A ``skillkit serve`` process and an initialized ``ClientSession``.

    The stdio client and the session are anyio context managers that must be entered and
    left in one task, so a background task owns them; tests call ``session`` from their own
    tasks on the same loop. ``notifications`` collects the methods of server notifications.
    ``modern`` connects the 2026-07-28 way (``server/discover``, where ``init`` is the
    discover result) instead of with the ``initialize`` handshake.
    """

    argv: list[str]
    stderr_path: Path
    env: dict[str, str] = field(default_factory=dict)
    session: Any = None
    init: Any = None
    notifications: list[str] = field(default_factory=list)
    modern: bool = False
    _stop: asyncio.Event = field(default_factory=asyncio.Event)
    _task: asyncio.Task[None] | None = None

    async def start(self) -> McpConnection:
        ready = asyncio.Event()
        self._task = asyncio.create_task(self._run(ready))
        waiter = asyncio.create_task(ready.wait())
        await asyncio.wait({waiter, self._task}, return_when=asyncio.FIRST_COMPLETED)
        if not ready.is_set():
            waiter.cancel()
            await self._task  # re-raises why the server did not come up
            raise RuntimeError(f"server exited early; stderr:\n{self.stderr()}")
        return self

    async def _run(self, ready: asyncio.Event) -> None:
        from mcp import ClientSession
        from mcp.client.stdio import StdioServerParameters, stdio_client

        params = StdioServerParameters(command=self.argv[0], args=self.argv[1:], env=self.env)
        with self.stderr_path.open("w") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write, message_handler=self._on_message) as session,
            ):
                self.init = await (session.discover() if self.modern else session.initialize())
                self.session = session
                ready.set()
                await self._stop.wait()

    async def _on_message(self, message: Any) -> None:
        method = getattr(message, "method", None)
        if method:
            self.notifications.append(method)

    async def stop(self) -> None:
        self._stop.set()
        if self._task is not None:
            await self._task

    def stderr(self) -> str:
        return self.stderr_path.read_text()

    async def call(self, tool: str, arguments: dict[str, Any] | None = None) -> Any:
        """Call ``tool``; the raw ``CallToolResult``."""
        return await self.session.call_tool(tool, arguments or {})

    async def ok(self, tool: str, arguments: dict[str, Any] | None = None) -> Any:
        """Call ``tool`` and insist it succeeded."""
        result = await self.call(tool, arguments)
        assert not result.is_error, result.content[0].text
        return result

    async def refused(self, tool: str, arguments: dict[str, Any], code: str) -> str:
        """Call ``tool``, insist it was refused with ``code``, return the message."""
        result = await self.call(tool, arguments)
        assert result.is_error, f"expected {code}, got success: {result}"
        text = result.content[0].text
        assert text.startswith(f"{code}: "), text
        # No structured content: it would not fit the tool's output schema.
        assert result.structured_content is None
        return text


def process_gone(pid: int, within: float = 3.0) -> bool:
    """Dead or a zombie (a container's init may not reap orphans at once) within ``within``
    seconds: SIGKILL is delivered asynchronously."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        status = Path(f"/proc/{pid}/status")
        if status.exists() and "State:\tZ" in status.read_text():
            return True
        time.sleep(0.02)
    return False


async def written_pid(pid_file: Path, within: float = 10.0) -> int:
    """The pid a fixture script writes to ``pid_file``, once it is there in full: the shell
    creates the file a moment before it writes the number."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        text = pid_file.read_text() if pid_file.exists() else ""
        if text.endswith("\n"):
            return int(text)
        await asyncio.sleep(0.02)
    raise AssertionError(f"no pid was written to {pid_file} within {within} s")
