"""``scripts/run mcp`` keeps at most ``MAX_RUNS`` open runs: a client that starts runs and
never finishes them grew the server without bound (20,000 abandoned starts took 53 MB);
the run used least recently is dropped, and advancing it says so."""

from __future__ import annotations

import json

import pytest

from skillkit_core.engine import Handshake
from skillkit_core.protocol import mcp_tools
from skillkit_core.protocol.mcp_tools import SkillTools
from tests.core.engine.skills import linear


async def _start(tools: SkillTools) -> str:
    answer = await tools.call("start", {})
    assert not answer.is_error, answer.text
    return json.loads(answer.text)["session"]


async def test_the_least_recently_used_run_is_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mcp_tools, "MAX_RUNS", 3)
    tools = SkillTools(linear(), Handshake(host="generic"))
    first, second, third = [await _start(tools) for _ in range(3)]
    # Using the first makes the second the least recently used.
    used = await tools.call("advance", {"session": first, "step": "a", "output": {"name": "A"}})
    assert json.loads(used.text)["step"] == "b"
    fourth = await _start(tools)
    assert list(tools.runs) == [third, first, fourth]
    dropped = await tools.call("advance", {"session": second, "step": "a", "output": {"name": "B"}})
    assert dropped.is_error and "least recently used of more than 3 open runs" in dropped.text
    kept = await tools.call("advance", {"session": third, "step": "a", "output": {"name": "C"}})
    assert not kept.is_error and json.loads(kept.text)["step"] == "b"
