"""Skill code that ends abruptly still gets one JSON result per call.

A callback (prompt, ``next``, action, validator) that called ``sys.exit`` or raised
``KeyboardInterrupt`` or another ``BaseException`` ended the call with nothing on stdout
(exit 0 for ``sys.exit(0)``), a built skill's import did the same, and over MCP it ended
the whole server; a validator's ``TypeError`` was an internal error, an exception whose
``__str__`` raises was a traceback, and a module that rebinds ``json.dumps`` to indent
made every result span lines. Found by a probe of misbehaving skill code.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.build.conftest import agent_env, build
from tests.protocol.support import FIXTURES, result_of, run, start_session
from tests.protocol.test_protocol_mcp import serve as serve_mcp

ABRUPT = str(FIXTURES / "abrupt.py")
ANSWER = ("--step", "one", "--output", '{"x": 1}', "--history", "[]")


def _env(where: str, how: str) -> dict[str, str]:
    return {"ABRUPT_WHERE": where, "ABRUPT_HOW": how, "SKILLKIT_WARM": "0"}


@pytest.mark.parametrize("how", ["exit", "interrupt", "base", "type"])
@pytest.mark.parametrize(
    ("where", "call", "code"),
    [
        ("prompt", ("start",), "runtime"),
        ("next", ("advance", *ANSWER), "runtime"),
        ("validator", ("advance", *ANSWER), "runtime"),
        ("action", ("advance", *ANSWER), "action"),
        ("import", ("start",), "entry"),
    ],
)
def test_every_way_skill_code_ends_is_one_error_result(
    where: str, call: tuple[str, ...], code: str, how: str
) -> None:
    done = run(ABRUPT, *call, env=_env(where, how))
    assert done.code == 1, done.describe()
    result = done.json
    assert (result["kind"], result["error"]) == ("error", code), done.describe()
    exited = "called exit(0) while being imported" if where == "import" else "sys.exit(0)"
    named = {"exit": exited, "interrupt": "KeyboardInterrupt"}
    assert (
        named.get(how, {"base": "Stop: stopped", "type": "TypeError"}.get(how))
        in (result["message"])
    )
    assert "Traceback" not in done.stderr


def test_an_exception_that_cannot_say_its_message_is_named_by_its_type() -> None:
    for where, call in (("next", ("advance", *ANSWER)), ("import", ("start",))):
        done = run(ABRUPT, *call, env=_env(where, "bad-str"))
        assert done.code == 1 and "Traceback" not in done.stderr, done.describe()
        assert done.json["error"] == ("runtime" if where == "next" else "entry")
        assert (
            "Unprintable (its message cannot be read: its __str__ raised)" in (done.json["message"])
        )


def test_in_session_mode_the_error_is_a_line_of_the_file_and_the_run_goes_on(
    tmp_path: Path,
) -> None:
    env = _env("next", "exit")
    session, first = start_session(ABRUPT, tmp_path, env=env)
    assert first["step"] == "one"
    done = session.advance("--step", "one", "--output", '{"x": 1}')
    assert done.code == 0, done.describe()
    error = result_of(session.line(int(done.stdout)))
    assert error["kind"] == "error" and error["error"] == "runtime"
    assert "SystemExit (sys.exit(0))" in error["message"]


def test_a_module_that_rebinds_json_dumps_does_not_change_a_result() -> None:
    done = run(ABRUPT, "start", env=_env("", "dumps"))
    assert done.code == 0 and done.json["step"] == "one", done.describe()


def test_a_built_skill_answers_an_abrupt_import_and_a_rebound_json_dumps(
    tmp_path: Path,
) -> None:
    program = build(ABRUPT, tmp_path / "built").out_dir / "scripts" / "run"

    def call(where: str, how: str) -> subprocess.CompletedProcess[str]:
        env = agent_env(tmp_path / "cache", **_env(where, how))
        return subprocess.run(
            [str(program), "start"], capture_output=True, text=True, env=env, cwd=tmp_path
        )

    for how in ("exit", "interrupt", "base"):
        done = call("import", how)
        assert done.returncode == 1, done.stderr
        (line,) = done.stdout.splitlines()
        assert json.loads(line)["error"] == "entry" and "Traceback" not in done.stderr
    done = call("", "dumps")
    (line,) = done.stdout.splitlines()
    assert json.loads(line)["kind"] == "prompt"


async def test_over_mcp_a_skill_that_exits_costs_one_call_not_the_server(tmp_path: Path) -> None:
    import anyio

    async with serve_mcp(ABRUPT, errlog=tmp_path / "err", env=_env("action", "exit")) as client:
        with anyio.fail_after(60):  # a server that died would leave the client waiting
            first = await client.ok("start", {})
            other = await client.ok("start", {})
            failed = await client.call(
                "advance", {"session": first["session"], "step": "one", "output": {"x": 1}}
            )
            assert failed.is_error and "SystemExit (sys.exit(0))" in failed.content[0].text
            again = await client.call(
                "advance", {"session": other["session"], "step": "one", "output": {"x": 1}}
            )
            assert "SystemExit (sys.exit(0))" in again.content[0].text  # still serving
