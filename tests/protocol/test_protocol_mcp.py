"""``scripts/run mcp``: the real server process, driven with the ``mcp`` client library."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

from skillkit_core.loader import load_entry
from skillkit_core.testing import handshake_of, mock_model, run_composite_async
from tests.protocol.support import (
    AUTOPILOT,
    DEPLOY_CHECK,
    HANDBOOK,
    HELP_DESK,
    ROOT,
    TRIAGE,
)


class Client:
    """An initialized client session plus helpers that decode the JSON text results."""

    def __init__(self, session: ClientSession, init: Any) -> None:
        self.session = session
        self.init = init

    async def call(self, tool: str, arguments: dict[str, Any] | None = None) -> Any:
        result = await self.session.call_tool(tool, arguments or {})
        assert len(result.content) == 1 and result.content[0].type == "text"
        return result

    async def ok(self, tool: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        result = await self.call(tool, arguments)
        assert not result.is_error, result.content[0].text
        return json.loads(result.content[0].text)

    async def refused(self, tool: str, arguments: dict[str, Any]) -> str:
        result = await self.call(tool, arguments)
        assert result.is_error, result
        return result.content[0].text


@asynccontextmanager
async def serve(
    entry: str, *flags: str, errlog: Path, env: dict[str, str] | None = None
) -> AsyncIterator[Client]:
    """The MCP server of ``entry``, with ``env`` added to the SDK's default environment."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "skillkit_core.protocol", entry, "mcp", *flags],
        cwd=str(ROOT),
        env=env,
    )
    with errlog.open("w") as err:
        async with (
            stdio_client(params, errlog=err) as (read, write),
            ClientSession(read, write) as session,
        ):
            init = await session.initialize()
            yield Client(session, init)


async def test_a_whole_run_one_call_per_step(tmp_path: Path) -> None:
    async with serve(DEPLOY_CHECK, "--host", "claude-code", errlog=tmp_path / "err") as client:
        assert client.init.server_info.name == "deploy-check"
        instructions = client.init.instructions
        assert "Steps: choose, verify, deploy, abort" in instructions
        assert "advance" in instructions and "retry" in instructions
        tools = await client.session.list_tools()
        assert [t.name for t in tools.tools] == ["start", "advance"]
        advance = next(t for t in tools.tools if t.name == "advance")
        assert advance.input_schema["required"] == ["session", "step", "output"]

        first = await client.ok("start", {})
        assert list(first) == ["session", "status", "step", "prompt", "schema", "preamble"]
        assert len(first["session"]) == 8 and first["status"] == "prompt"
        assert "AskUserQuestion" in first["preamble"]
        session = first["session"]
        second = await client.ok(
            "advance", {"session": session, "step": "choose", "output": {"target": "staging"}}
        )
        assert list(second) == ["session", "status", "step", "prompt", "schema"]
        assert second["step"] == "verify"

        refused = await client.call(
            "advance", {"session": session, "step": "verify", "output": {"safe": "maybe"}}
        )
        assert not refused.is_error  # a validation error is a normal, retryable answer
        error = json.loads(refused.content[0].text)
        assert list(error) == ["session", "status", "step", "message", "retry"]
        assert error["status"] == "error" and error["retry"] is True

        await client.ok(
            "advance",
            {"session": session, "step": "verify", "output": {"blockers": [], "safe": True}},
        )
        done = await client.ok(
            "advance", {"session": session, "step": "deploy", "output": {"url": "u"}}
        )
        assert done == {"session": session, "status": "done", "finalOutput": {"url": "u"}}
        gone = await client.refused(
            "advance", {"session": session, "step": "deploy", "output": {"url": "u"}}
        )
        assert session in gone


async def test_out_of_turn_steps_are_refused_and_the_run_continues(tmp_path: Path) -> None:
    async with serve(DEPLOY_CHECK, errlog=tmp_path / "err") as client:
        session = (await client.ok("start"))["session"]
        text = await client.refused(
            "advance", {"session": session, "step": "deploy", "output": {"url": "u"}}
        )
        assert json.loads(text)["status"] == "error" and "waiting for 'choose'" in text
        await client.ok(
            "advance", {"session": session, "step": "choose", "output": {"target": "staging"}}
        )


@pytest.mark.parametrize(
    ("tool", "arguments", "message"),
    [
        ("advance", {"session": "nothexid", "step": "a", "output": {}}, "malformed session id"),
        ("advance", {"session": "0123abcd", "step": "a", "output": {}}, "no active session"),
        ("advance", {"session": "0123abcd"}, "advance needs step, output"),
        ("start", {"params": {}, "extra": 1}, "does not take extra"),
        ("start", {"params": {"env": "prod"}}, "params"),
        ("start", {"params": [1]}, "params must be an object"),
    ],
)
async def test_bad_calls_are_error_results(
    tmp_path: Path, tool: str, arguments: dict[str, Any], message: str
) -> None:
    async with serve(DEPLOY_CHECK, errlog=tmp_path / "err") as client:
        assert message in await client.refused(tool, arguments)


