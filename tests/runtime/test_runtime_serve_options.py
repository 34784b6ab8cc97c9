"""``skillkit serve`` options, start-up errors, and per-connection session state."""

from __future__ import annotations

import subprocess
from pathlib import Path

import anyio
import pytest

from skillkit_core.runtime.config import RuntimeConfig
from skillkit_core.runtime.mcp_server import build_server, initialization_options
from skillkit_core.runtime.prompt import render_available_skills
from skillkit_core.runtime.registry import discover_skills
from tests.runtime.support import McpConnection, SkillTree, serve_command


async def test_no_location_depth_and_budget_shape_the_instructions(
    skill_tree: SkillTree, tmp_path: Path
) -> None:
    toolbox = discover_skills([skill_tree.library]).get("toolbox")
    room_for_toolbox = len(render_available_skills([toolbox], include_location=False).xml)
    argv = serve_command(
        str(skill_tree.library),
        str(skill_tree.root("single")),
        "--no-location",
        "--depth",
        "2",
        "--budget",
        str(room_for_toolbox),
    )
    connection = await McpConnection(argv, tmp_path / "stderr.txt").start()
    try:
        instructions = connection.init.instructions
        assert "<location>" not in instructions
        assert "<name>toolbox</name>" in instructions
        assert "<name>summarize</name>" not in instructions  # depth 3 below the root
        assert "<name>single</name>" not in instructions  # cut by the budget
        # A skill cut from the list can still be loaded by name.
        result = await connection.ok("skills_load", {"names": ["single"]})
        assert result.structured_content["active_skills"][0]["name"] == "single"
    finally:
        await connection.stop()
    assert "left out 1 skill(s): single" in connection.stderr()


def test_serve_refuses_a_missing_root_without_a_traceback(tmp_path: Path) -> None:
    missing = tmp_path / "missing"
    done = subprocess.run(
        serve_command(str(missing)),
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert done.stderr.strip() == f"error[registry]: skill root {missing} does not exist"


@pytest.mark.parametrize(
    "option", [["--max-active", "0"], ["--script-timeout", "0"], ["--max-output", "0"]]
)
def test_serve_refuses_limits_out_of_range(skill_tree: SkillTree, option: list[str]) -> None:
    done = subprocess.run(
        serve_command(str(skill_tree.library), *option),
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert option[0] in done.stderr


async def test_each_connection_has_its_own_session(skill_tree: SkillTree) -> None:
    """Two clients of one server object: loading in one leaves the other untouched."""
    from mcp import ClientSession
    from mcp.shared.memory import create_client_server_memory_streams

    config = RuntimeConfig(roots=(skill_tree.library, skill_tree.root("single")))
    server = build_server(config, discover_skills(config.roots))

    async def active_after(session: ClientSession) -> list[str]:
        result = await session.call_tool("skills_unload", {"names": []})
        return [entry["name"] for entry in result.structured_content["active_skills"]]

    async with (
        anyio.create_task_group() as group,
        create_client_server_memory_streams() as (client_a, server_a),
        create_client_server_memory_streams() as (client_b, server_b),
    ):
        for streams in (server_a, server_b):
            group.start_soon(server.run, *streams, initialization_options(server))
        async with ClientSession(*client_a) as first, ClientSession(*client_b) as second:
            for session in (first, second):
                await session.initialize()
            await first.call_tool("skills_load", {"names": ["toolbox"]})
            await second.call_tool("skills_load", {"names": ["single"]})
            assert await active_after(first) == ["toolbox"]
            assert await active_after(second) == ["single"]
            read = await second.call_tool("skills_read", {"path": "references/guide.md"})
            assert read.is_error  # toolbox is not loaded in this connection
        group.cancel_scope.cancel()


async def test_limit_options_reach_the_scripts_and_cap_concurrent_runs(
    skill_tree: SkillTree, tmp_path: Path
) -> None:
    argv = serve_command(
        str(skill_tree.library),
        *("--script-timeout", "3", "--script-cpu", "1", "--script-memory", "256"),
        *("--script-processes", "8", "--max-concurrent-scripts", "1"),
    )
    connection = await McpConnection(argv, tmp_path / "stderr.txt").start()
    try:
        tools = {tool.name: tool for tool in (await connection.session.list_tools()).tools}
        description = tools["skills_run_script"].description
        assert "1 s of CPU time per process, 256 MiB of memory per process, 8 processes" in (
            description
        )
        assert "at most 1 run at once" in description
        await connection.ok("skills_load", {"names": ["toolbox"]})
        burn = await connection.ok("skills_run_script", {"path": "scripts/burn.py"})
        assert "CPU time limit of 1 s" in burn.structured_content["stderr"]
        hog = await connection.ok("skills_run_script", {"path": "scripts/hog.py", "args": ["512"]})
        assert "MemoryError" in hog.structured_content["stderr"]
        # One script at a time: a second call while the first runs is refused, not queued.
        pid_file = tmp_path / "child.pid"
        async with anyio.create_task_group() as group:
            first = {"path": "scripts/sleepy.sh", "args": [str(pid_file)]}
            group.start_soon(connection.ok, "skills_run_script", first)
            with anyio.fail_after(10):
                while not pid_file.exists():
                    await anyio.sleep(0.05)
            message = await connection.refused(
                "skills_run_script", {"path": "scripts/hello.py"}, "too_many_runs"
            )
        assert "1 script(s) of this session are already running" in message
        after = await connection.ok("skills_run_script", {"path": "scripts/hello.py"})
        assert after.structured_content["exit_code"] == 0
    finally:
        await connection.stop()
