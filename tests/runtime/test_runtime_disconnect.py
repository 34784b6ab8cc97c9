"""``skillkit serve`` when the client misbehaves on the wire: lines that are not JSON-RPC
messages get an error, and a client that goes away in the middle of a script run ends the
server quietly, with the script's processes gone."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest

from skillkit_core.runtime.mcp_server import _to_the_end
from tests.protocol.raw_jsonrpc import RawServer, nested_request
from tests.runtime.support import McpConnection, SkillTree, process_gone, serve_command

PARSE_ERROR = -32700
INVALID_REQUEST = -32600


def raw_serve(tree: SkillTree, tmp_path: Path) -> RawServer:
    env = {k: v for k, v in os.environ.items() if k != "SKILLKIT_DEBUG"}
    argv = serve_command(str(tree.library))
    return RawServer(argv, cwd=tmp_path, stderr=tmp_path / "stderr.txt", env=env)


def start_sleepy_run(server: RawServer, pid_file: Path) -> None:
    """Load the toolbox and start ``sleepy.sh`` (a child that sleeps, a script that waits
    for it); return once the script is running."""
    server.initialize()
    loaded = server.request(
        1, "tools/call", {"name": "skills_load", "arguments": {"names": ["toolbox"]}}
    )
    assert not loaded["result"].get("isError"), loaded
    server.send(
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {
                "name": "skills_run_script",
                "arguments": {"path": "scripts/sleepy.sh", "args": [str(pid_file)]},
            },
        }
    )
    wait_for(pid_file)


def wait_for(pid_file: Path, within: float = 20.0) -> int:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        text = pid_file.read_text() if pid_file.exists() else ""
        if text.strip():
            return int(text)
        time.sleep(0.02)
    raise AssertionError(f"the script did not start within {within} s")


def noise(stderr: str) -> list[str]:
    """Lines on stderr other than the server's own start-up report."""
    return [line for line in stderr.splitlines() if not line.startswith("skillkit serve: ")]


@pytest.mark.parametrize("how", ["hang_up", "close"])
def test_a_client_that_goes_away_mid_run_ends_serve_quietly(
    skill_tree: SkillTree, tmp_path: Path, how: str
) -> None:
    """``hang_up``: the client died (both pipes close); ``close``: it closed stdin."""
    pid_file = tmp_path / "child.pid"
    with raw_serve(skill_tree, tmp_path) as server:
        start_sleepy_run(server, pid_file)
        code = server.hang_up() if how == "hang_up" else server.close()
        stderr = server.stderr_text()
    assert code == 0, stderr
    assert noise(stderr) == [], stderr
    assert process_gone(wait_for(pid_file))


async def test_an_mcp_client_that_leaves_mid_run_leaves_serve_quiet(
    skill_tree: SkillTree, tmp_path: Path
) -> None:
    pid_file = tmp_path / "child.pid"
    connection = McpConnection(serve_command(str(skill_tree.library)), tmp_path / "stderr.txt")
    await connection.start()
    try:
        await connection.ok("skills_load", {"names": ["toolbox"]})
        async with anyio.create_task_group() as group:
            group.start_soon(
                connection.call,
                "skills_run_script",
                {"path": "scripts/sleepy.sh", "args": [str(pid_file)]},
            )
            await anyio.to_thread.run_sync(wait_for, pid_file)
            group.cancel_scope.cancel()
    finally:
        await connection.stop()
    assert noise(connection.stderr()) == [], connection.stderr()
    assert process_gone(wait_for(pid_file))


def test_serve_answers_lines_that_are_not_jsonrpc_messages(
    skill_tree: SkillTree, tmp_path: Path
) -> None:
    with raw_serve(skill_tree, tmp_path) as server:
        server.initialize()
        server.send_line("not json at all")
        assert server.receive()["error"]["code"] == PARSE_ERROR
        server.send_line(nested_request(11, 100_000))
        answer = server.answer_to(11)
        assert answer["error"]["code"] == PARSE_ERROR, answer
        server.send_line('{"jsonrpc":"2.0","id":true,"method":"skills/list"}')
        assert server.receive()["error"]["code"] == INVALID_REQUEST
        listed = server.request(12, "tools/list")
        assert "skills_run_script" in {tool["name"] for tool in listed["result"]["tools"]}
        assert server.close() == 0