async def test_prompt_less_steps_auto_advance_and_actions_run_once(tmp_path: Path) -> None:
    log = tmp_path / "actions.log"
    async with serve(AUTOPILOT, errlog=tmp_path / "err") as client:
        tools = {t.name: t for t in (await client.session.list_tools()).tools}
        params_schema = tools["start"].input_schema["properties"]["params"]
        assert params_schema["required"] == ["log"]
        first = await client.ok("start", {"params": {"log": str(log)}})
        assert first["step"] == "ask" and "preamble" in first
        s = first["session"]
        nxt = await client.ok(
            "advance", {"session": s, "step": "ask", "output": {"part": "a", "again": True}}
        )
        assert nxt["step"] == "ask" and "preamble" not in nxt
        await client.ok(
            "advance", {"session": s, "step": "ask", "output": {"part": "b", "again": False}}
        )
    assert log.read_text().splitlines() == ["prepare", "gate", "gate"]


async def test_subagent_handshake_is_honoured(tmp_path: Path) -> None:
    flags = ("--host", "claude-code", "--tools", "Read", "--subagent")
    async with serve(AUTOPILOT, *flags, errlog=tmp_path / "err") as client:
        first = await client.ok("start", {"params": {"log": str(tmp_path / "log")}})
        row = next(r for r in first["preamble"].splitlines() if r.startswith("| `<ask-user>`"))
        assert row.split("|")[2].strip() == "—"
        nxt = await client.ok(
            "advance",
            {"session": first["session"], "step": "ask", "output": {"part": "a", "again": False}},
        )
        assert "You are a subagent" in nxt["prompt"]


async def test_composite_routes_and_topics(tmp_path: Path) -> None:
    async with serve(TRIAGE, "--host", "codex", errlog=tmp_path / "err") as client:
        tools = {t.name: t for t in (await client.session.list_tools()).tools}
        assert list(tools) == ["start", "advance", "topics", "topic"]
        assert tools["topic"].input_schema["properties"]["name"]["enum"] == ["faq", "policy"]
        assert "Sub-skill fix (steps named fix/STEP)" in client.init.instructions

        first = await client.ok("start")
        routed = await client.ok(
            "advance",
            {
                "session": first["session"],
                "step": "intake",
                "output": {"route": "fix", "ticket": "T-5"},
            },
        )
        assert routed["step"] == "fix/investigate" and "T-5" in routed["prompt"]
        assert "preamble" in routed  # the sub-skill's first prompt brings its preamble

        second = await client.ok("start")
        topic_done = await client.ok(
            "advance",
            {"session": second["session"], "step": "intake", "output": {"route": "policy"}},
        )
        assert topic_done["status"] == "done"
        assert topic_done["finalOutput"]["topic"] == "policy"

        topic = await client.ok("topic", {"name": "faq"})
        assert topic == {"name": "faq", "content": 'Q: "Is it down?" A: check status.'}
        assert "unknown_topic" in await client.refused("topic", {"name": "nope"})


async def test_reference_skill_serves_topics_as_text(tmp_path: Path) -> None:
    async with serve(HANDBOOK, errlog=tmp_path / "err") as client:
        assert client.init.server_info.name == "handbook"
        tools = [t.name for t in (await client.session.list_tools()).tools]
        assert tools == ["topics", "topic"]
        listing = await client.call("topics")
        assert listing.content[0].text == "style: Writing style\nglossary: Terms we use\n"
        style = await client.call("topic", {"name": "style"})
        assert style.content[0].text == "Write short sentences. Prefer the active voice.\n"
        with pytest.raises(MCPError) as caught:  # a protocol error (MCP tools, Error Handling)
            await client.call("start", {})
        assert caught.value.error.code == -32602
        assert caught.value.error.message == "Unknown tool: start (this server has topics, topic)"


async def test_mcp_prompts_match_the_engine(tmp_path: Path) -> None:
    answers = {
        "classify": {"intent": "setup", "project": "web"},
        "setup/configure": [
            {"key": "port", "value": "1", "more": True},
            {"key": "tls", "value": "on", "more": False},
        ],
        "setup/summary": {"summary": "done"},
    }
    reference = await run_composite_async(
        load_entry(HELP_DESK), model=mock_model(answers), host=handshake_of("gemini-cli")
    )
    expected = reference.results
    model = mock_model(answers)
    seen = []
    async with serve(HELP_DESK, "--host", "gemini-cli", errlog=tmp_path / "err") as client:
        result = await client.ok("start")
        while result["status"] == "prompt":
            seen.append(result)
            output = model.respond(result["step"], result["prompt"], result["schema"])
            result = await client.ok(
                "advance", {"session": result["session"], "step": result["step"], "output": output}
            )
    prompts = [r for r in expected if r["kind"] == "prompt"]
    assert [(r["step"], r["prompt"], r.get("preamble")) for r in seen] == [
        (r["step"], r["prompt"], r.get("preamble")) for r in prompts
    ]
    assert result["finalOutput"] == expected[-1]["finalOutput"]


async def test_sessions_are_independent(tmp_path: Path) -> None:
    async with serve(DEPLOY_CHECK, errlog=tmp_path / "err") as client:
        a = (await client.ok("start"))["session"]
        b = (await client.ok("start"))["session"]
        assert a != b
        await client.ok(
            "advance", {"session": a, "step": "choose", "output": {"target": "staging"}}
        )
        still = await client.ok(
            "advance", {"session": b, "step": "choose", "output": {"target": "production"}}
        )
        assert "production" in still["prompt"]
