"""The TypeScript SDK's protocol bugs (PROTOCOL.md, last section), one test each, through
the real CLI. Bugs 1 and 10 concern the build and the linter, not the protocol."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from skillkit_core.testing import mock_model
from tests.protocol.support import (
    AUTOPILOT,
    DEPLOY_CHECK,
    MISROUTE,
    TRIAGE,
    drive_session,
    drive_stateless,
    history_entries,
    ok,
    result_of,
    run,
    start_session,
)

ASK_AGAIN = {"part": "tests", "again": True}
ASK_DONE = {"part": "docs", "again": False}


def _autopilot(tmp_path: Path, **extra: Any) -> dict[str, Any]:
    return {"log": str(tmp_path / "actions.log"), **extra}


# -- bug 2: plain skills read references/ after build -------------------------------------------


def test_plain_skill_reads_references_from_the_built_skill_folder(tmp_path: Path) -> None:
    built = tmp_path / "built"
    (built / "references").mkdir(parents=True)
    (built / "references" / "checklist.md").write_text("- the BUILT checklist\n")
    params = json.dumps(_autopilot(tmp_path))
    first = ok(run(AUTOPILOT, "--params", params, env={"SKILL_DIR": str(built)}))
    result = ok(
        run(
            AUTOPILOT,
            "advance",
            "--step",
            "ask",
            "--output",
            json.dumps(ASK_DONE),
            "--history",
            json.dumps(history_entries(first)),
            "--params",
            params,
            env={"SKILL_DIR": str(built)},
        )
    )
    assert result["step"] == "review"
    assert "the BUILT checklist" in result["prompt"]
    # and beside the source file in dev mode
    dev = drive_stateless(
        AUTOPILOT,
        mock_model({"ask": ASK_DONE, "review": {"approved": True}, "finish": {"summary": "s"}}),
        params=_autopilot(tmp_path),
    )
    assert dev[1]["step"] == "review" and "the fix has a test" in dev[1]["prompt"]


# -- bug 3: --subagent is honoured everywhere ---------------------------------------------------


def _ask_user_tool(preamble: str) -> str:
    row = next(line for line in preamble.splitlines() if line.startswith("| `<ask-user>`"))
    return row.split("|")[2].strip()


def test_subagent_flag_is_honoured_in_stateless_mode(tmp_path: Path) -> None:
    params = ["--params", json.dumps(_autopilot(tmp_path)), "--host", "claude-code"]
    union = ok(run(AUTOPILOT, *params, "--tools", "Read"))
    narrow = ok(run(AUTOPILOT, *params, "--tools", "Read", "--subagent"))
    assert _ask_user_tool(union["preamble"]) == "AskUserQuestion"
    assert _ask_user_tool(narrow["preamble"]) == "—"
    history = history_entries(narrow)
    advanced = ok(
        run(
            AUTOPILOT,
            "advance",
            "--step",
            "ask",
            "--output",
            json.dumps(ASK_DONE),
            "--history",
            json.dumps(history),
            *params,
            "--tools",
            "Read",
            "--subagent",
        )
    )
    assert "You are a subagent" in advanced["prompt"]


def test_subagent_flag_is_kept_in_the_session_header(tmp_path: Path) -> None:
    session, first = start_session(
        AUTOPILOT,
        tmp_path / "s",
        "--params",
        json.dumps(_autopilot(tmp_path)),
        "--host",
        "claude-code",
        "--tools",
        "Read",
        "--subagent",
    )
    assert _ask_user_tool(first["preamble"]) == "—"
    session.write_output("ask", ASK_DONE)
    number = int(ok_text(session.advance()))
    assert "You are a subagent" in result_of(session.line(number))["prompt"]


def ok_text(call: Any) -> str:
    assert call.code == 0, call.describe()
    return call.stdout


# -- bug 4: prompt-less steps are reported once, the preamble is never lost --------------------


def test_prompt_less_steps_are_reported_exactly_once(tmp_path: Path) -> None:
    answers = {
        "ask": [ASK_AGAIN, ASK_DONE],
        "review": {"approved": True},
        "finish": {"summary": "ok"},
    }
    results = drive_stateless(AUTOPILOT, mock_model(answers), params=_autopilot(tmp_path))
    start = results[0]
    assert "preamble" in start and "completed" not in start
    assert [r["step"] for r in start["autoAdvanced"]] == ["prepare"]
    assert results[1]["completed"]["step"] == "ask"
    assert [r["step"] for r in results[1]["autoAdvanced"]] == ["gate"]
    reported = [e["step"] for r in results for e in history_entries(r)]
    assert reported == ["prepare", "ask", "gate", "ask", "gate", "review", "tally", "finish"]
    assert results[-2]["prompt"].count("asked 2 time(s)") == 1  # replay did not double-count
    # the action results recorded in history are the ones that ran
    gate = results[1]["autoAdvanced"][0]
    assert gate["actionResult"] == {"lines": 2}


def test_start_that_auto_advances_keeps_the_preamble_in_session_mode(tmp_path: Path) -> None:
    session, first = start_session(
        AUTOPILOT, tmp_path / "s", "--params", json.dumps(_autopilot(tmp_path))
    )
    assert first["step"] == "ask" and "preamble" in first
    assert session.lines()[1] == session.file.read_text().splitlines()[1]
    assert len(session.lines()) == 2  # the pointer did not skip a line


# -- bug 5: a direct sub-skill keeps its params ---------------------------------------------------


def test_direct_subskill_keeps_its_params_in_stateless_mode() -> None:
    params = ["--params", json.dumps({"ticket": "T-9"})]
    first = ok(run(TRIAGE, "fix", *params))
    assert first["step"] == "fix/investigate" and "T-9" in first["prompt"]
    history = history_entries(first)
    # the plain advance form (the history starts inside the sub-skill) …
    second = ok(
        run(
            TRIAGE,
            "advance",
            "--step",
            "fix/investigate",
            "--output",
            '{"cause": "x"}',
            "--history",
            json.dumps(history),
            *params,
        )
    )
    assert second["step"] == "fix/patch" and "T-9" in second["prompt"]
    history += history_entries(second)
    # … and the explicit one, with the step named inside the sub-skill
    third = ok(
        run(
            TRIAGE,
            "fix",
            "advance",
            "--step",
            "patch",
            "--output",
            '{"done": false}',
            "--history",
            json.dumps(history),
            *params,
        )
    )
    assert third["step"] == "fix/patch" and "Patch T-9 (attempt 2)" in third["prompt"]


def test_direct_subskill_keeps_its_params_in_session_mode(tmp_path: Path) -> None:
    answers = {
        "fix/investigate": {"cause": "x"},
        "fix/patch": [{"done": False}, {"done": True}],
        "fix/close": {"note": "n"},
    }
    results, session = drive_session(
        TRIAGE, mock_model(answers), tmp_path, subskill="fix", params={"ticket": "T-3"}
    )
    assert session.line(1)["subskill"] == "fix"
    assert session.line(1)["params"] == {"ticket": "T-3"}
    prompts = [r["prompt"] for r in results if r["kind"] == "prompt"]
    assert len(prompts) == 4 and all("T-3" in p for p in prompts)


# -- bug 6: text and attributes are escaped --------------------------------------------------------


def test_quotes_in_questions_are_escaped(tmp_path: Path) -> None:
    params = json.dumps(_autopilot(tmp_path, topic='the "v2" <beta> & more'))
    result = ok(run(AUTOPILOT, "--params", params))
    tag = ET.fromstring(result["prompt"])
    assert tag.tag == "ask-user"
    assert tag.get("question") == 'Which part of the "v2" <beta> & more should we look at?'


# -- bug 7: no second run of a finished session, no out-of-order steps, no leaked redirect -----


def test_finished_session_is_not_advanced_again(tmp_path: Path) -> None:
    answers = {"ask": ASK_DONE, "review": {"approved": True}, "finish": {"summary": "s"}}
    log = tmp_path / "actions.log"
    results, session = drive_session(
        AUTOPILOT, mock_model(answers), tmp_path / "s", params={"log": str(log)}, mode="flag"
    )
    assert results[-1]["kind"] == "done"
    before = session.file.read_bytes()
    ran = log.read_text()
    for step in ("finish", "ask"):
        call = session.advance("--step", step, "--output", json.dumps(answers[step]))
        assert call.code == 1 and call.json["error"] == "state", call.describe()
    assert session.file.read_bytes() == before
    assert log.read_text() == ran


def test_steps_cannot_be_advanced_out_of_order(tmp_path: Path) -> None:
    session, _ = start_session(DEPLOY_CHECK, tmp_path, "--output-mode", "flag")
    before = session.file.read_bytes()
    call = session.advance("--step", "deploy", "--output", '{"url": "u"}')
    assert call.code == 0, call.describe()  # answered in the file, like a validation error
    answer = result_of(session.line(int(call.stdout)))
    assert answer["error"] == "state" and "waiting for 'choose'" in answer["message"]
    assert answer["retry"] is True
    assert session.file.read_bytes().startswith(before)
    fine = session.advance("--step", "choose", "--output", '{"target": "staging"}')
    assert result_of(session.line(int(fine.stdout)))["step"] == "verify"


def test_next_naming_a_missing_step_is_an_error_not_a_redirect(tmp_path: Path) -> None:
    for where in ("nowhere", "subskill:ghost", "topic:ghost"):
        call = run(
            MISROUTE,
            "advance",
            "--step",
            "ask",
            "--output",
            json.dumps({"where": where}),
            "--history",
            "[]",
        )
        assert call.code == 1, call.describe()
        assert call.json["kind"] == "error" and call.json["error"] == "runtime"
        assert where in call.json["message"]
    session, _ = start_session(MISROUTE, tmp_path, "--output-mode", "flag")
    refused = session.advance("--step", "ask", "--output", '{"where": "nowhere"}')
    assert refused.code == 0, refused.describe()
    assert result_of(session.line(int(refused.stdout)))["error"] == "runtime"
    fine = session.advance("--step", "ask", "--output", '{"where": "end"}')
    assert fine.code == 0 and result_of(session.line(int(fine.stdout)))["step"] == "end"


# -- bug 9: each step's own visit limit ---------------------------------------------------------


def test_loop_stops_at_the_steps_own_limit(tmp_path: Path) -> None:
    answers = {
        "ask": [ASK_AGAIN, ASK_AGAIN],
        "review": {"approved": True},
        "finish": {"summary": "s"},
    }
    results = drive_stateless(AUTOPILOT, mock_model(answers), params=_autopilot(tmp_path))
    steps = [r["step"] for r in results if r["kind"] == "prompt"]
    assert steps == ["ask", "ask", "review", "finish"]  # max_visits=2 on 'ask'


def test_composite_loop_limit_holds_across_calls(tmp_path: Path) -> None:
    answers = {
        "intake": {"route": "fix", "ticket": "T-1"},
        "fix/investigate": {"cause": "c"},
        "fix/patch": [{"done": False}] * 3,
        "fix/close": {"note": "n"},
    }
    results, _ = drive_session(TRIAGE, mock_model(answers), tmp_path)
    patches = [r for r in results if r.get("step") == "fix/patch"]
    assert len(patches) == 3 and results[-1]["completed"]["step"] == "fix/close"


# -- bug 11: every failure is a JSON error with the documented exit code ------------------------


def test_usage_errors_are_json_with_exit_1_and_help_is_exit_0() -> None:
    for args in (["frobnicate"], ["advance"], ["--bogus"], ["topic"]):
        call = run(TRIAGE, *args)
        assert call.code == 1 and call.json["error"] == "usage", call.describe()
    helped = run(TRIAGE, "advance", "--help")
    assert helped.code == 0 and helped.stderr == "" and "usage:" in helped.stdout


def test_no_traceback_unless_debugging(tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    shutil.copytree(Path(AUTOPILOT).parent, broken)
    (broken / "references" / "checklist.md").unlink()
    params = json.dumps({"log": str(tmp_path / "log")})
    first = run(str(broken / "autopilot.py"), "start", "--params", params)
    history = first.json["autoAdvanced"]  # the tagged action result of 'prepare'
    args = ["advance", "--step", "ask", "--output", json.dumps(ASK_DONE), "--params", params]
    args += ["--history", json.dumps(history)]
    quiet = run(str(broken / "autopilot.py"), *args)
    assert quiet.code == 1 and quiet.json["error"] == "runtime", quiet.describe()
    assert "checklist.md" in quiet.json["message"]
    assert "Traceback" not in quiet.stderr
    crashing = tmp_path / "crashing.py"
    crashing.write_text("import json\n\nraise RuntimeError('boom at import')\n")
    calm = run(str(crashing), "start")
    assert calm.code == 1 and calm.json["error"] == "entry"
    assert (
        "RuntimeError: boom at import" in calm.json["message"] and "line 3" in calm.json["message"]
    )
    assert "Traceback" not in calm.stderr
    loud = run(str(crashing), "start", env={"SKILLKIT_DEBUG": "1"})
    assert loud.json == calm.json and "Traceback" in loud.stderr


def test_history_accepts_the_output_form_and_ignores_extra_keys() -> None:
    """Entries may be {step, output} (the seeds' CLI form) or full completed objects."""
    history = [
        {"step": "choose", "output": {"target": "production"}},
        {"step": "verify", "response": {"blockers": ["x"], "safe": False}, "result": {}, "n": 1},
    ]
    result = ok(
        run(
            DEPLOY_CHECK,
            "advance",
            "--step",
            "abort",
            "--output",
            '{"summary": "blocked"}',
            "--history",
            json.dumps(history),
        )
    )
    assert result["kind"] == "done" and result["finalOutput"] == {"summary": "blocked"}