# --- the two guarantees behind a quiet end, in process -------------------------------


async def test_a_cancelled_call_finishes_its_cleanup_before_the_cancellation_goes_on() -> None:
    """The SDK cancels a handler through an anyio cancel scope, which cancels every await
    in the call's own cleanup too; under ``_to_the_end`` the cleanup runs to its end."""
    cleaned: list[str] = []

    async def run_with_cleanup() -> None:
        try:
            await asyncio.sleep(30)
        finally:
            await asyncio.sleep(0.05)  # killing the process tree, removing the cgroup
            cleaned.append("done")

    for wrapped in (False, True):
        cleaned.clear()
        with anyio.CancelScope() as scope:
            scope.deadline = anyio.current_time() + 0.05
            if wrapped:
                await _to_the_end(run_with_cleanup())
            else:
                await run_with_cleanup()
        assert cleaned == (["done"] if wrapped else []), f"wrapped={wrapped}"


LEFTOVER = """
import asyncio, os, signal, sys
from skillkit_core.runtime.mcp_server import ScriptTransports

async def main():
    transports = ScriptTransports(asyncio.get_running_loop())
    process = await asyncio.create_subprocess_exec(
        "sh", "-c", "sleep 30 & echo $!", stdout=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    await process.stdout.readline()  # the leftover holds the pipe from here on
    while process.returncode is None:
        await asyncio.sleep(0.01)
    if sys.argv[1] == "finish":
        await transports.finish()
    return process.pid

group = asyncio.run(main())
os.killpg(group, signal.SIGKILL)  # the leftover, once the loop is closed
"""


@pytest.mark.parametrize("finish", [True, False])
def test_a_pipe_held_by_a_leftover_is_closed_before_the_loop_ends(finish: bool) -> None:
    """A script that exits leaving a process that holds its stdout: its transport stays
    open, and one still open when the loop closes prints "Event loop is closed" (the
    unfinished case shows the failure ``ScriptTransports.finish`` prevents). In a fresh
    interpreter: the test process has children and loops of its own."""
    argv = [sys.executable, "-c", LEFTOVER, "finish" if finish else "leave"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    if finish:
        assert done.stderr == ""
    else:
        assert "Event loop is closed" in done.stderr


def test_a_cancelled_member_of_a_batch_lets_the_batch_go_out(
    skill_tree: SkillTree, tmp_path: Path
) -> None:
    """A cancelled request gets no answer, so a 2025-03-26 batch holding one is written
    with the answers of the others once the rest are in (it used to wait for it)."""
    pid_file = tmp_path / "child.pid"
    with raw_serve(skill_tree, tmp_path) as server:
        answer = server.request(
            0,
            "initialize",
            {
                "protocolVersion": "2025-03-26",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "1"},
            },
        )
        assert answer["result"]["protocolVersion"] == "2025-03-26"
        server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        loaded = server.request(
            1, "tools/call", {"name": "skills_load", "arguments": {"names": ["toolbox"]}}
        )
        assert not loaded["result"].get("isError"), loaded
        run = {"name": "skills_run_script", "arguments": {"path": "scripts/sleepy.sh"}}
        run["arguments"]["args"] = [str(pid_file)]
        server.send_line(
            json.dumps(
                [
                    {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": run},
                    {"jsonrpc": "2.0", "id": 3, "method": "ping"},
                ]
            )
        )
        wait_for(pid_file)
        server.send(
            {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}}
        )
        answers = server.receive()
        assert answers == [{"jsonrpc": "2.0", "id": 3, "result": {}}], answers
        assert server.request(4, "ping")["result"] == {}
    assert process_gone(wait_for(pid_file))
