"""The protocol tests, re-run on built output: every example and fixture is built, then
driven through its ``scripts/run`` as a subprocess, from an unrelated working directory,
directly and through a symlink, in stateless and session modes, and over MCP.

The scenarios and the in-process reference run come from the protocol tests; only the
way a call is made changes (``tests.protocol.support.run`` is pointed at the built
script), so a built skill must show an agent exactly what the engine produces.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from skillkit_core.testing import mock_model
from tests.build.conftest import agent_env
from tests.protocol import support
from tests.protocol.support import (
    AUTOPILOT,
    DEPLOY_CHECK,
    HANDBOOK,
    HELP_DESK,
    TRIAGE,
    drive_session,
    drive_stateless,
)
from tests.protocol.test_protocol_workflows import (
    SCENARIOS,
    _in_process,
    _normalised,
    _params,
    _without_action_tags,
)


@pytest.fixture
def agent(
    built_skills: dict[str, Path], run_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Route the protocol tests' calls to the built skills: ``via="module"`` runs
    ``<skill>/scripts/run`` by its path, ``via="skillkit"`` a symlink to it elsewhere.
    Every call runs in a working directory far from the skill. Returns that directory."""
    cwd = tmp_path / "agent-project"
    cwd.mkdir()
    links = tmp_path / "links"
    links.mkdir()
    for folder in built_skills.values():
        (links / folder.name).symlink_to(folder / "scripts" / "run")

    def run_built(
        entry: str, *args: str, env: dict[str, str] | None = None, via: str = "module", timeout=60
    ) -> support.Call:
        folder = built_skills[entry]
        program = folder / "scripts" / "run" if via == "module" else links / folder.name
        argv = [str(program), *args]
        done = subprocess.run(
            argv,
            capture_output=True,
            text=True,
            cwd=cwd,
            env=agent_env(run_cache, **(env or {})),
            timeout=timeout,
        )
        return support.Call(argv, done.returncode, done.stdout, done.stderr)

    monkeypatch.setattr(support, "run", run_built)
    return cwd


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_built_skills_show_the_agent_what_the_engine_produces(
    scenario: Any, agent: Path, tmp_path: Path
) -> None:
    stateless_host, file_host, _ = scenario.hosts
    for mode, host, via in (("stateless", stateless_host, "module"), ("file", file_host, "link")):
        work = tmp_path / mode
        params = _params(scenario, work / "data")
        expected = _in_process(scenario, host, _params(scenario, work / "reference"))
        model = mock_model(scenario.answers)
        handshake = {"params": params, "host": host}
        if mode == "stateless":
            results = drive_stateless(
                scenario.entry, model, subskill=scenario.subskill, via=via, **handshake
            )
            results = _without_action_tags(results)
        else:
            results, session = drive_session(
                scenario.entry,
                model,
                work / "sessions",
                subskill=scenario.subskill,
                via=via,
                **handshake,
            )
            assert session.line(1)["host"] == host
        assert _normalised(results, work / "data") == _normalised(expected, work / "reference"), (
            f"built skill, {mode} mode on {host}, differs from the engine"
        )
        assert results[-1]["kind"] == "done"


def test_a_built_plain_skill_reads_its_references_from_anywhere(
    built_skills: dict[str, Path], run_cache: Path, tmp_path: Path
) -> None:
    """The TypeScript SDK's bug 2: after a build, plain skills lost references/."""
    folder = built_skills[AUTOPILOT]
    assert (folder / "references" / "checklist.md").is_file()
    env = agent_env(run_cache)
    for program in (
        [str(folder / "scripts" / "run")],
        # Without the wrapper too: the bundle finds its folder by itself.
        [sys.executable, "-I", "-S", str(folder / "bin" / "autopilot.pyz")],
    ):
        review = _autopilot_review_prompt(program, tmp_path, env)
        assert "the changelog mentions it" in review, program


def _autopilot_review_prompt(program: list[str], cwd: Path, env: dict[str, str]) -> str:
    params = json.dumps({"log": str(cwd / "autopilot.log")})

    def call(*args: str) -> dict[str, Any]:
        done = subprocess.run([*program, *args], capture_output=True, text=True, cwd=cwd, env=env)
        assert done.returncode == 0, done.stdout + done.stderr
        return json.loads(done.stdout)

    first = call("start", "--params", params)
    assert first["step"] == "ask"
    history = json.dumps(support.history_entries(first))
    answer = json.dumps({"part": "tests", "again": False})
    review = call(
        "advance", "--step", "ask", "--output", answer, "--history", history, "--params", params
    )
    assert review["step"] == "review"
    return review["prompt"]


def test_composite_topics_and_reference_skills_over_the_command_line(agent: Path) -> None:
    topics = support.run(TRIAGE, "topics")
    assert topics.code == 0 and "policy: Release policy" in topics.stdout
    policy = support.run(TRIAGE, "topic", "policy", via="link")
    assert policy.stdout.strip() == "Patches ship on Tuesdays. Hotfixes need two reviewers."
    style = support.run(HANDBOOK, "topic", "style")
    assert style.code == 0 and "active voice" in style.stdout
    missing = support.run(HANDBOOK, "topic", "nope")
    assert missing.code == 1 and json.loads(missing.stdout)["kind"] == "error"


