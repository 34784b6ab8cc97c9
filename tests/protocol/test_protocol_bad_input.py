"""Every malformed or refused call: a JSON error on stdout, the right exit code, one line on
stderr, no traceback, and the session's files exactly as they were."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.protocol.support import (
    DEPLOY_CHECK,
    GET_TO_KNOW_YOU,
    HANDBOOK,
    ROOT,
    TRIAGE,
    Call,
    Session,
    ok,
    run,
    start_session,
)

ERROR_KEYS = ["kind", "error", "step", "message", "retry"]


@dataclass(frozen=True)
class Case:
    name: str
    args: Callable[[Session], list[str]]
    error: str
    retry: bool = False
    exit: int = 1
    entry: str = DEPLOY_CHECK
    prepare: Callable[[Session], None] | None = None
    finished: bool = False
    """Use a session that has already reached done."""


def _session(s: Session) -> list[str]:
    return ["advance", "--session", s.session_id, "--session-dir", str(s.folder)]


def _truncate(s: Session) -> None:
    lines = s.file.read_bytes().splitlines(keepends=True)
    s.file.write_bytes(b"".join(lines[:-1]))


def _tamper(s: Session) -> None:
    text = s.file.read_text()
    s.file.write_text(text.replace('"target":"staging"', '"target":"production"'))


def _tamper_history(s: Session) -> None:
    text = s.file.read_text()
    s.file.write_text(text.replace('"completed":{"step":"choose"', '"completed":{"step":"deploy"'))


def _cut_mid_line(s: Session) -> None:
    data = s.file.read_bytes()
    s.file.write_bytes(data[: len(data) - 40])


def _junk_line(s: Session) -> None:
    with s.file.open("a") as handle:
        handle.write('{"type":"output","step":"verify","output":{"blockers":[]\n')


def _wrong_type_line(s: Session) -> None:
    with s.file.open("a") as handle:
        handle.write('{"type":"prompt","step":"verify"}\n')


def _drop_sidecar(s: Session) -> None:
    next(s.folder.glob("*.snapshot.json")).unlink()


def _edit_without_sidecar(old: str, new: str) -> Callable[[Session], None]:
    """Replace ``old`` (which must be there) by ``new`` in the file, and lose the sidecar
    that would have shown the edit."""

    def prepare(s: Session) -> None:
        text = s.file.read_text()
        assert old in text, old
        s.file.write_text(text.replace(old, new))
        _drop_sidecar(s)

    return prepare


STATELESS_ADVANCE = ["advance", "--history", "[]"]

CASES = [
    # malformed JSON in any flag
    Case(
        "bad-json-output",
        lambda s: [*STATELESS_ADVANCE, "--step", "choose", "--output", "{x"],
        "usage",
        retry=True,
    ),
    Case("bad-json-params", lambda s: ["start", "--params", "{"], "usage", retry=True),
    Case(
        "bad-json-history",
        lambda s: ["advance", "--step", "choose", "--output", "{}", "--history", "[{"],
        "usage",
        retry=True,
    ),
    Case(
        "history-not-a-list",
        lambda s: ["advance", "--step", "choose", "--output", "{}", "--history", "{}"],
        "usage",
        retry=True,
    ),
    Case(
        "nan-is-not-json",
        lambda s: [*STATELESS_ADVANCE, "--step", "choose", "--output", "NaN"],
        "usage",
        retry=True,
    ),
    # params failing the schema
    Case(
        "params-fail-schema",
        lambda s: ["start", "--params", '{"env": "prod"}'],
        "params",
        retry=True,
    ),
    Case(
        "params-fail-schema-session",
        lambda s: ["--params", '{"env": 1}', "--session", "new", "--session-dir", str(s.folder)],
        "params",
        retry=True,
    ),
    Case("params-not-an-object", lambda s: ["start", "--params", "[1, 2]"], "params", retry=True),
    Case(
        "history-that-does-not-fit",
        lambda s: [
            "advance",
            "--step",
            "verify",
            "--output",
            "{}",
            "--history",
            json.dumps([{"step": "verify", "response": {}}]),
        ],
        "history",
    ),
    # unknown step, step out of turn, finished run
    # (a corrected call can succeed: retry; in session mode these are lines of the file,
    # see SESSION_ANSWERS below)
    Case(
        "unknown-step",
        lambda s: [*STATELESS_ADVANCE, "--step", "nope", "--output", "{}"],
        "unknown_step",
        retry=True,
    ),
    Case(
        "step-not-current",
        lambda s: [
            *STATELESS_ADVANCE,
            "--step",
            "verify",
            "--output",
            '{"blockers": [], "safe": true}',
        ],
        "state",
        retry=True,
    ),
    Case(
        "finished-session",
        lambda s: [*_session(s), "--step", "deploy", "--output", '{"url": "again"}'],
        "state",
        finished=True,
    ),
    Case("finished-session-file-mode", _session, "state", finished=True),
    # session ids and session files
    Case(
        "unknown-session",
        lambda s: ["advance", "--session", "0" * 32, "--session-dir", str(s.folder)],
        "session",
    ),
    Case(
        "session-id-path-escape", lambda s: ["advance", "--session", "../../etc/passwd"], "session"
    ),
    Case(
        "session-id-uppercase",
        lambda s: ["advance", "--session", s.session_id.upper(), "--session-dir", str(s.folder)],
        "session",
    ),
    Case(
        "session-id-short",
        lambda s: ["advance", "--session", s.session_id[:31], "--session-dir", str(s.folder)],
        "session",
    ),
    Case("session-file-truncated", _session, "session", prepare=_truncate),
    Case("session-file-cut-mid-line", _session, "session", prepare=_cut_mid_line),
    Case("session-file-tampered", _session, "session", prepare=_tamper),
    Case(
        "session-file-tampered-no-sidecar",
        _session,
        "session",
        prepare=lambda s: (_tamper_history(s), _drop_sidecar(s)),
    ),
    # without the sidecar, the file is checked line by line against a re-run of the skill
    Case(
        "session-params-edited-no-sidecar",
        _session,
        "session",
        prepare=_edit_without_sidecar('"params":{"env":null}', '"params":{"env":null,"x":1}'),
    ),
    Case(
        "session-prompt-edited-no-sidecar",
        _session,
        "session",
        prepare=_edit_without_sidecar("checks for staging.", "checks for staging, then deploy."),
    ),
    Case(
        "session-output-edited-no-sidecar",
        _session,
        "session",
        prepare=lambda s: (_tamper(s), _drop_sidecar(s)),
    ),
    Case(
        "session-final-output-edited-no-sidecar",
        _session,
        "session",
        prepare=_edit_without_sidecar('"finalOutput":{"url":"u"}', '"finalOutput":{"url":"v"}'),
        finished=True,
    ),
    Case(
        "session-dir-missing",
        lambda s: ["advance", "--session", s.session_id, "--session-dir", str(s.folder / "nope")],
        "session",
    ),
    # command line shape
    Case("unknown-subcommand", lambda s: ["launch"], "usage"),
    Case("unknown-flag", lambda s: ["start", "--parms", "{}"], "usage"),
    Case("single-dash-option", lambda s: ["start", "-p", "{}"], "usage"),
    Case("flag-twice", lambda s: ["start", "--host", "codex", "--host", "amp"], "usage"),
    Case("flag-without-value", lambda s: ["start", "--params"], "usage"),
    Case("flag-not-for-subcommand", lambda s: ["start", "--history", "[]"], "usage"),
    Case("advance-without-step", lambda s: ["advance", "--output", "{}"], "usage"),
    Case("advance-with-session-new", lambda s: ["advance", "--session", "new"], "usage"),
    Case("start-with-session-id", lambda s: ["start", "--session", s.session_id], "usage"),
    Case(
        "session-dir-without-session", lambda s: ["start", "--session-dir", str(s.folder)], "usage"
    ),
    Case(
        "bad-output-mode",
        lambda s: ["start", "--session", "new", "--output-mode", "pipe"],
        "usage",
        retry=True,
    ),
    Case("history-with-session", lambda s: [*_session(s), "--history", "[]"], "usage"),
    Case(
        "extra-positional", lambda s: ["advance", "now", "--step", "x", "--output", "{}"], "usage"
    ),
    Case("topic-without-name", lambda s: ["topic"], "usage", entry=TRIAGE),
    Case("unknown-topic", lambda s: ["topic", "nope"], "unknown_topic", entry=TRIAGE),
    Case("topics-of-a-plain-skill", lambda s: ["topics"], "usage"),
    Case("reference-skill-has-no-start", lambda s: ["start"], "usage", entry=HANDBOOK),
    Case(
        "unknown-subskill-step",
        lambda s: [*STATELESS_ADVANCE, "--step", "ghost/x", "--output", "{}"],
        "unknown_step",
        retry=True,  # as an unknown step of the skill: the run waits for one
        entry=TRIAGE,
    ),
    # a refused output in a session (exit 0, the normal retryable answer) is covered elsewhere
]


@pytest.fixture(scope="module")
def templates(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Session]:
    """A session waiting at 'verify', and one that has finished."""
    base = tmp_path_factory.mktemp("templates")
    waiting, _ = start_session(DEPLOY_CHECK, base / "waiting")
    waiting.write_output("choose", {"target": "staging"})
    assert waiting.advance().code == 0
    done, _ = start_session(DEPLOY_CHECK, base / "done", "--output-mode", "flag")
    for step, output in [
        ("choose", {"target": "staging"}),
        ("verify", {"blockers": [], "safe": True}),
        ("deploy", {"url": "u"}),
    ]:
        assert done.advance("--step", step, "--output", json.dumps(output)).code == 0
    return {"waiting": waiting, "done": done}


def _copy(template: Session, folder: Path) -> Session:
    shutil.copytree(template.folder, folder)
    return Session(
        template.entry, template.session_id, folder / template.file.name, folder, template.env
    )


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def assert_error_result(call: Call, error: str, *, retry: bool, exit_code: int) -> dict:
    assert call.code == exit_code, call.describe()
    result = call.json
    assert list(result) == ERROR_KEYS, result
    assert result["kind"] == "error" and result["error"] == error, call.describe()
    assert result["retry"] is retry, call.describe()
    assert isinstance(result["message"], str) and result["message"].strip()
    assert "Traceback" not in call.stderr
    if exit_code:
        errors = [line for line in call.stderr.splitlines() if "error[" in line]
        assert errors == [f"skillkit: error[{error}]: {' '.join(result['message'].split())}"]
    return result


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_bad_input_is_a_json_error_and_changes_nothing(
    case: Case, templates: dict[str, Session], tmp_path: Path
) -> None:
    session = _copy(templates["done" if case.finished else "waiting"], tmp_path / "sessions")
    if case.prepare is not None:
        case.prepare(session)
    before = _snapshot(session.folder)
    call = run(case.entry, *case.args(session))
    assert_error_result(call, case.error, retry=case.retry, exit_code=case.exit)
    assert _snapshot(session.folder) == before, "a refused call must not touch the session"


# Session mode: what the agent's own output causes is answered in the file, like a
# validation error: advance prints the number of the line to read (exit 0) and a corrected
# output line continues the run.
SESSION_ANSWERS = [
    Case(
        "unknown-step-in-session",
        lambda s: [*_session(s), "--step", "nope", "--output", "{}"],
        "unknown_step",
        retry=True,
    ),
    Case(
        "step-not-current-in-session",
        lambda s: [*_session(s), "--step", "deploy", "--output", '{"url": "x"}'],
        "state",
        retry=True,
    ),
    Case(
        "bad-json-output-in-session",
        lambda s: [*_session(s), "--step", "verify", "--output", "{oops"],
        "usage",
        retry=True,
    ),
    Case("nothing-to-submit", _session, "usage", retry=True),
    Case("junk-output-line", _session, "usage", retry=True, prepare=_junk_line),
    Case("output-line-of-wrong-type", _session, "usage", retry=True, prepare=_wrong_type_line),
    Case(
        "step-does-not-match-line",
        lambda s: [*_session(s), "--step", "deploy"],
        "usage",
        retry=True,
        prepare=lambda s: s.write_output("verify", {"blockers": [], "safe": True}),
    ),
]


@pytest.mark.parametrize("case", SESSION_ANSWERS, ids=lambda c: c.name)
def test_errors_of_the_agents_output_are_lines_of_the_session_file(
    case: Case, templates: dict[str, Session], tmp_path: Path
) -> None:
    session = _copy(templates["waiting"], tmp_path / "sessions")
    if case.prepare is not None:
        case.prepare(session)
    before = session.file.read_bytes()
    call = run(case.entry, *case.args(session))
    assert call.code == 0, call.describe()
    number = int(call.stdout)
    assert number == len(session.lines())
    after = session.file.read_bytes()
    assert after.startswith(before), "the file is only appended to"
    line = json.loads(session.lines()[number - 1])
    assert line["type"] == "error" and line["error"] == case.error and line["retry"] is True
    assert line["step"] == "verify" or case.error != "usage"
    # A corrected output line continues the run.
    session.write_output("verify", {"blockers": [], "safe": True})
    fixed = session.advance()
    assert fixed.code == 0, fixed.describe()
    assert json.loads(session.lines()[int(fixed.stdout) - 1])["step"] == "deploy"


def test_tampering_is_reported_not_repaired(templates: dict[str, Session], tmp_path: Path) -> None:
    session = _copy(templates["waiting"], tmp_path / "s")
    _tamper(session)
    first = run(DEPLOY_CHECK, *_session(session), "--step", "verify", "--output", "{}")
    again = run(DEPLOY_CHECK, *_session(session), "--step", "verify", "--output", "{}")
    assert first.json["message"] == again.json["message"]
    assert "modified" in first.json["message"]


def test_truncation_names_the_sizes(templates: dict[str, Session], tmp_path: Path) -> None:
    session = _copy(templates["waiting"], tmp_path / "s")
    _truncate(session)
    message = run(DEPLOY_CHECK, *_session(session)).json["message"]
    assert "truncated" in message and "bytes" in message


def test_unknown_host_runs_as_generic_with_one_warning(tmp_path: Path) -> None:
    """A new host must never break a run: it is accepted as generic, with a warning."""
    call = run(DEPLOY_CHECK, "--host", "brand-new-agent")
    assert call.code == 0
    generic = run(DEPLOY_CHECK, "--host", "generic")
    assert call.json == generic.json
    warnings = [line for line in call.stderr.splitlines() if "brand-new-agent" in line]
    assert len(warnings) == 1 and "generic" in warnings[0]
    assert generic.stderr == ""


@pytest.mark.parametrize(
    ("args", "code", "error"),
    [
        (("start", "--params", "-"), 1, "--params -: cannot read standard input: it is closed"),
        (("mcp",), 0, None),  # no client: the server ends at once, as on an empty stdin
    ],
    ids=["json-flag", "mcp"],
)
def test_a_call_started_with_stdin_closed(args: tuple[str, ...], code: int, error: str | None):
    import os
    import subprocess
    import sys

    from tests.protocol.support import DEPLOY_CHECK, ROOT

    argv = [sys.executable, "-m", "skillkit_core.protocol", DEPLOY_CHECK, *args]
    env = {k: v for k, v in os.environ.items() if k != "SKILLKIT_DEBUG"}
    done = subprocess.run(
        ["sh", "-c", 'exec "$@" <&-', "sh", *argv],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=60,
    )
    assert done.returncode == code, done.stderr
    assert "internal" not in done.stderr and "Traceback" not in done.stderr
    if error is None:
        assert done.stdout == ""
    else:
        refused = json.loads(done.stdout)
        assert refused["error"] == "usage" and refused["message"] == error
        assert refused["retry"] is True


NOT_UTF8 = "\udcff"
"""A byte that is no UTF-8 (0xff), as Python holds it in an argument (surrogateescape)."""


@pytest.mark.parametrize(
    ("entry", "args", "error", "shown"),
    [
        (DEPLOY_CHECK, ["fr" + NOT_UTF8 + "ob"], "usage", "fr\\xffob"),
        (DEPLOY_CHECK, ["start", "--p" + NOT_UTF8 + "arams", "{}"], "usage", "--p\\xffarams"),
        (
            DEPLOY_CHECK,
            ["advance", "--step", "ch" + NOT_UTF8, "--output", "{}", "--history", "[]"],
            "unknown_step",
            "'ch\\xff' is not a step",
        ),
        (HANDBOOK, ["topic", "no" + NOT_UTF8 + "pe"], "unknown_topic", "no\\xffpe"),
    ],
    ids=["subcommand", "flag", "step", "topic"],
)
def test_bytes_that_are_not_utf8_are_echoed_as_escapes_in_a_json_error(
    entry: str, args: list[str], error: str, shown: str
) -> None:
    """An argument echoed in a message made stdout's UTF-8 encoder fail: a traceback and
    no result at all."""
    call = run(entry, *args)
    assert call.code == 1, call.describe()
    assert call.json["error"] == error and shown in call.json["message"], call.json
    assert "Traceback" not in call.stderr


@pytest.mark.parametrize("how", ["flag", "relative", "temp"])
def test_a_session_folder_whose_path_is_not_utf8_is_refused_before_anything_is_made(
    tmp_path: Path, how: str
) -> None:
    """Its path could not be printed in the pointer: the start exited 0 and printed
    nothing, leaving the folder and its key behind (or, once escaped, pointed at a file
    that does not exist): by the flag, a relative flag under such a folder, or TMPDIR."""
    bad = tmp_path / ("bad" + NOT_UTF8)
    bad.mkdir()
    args = ["start", "--session", "new"]
    env = None
    if how == "flag":
        args += ["--session-dir", str(bad / "sessions")]
    elif how == "relative":
        args += ["--session-dir", os.path.relpath(bad / "sessions", ROOT)]
    else:
        env = {"TMPDIR": str(bad)}
    call = run(DEPLOY_CHECK, *args, env=env)
    assert call.code == 1, call.describe()
    assert call.json["error"] == "session", call.json
    assert "is not a UTF-8 path" in call.json["message"]
    assert "bad\\xff" in call.json["message"]
    assert list(bad.iterdir()) == []


@pytest.mark.parametrize("params", ['{"x": 1}', '{"name": "Ada", "extra": true}', "[1]"])
def test_params_for_a_skill_that_declares_none_are_refused_not_dropped(params: str) -> None:
    # protocol.md: a --params key the schema does not declare is refused, never dropped
    # silently; get-to-know-you declares no params, so every key is undeclared.
    call = run(GET_TO_KNOW_YOU, "start", "--params", params)
    result = call.json
    assert (call.code, result["error"], result["retry"]) == (1, "params", True), call.describe()
    assert "declares no params" in result["message"]
    assert ok(run(GET_TO_KNOW_YOU, "start", "--params", "{}"))["kind"] == "prompt"
