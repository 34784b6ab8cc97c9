"""Author code never writes to the protocol's stdout.

A module that prints at import, a prompt function, an action and ``save`` that call
``print()``, and a child process they start all used to add lines before the JSON result
(the agent parses stdout as one JSON line per call). Their output now goes to stderr.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.build.conftest import agent_env, build
from tests.protocol.support import FIXTURES, run
from tests.protocol.test_protocol_mcp import serve as serve_mcp

CHATTY = str(FIXTURES / "chatty.py")
EVERY_PRINT = (
    "chatty: imported",
    "chatty: rendering the prompt",
    "chatty: a child process",
    "chatty: in the action",
    "chatty: in save",
)


def _check(call) -> None:
    """Drive the whole run with ``call(*args) -> (code, stdout, stderr)``."""
    outputs, stderr = [], ""
    for args in (
        ("start",),
        ("advance", "--step", "ask", "--output", '{"text": "hi"}'),
        ("advance", "--step", "end", "--output", "{}", "--history", "{history}"),
    ):
        if outputs:  # stateless: the history is the completed entries so far
            completed = [json.loads(outputs[-1])["completed"]]
            args = tuple(a.replace("{history}", json.dumps(completed)) for a in args)
        code, stdout, err = call(*args)
        assert code == 0, err
        (line,) = stdout.splitlines()  # nothing but the result on stdout
        assert json.loads(line)["kind"] in ("prompt", "done")
        if args[0] == "advance":
            outputs.append(line)
        stderr += err
    assert json.loads(outputs[-1])["kind"] == "done"
    for printed in EVERY_PRINT:
        assert printed in stderr


@pytest.mark.parametrize("via", ["module", "skillkit"])
def test_prints_of_author_code_go_to_stderr(via: str) -> None:
    def call(*args: str) -> tuple[int, str, str]:
        done = run(CHATTY, *args, via=via)
        return done.code, done.stdout, done.stderr

    _check(call)


def test_prints_of_author_code_go_to_stderr_in_a_built_skill(tmp_path: Path) -> None:
    program = build(CHATTY, tmp_path / "built").out_dir / "scripts" / "run"
    env = agent_env(tmp_path / "cache")

    def call(*args: str) -> tuple[int, str, str]:
        done = subprocess.run(
            [str(program), *args], capture_output=True, text=True, env=env, cwd=tmp_path
        )
        return done.returncode, done.stdout, done.stderr

    _check(call)


async def test_prints_of_author_code_do_not_reach_the_mcp_stream(tmp_path: Path) -> None:
    # A line printed at import used to arrive before the server's first JSON-RPC answer.
    errlog = tmp_path / "err"
    async with serve_mcp(CHATTY, errlog=errlog) as client:
        first = await client.ok("start", {})
        assert first["status"] == "prompt" and first["step"] == "ask"
        second = await client.ok(
            "advance", {"session": first["session"], "step": "ask", "output": {"text": "hi"}}
        )
        assert second["step"] == "end"
        done = await client.ok(
            "advance", {"session": first["session"], "step": "end", "output": {}}
        )
        assert done["status"] == "done"
    for printed in EVERY_PRINT:
        assert printed in errlog.read_text()