def test_an_auth_topic_route_finishes_with_the_reference_file(agent: Path) -> None:
    results = drive_stateless(HELP_DESK, mock_model({"classify": {"intent": "auth"}}))
    assert results[-1]["finalOutput"]["topic"] == "auth"
    assert "Bearer" in results[-1]["finalOutput"]["content"]


@asynccontextmanager
async def _mcp(program: Path, cwd: Path, env: dict[str, str]) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(
        command=str(program), args=["mcp", "--host", "claude-code"], cwd=str(cwd), env=env
    )
    with (cwd / "mcp-stderr.txt").open("w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session


def _text(result: Any) -> Any:
    assert not result.is_error, result.content[0].text
    return json.loads(result.content[0].text)


async def test_the_built_mcp_server_runs_a_whole_workflow(
    built_skills: dict[str, Path], run_cache: Path, tmp_path: Path
) -> None:
    link = tmp_path / "deploy-check-run"
    link.symlink_to(built_skills[DEPLOY_CHECK] / "scripts" / "run")
    async with _mcp(link, tmp_path, agent_env(run_cache)) as session:
        tools = [tool.name for tool in (await session.list_tools()).tools]
        assert tools == ["start", "advance"]
        first = _text(await session.call_tool("start", {}))
        assert first["step"] == "choose" and "AskUserQuestion" in first["preamble"]
        answers = [
            ("choose", {"target": "staging"}),
            ("verify", {"blockers": [], "safe": True}),
            ("deploy", {"url": "https://staging.example.com"}),
        ]
        result = first
        for step, output in answers:
            arguments = {"session": first["session"], "step": step, "output": output}
            result = _text(await session.call_tool("advance", arguments))
        assert result["status"] == "done"
        assert result["finalOutput"] == {"url": "https://staging.example.com"}


async def test_the_built_reference_skill_serves_topics_over_mcp(
    built_skills: dict[str, Path], run_cache: Path, tmp_path: Path
) -> None:
    program = built_skills[HANDBOOK] / "scripts" / "run"
    async with _mcp(program, tmp_path, agent_env(run_cache)) as session:
        tools = sorted(tool.name for tool in (await session.list_tools()).tools)
        assert tools == ["topic", "topics"]
        result = await session.call_tool("topic", {"name": "style"})
        assert "active voice" in result.content[0].text


async def test_the_built_mcp_server_serves_its_own_folder_through_the_skills_extension(
    built_skills: dict[str, Path], run_cache: Path, tmp_path: Path
) -> None:
    """A host that speaks SEP-2640 loads the built skill without a shell: SKILL.md and
    references/ are listed with digests and read back; scripts/ and bin/ (the launcher and
    the bundle) are not served."""
    from mcp.shared.exceptions import MCPError

    from skillkit_core.runtime.verify import _call, check_session

    folder = built_skills[AUTOPILOT]
    async with _mcp(folder / "scripts" / "run", tmp_path, agent_env(run_cache)) as session:
        # Declared in the initialize answer, as SEP-2640 says (the SDK alone leaves it out).
        extensions = session.initialize_result.capabilities.extensions
        assert extensions == {"io.modelcontextprotocol/skills": {"directoryRead": True}}
        # It answers resources/read, so it declares resources (base protocol, Resources).
        assert session.initialize_result.capabilities.resources is not None
        listing = await session.list_resources()
        assert [str(r.uri) for r in listing.resources] == ["skill://autopilot/SKILL.md"]
        (check,) = await check_session(session)
        assert check.uri == "skill://autopilot/SKILL.md" and check.verified, check.problems
        assert not check.lint_errors, check.lint_errors
        entry = (await _call(session, "skills/get", uri="skill://autopilot/SKILL.md"))["skill"]
        listed = {resource["uri"] for resource in entry["resources"]}
        on_disk = {
            f"skill://autopilot/{path.relative_to(folder).as_posix()}"
            for path in folder.rglob("*")
            if path.is_file() and path.relative_to(folder).parts[0] not in ("scripts", "bin")
        }
        assert listed == on_disk and "skill://autopilot/SKILL.md" in listed
        with pytest.raises(MCPError, match="'scripts' of skill 'autopilot' is not served"):
            await session.read_resource("skill://autopilot/scripts/run")
        # A miss names what the folder holds, without the program it does not serve.
        with pytest.raises(MCPError, match=r"the skill folder has: [^)]*\)") as missing:
            await session.read_resource("skill://autopilot/nope.md")
        held = missing.value.error.message.split("has: ")[1]
        assert "SKILL.md" in held and "scripts" not in held and "bin" not in held
        assert [tool.name for tool in (await session.list_tools()).tools] == ["start", "advance"]
