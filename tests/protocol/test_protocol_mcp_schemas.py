"""The MCP ``advance`` tool declares what the step schemas accept.

It used to declare ``"output": {"type": "object"}`` whatever the steps took, so a client
that validates arguments refused to send a list, a boolean or a string answer.
"""

from __future__ import annotations

from pathlib import Path

from skillkit_core import skill, terminal
from skillkit_core.loader import load_entry
from skillkit_core.protocol.mcp_tools import _output_types
from tests.protocol.support import DEPLOY_CHECK, FIXTURES
from tests.protocol.test_protocol_mcp import serve

SHAPES = str(FIXTURES / "shapes.py")


async def test_advance_declares_every_type_the_steps_accept_and_takes_them(
    tmp_path: Path,
) -> None:
    async with serve(SHAPES, errlog=tmp_path / "err") as client:
        tools = {tool.name: tool for tool in (await client.session.list_tools()).tools}
        output = tools["advance"].input_schema["properties"]["output"]
        assert output["type"] == ["object", "array", "string", "boolean"]
        session = (await client.ok("start", {}))["session"]
        for step, answer in (
            ("names", ["Ada", "Grace"]),
            ("sure", True),
            ("label", "team"),
            ("summary", {"text": "done"}),
        ):
            result = await client.ok(
                "advance", {"session": session, "step": step, "output": answer}
            )
        assert result == {"session": session, "status": "done", "finalOutput": {"text": "done"}}


def test_a_step_that_takes_any_output_leaves_the_type_open() -> None:
    free = (
        skill(name="free", entry="ask", description="d")
        .step("ask", prompt="Say anything.", next=terminal)
        .build()
    )
    assert _output_types(free) == {}
    assert _output_types(load_entry(DEPLOY_CHECK)) == {"type": "object"}
