"""Without --host, scripts/run takes the host from a variable the host is documented to
set for the commands it runs, and says so; --host always wins."""

import json
from pathlib import Path

from tests.protocol.support import DEPLOY_CHECK, ok, run


def _tool_of(preamble: str, tag: str) -> str:
    row = next(line for line in preamble.splitlines() if line.startswith(f"| `<{tag}>`"))
    return row.split(" | ")[1]


def test_a_documented_variable_selects_the_host_and_stderr_says_why():
    call = run(DEPLOY_CHECK, "start", env={"GEMINI_CLI": "1"})
    result = ok(call)
    assert _tool_of(result["preamble"], "ask-user") == "ask_user"
    assert "skillkit: host: gemini-cli (detected: GEMINI_CLI is set" in call.stderr
    assert "docs/tools/shell.md" in call.stderr


def test_kilo_is_told_from_opencode_although_both_set_opencode():
    call = run(DEPLOY_CHECK, "start", env={"OPENCODE": "1", "KILOCODE_FEATURE": "cli"})
    ok(call)
    assert "skillkit: host: kilo-code" in call.stderr


def test_host_flag_wins_over_the_environment():
    call = run(DEPLOY_CHECK, "start", "--host", "claude-code", env={"CODEX_THREAD_ID": "t1"})
    result = ok(call)
    assert _tool_of(result["preamble"], "ask-user") == "AskUserQuestion"
    assert "detected" not in call.stderr


def test_without_a_variable_the_host_is_generic_and_nothing_is_said():
    call = run(DEPLOY_CHECK, "start")
    result = ok(call)
    assert _tool_of(result["preamble"], "ask-user") == "—"
    assert call.stderr == ""


def test_a_session_keeps_the_detected_host_in_its_header(tmp_path):
    call = run(
        DEPLOY_CHECK,
        "start",
        "--session",
        "new",
        "--session-dir",
        str(tmp_path),
        env={"CODEX_THREAD_ID": "t1"},
    )
    header = ok(call)
    first = Path(header["file"]).read_text(encoding="utf-8").splitlines()[0]
    assert json.loads(first)["host"] == "codex"


def test_an_advance_on_a_session_says_nothing_about_detection(tmp_path):
    env = {"CODEX_THREAD_ID": "t1"}
    start = ok(
        run(DEPLOY_CHECK, "start", "--session", "new", "--session-dir", str(tmp_path), env=env)
    )
    call = run(
        DEPLOY_CHECK,
        "advance",
        "--session",
        start["sessionId"],
        "--session-dir",
        str(tmp_path),
        "--step",
        "choose",
        "--output",
        '{"target": "staging"}',
        env=env,
    )
    assert call.code == 0, call.describe()
    assert "detected" not in call.stderr
