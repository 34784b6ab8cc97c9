"""Helpers for the protocol tests: call the CLI as an agent would, and drive whole runs.

Every call is a real subprocess (``python -m skillkit_core.protocol ENTRY …``, the light
path a built ``scripts/run`` uses, or ``skillkit run ENTRY …``) on real files.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skillkit_core.hosts import DETECTION_VARIABLES

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "fixtures"
EXAMPLES = ROOT / "examples"
SKILLKIT = Path(sys.executable).parent / "skillkit"

AUTOPILOT = str(FIXTURES / "autopilot.py")
TRIAGE = str(FIXTURES / "triage.py")
HANDBOOK = str(FIXTURES / "handbook.py")
MISROUTE = str(FIXTURES / "misroute.py")
PATIENT = str(FIXTURES / "patient.py")
DEPLOY_CHECK = str(EXAMPLES / "deploy-check" / "deploy_check.py")
GET_TO_KNOW_YOU = str(EXAMPLES / "get-to-know-you" / "get_to_know_you.py")
HELP_DESK = str(EXAMPLES / "help-desk" / "help_desk.py")
REPO_DOCTOR = str(EXAMPLES / "repo-doctor" / "repo_doctor.py")


@dataclass(frozen=True)
class Call:
    """One finished CLI call."""

    argv: list[str]
    code: int
    stdout: str
    stderr: str

    @property
    def json(self) -> Any:
        lines = self.stdout.splitlines()
        assert len(lines) == 1, f"expected one line on stdout, got {self.stdout!r}"
        return json.loads(lines[0])

    def describe(self) -> str:
        command = " ".join(self.argv)
        return f"$ {command}\nexit {self.code}\nstdout: {self.stdout}\nstderr: {self.stderr}"


def run(
    entry: str,
    *args: str,
    env: dict[str, str] | None = None,
    via: str = "module",
    timeout: float = 60,
) -> Call:
    """Run one protocol call on ``entry``; ``via`` is ``module`` or ``skillkit``."""
    if via == "skillkit":
        argv = [str(SKILLKIT), "run", entry, *args]
    else:
        argv = [sys.executable, "-m", "skillkit_core.protocol", entry, *args]
    full_env = dict(os.environ)
    full_env.pop("SKILLKIT_DEBUG", None)
    full_env.pop("SKILL_DIR", None)
    for variable in DETECTION_VARIABLES:  # the agent running the tests may set them
        full_env.pop(variable, None)
    full_env.update(env or {})
    done = subprocess.run(
        argv, capture_output=True, text=True, env=full_env, cwd=ROOT, timeout=timeout
    )
    return Call(argv, done.returncode, done.stdout, done.stderr)


def ok(call: Call) -> Any:
    """The JSON result of a call that must have succeeded (exit 0)."""
    assert call.code == 0, call.describe()
    return call.json


def flags(
    *,
    params: Any = None,
    host: str | None = None,
    tools: str | None = None,
    subagent: bool = False,
) -> list[str]:
    """The handshake and params flags as an agent passes them."""
    out: list[str] = []
    if params is not None:
        out += ["--params", json.dumps(params)]
    if host is not None:
        out += ["--host", host]
    if tools is not None:
        out += ["--tools", tools]
    if subagent:
        out.append("--subagent")
    return out


def history_entries(result: dict[str, Any]) -> list[dict[str, Any]]:
    """What a result adds to the stateless history: completed, then autoAdvanced."""
    entries = [result["completed"]] if "completed" in result else []
    return entries + list(result.get("autoAdvanced", []))


def drive_stateless(
    entry: str,
    model: Any,
    *,
    subskill: str | None = None,
    via: str = "module",
    env: dict[str, str] | None = None,
    **handshake: Any,
) -> list[dict[str, Any]]:
    """Run a whole workflow in stateless mode; every result, in order."""
    common = flags(**handshake)
    head = [subskill] if subskill else []
    result = ok(run(entry, *head, *common, via=via, env=env))
    results = [result]
    history: list[dict[str, Any]] = []
    while result["kind"] == "prompt":
        history += history_entries(result)
        output = model.respond(result["step"], result["prompt"], result["schema"])
        call = run(
            entry,
            "advance",
            "--step",
            result["step"],
            "--output",
            json.dumps(output),
            "--history",
            json.dumps(history),
            *common,
            via=via,
            env=env,
        )
        result = ok(call)
        results.append(result)
    return results


@dataclass
class Session:
    """A session as the agent sees it: the pointer, and the file it reads."""

    entry: str
    session_id: str
    file: Path
    folder: Path
    env: dict[str, str] | None = None

    def lines(self) -> list[str]:
        return self.file.read_text(encoding="utf-8").splitlines()

    def line(self, number: int) -> dict[str, Any]:
        return json.loads(self.lines()[number - 1])

    def advance(self, *extra: str, via: str = "module") -> Call:
        return run(
            self.entry,
            "advance",
            "--session",
            self.session_id,
            "--session-dir",
            str(self.folder),
            *extra,
            via=via,
            env=self.env,
        )

    def write_output(self, step: str, output: Any, *, newline: bool = True) -> None:
        line = json.dumps({"type": "output", "step": step, "output": output})
        with self.file.open("a", encoding="utf-8") as handle:
            handle.write(line + ("\n" if newline else ""))


def start_session(
    entry: str,
    folder: Path,
    *extra: str,
    mode: str | None = None,
    via: str = "module",
    env: dict[str, str] | None = None,
) -> tuple[Session, dict[str, Any]]:
    """``start --session new``; the session and the first result (read from its line)."""
    args = [*extra, "--session", "new", "--session-dir", str(folder)]
    if mode:
        args += ["--output-mode", mode]
    pointer = ok(run(entry, *args, via=via, env=env))
    assert set(pointer) == {"sessionId", "file", "line"}, pointer
    session = Session(entry, pointer["sessionId"], Path(pointer["file"]), folder, env)
    return session, result_of(session.line(pointer["line"]))


def result_of(line: dict[str, Any]) -> dict[str, Any]:
    """A result line without its ``type`` (which must come first and equal the kind)."""
    assert next(iter(line)) == "type", line
    body = dict(line)
    kind = body.pop("type")
    assert kind == body["kind"], line
    return body


def drive_session(
    entry: str,
    model: Any,
    folder: Path,
    *,
    mode: str = "file",
    subskill: str | None = None,
    via: str = "module",
    newline_every: int = 2,
    env: dict[str, str] | None = None,
    **handshake: Any,
) -> tuple[list[dict[str, Any]], Session]:
    """Run a whole workflow in session mode, reading every result from the file.

    In file mode every ``newline_every``-th output line is written without its trailing
    newline, as ``printf`` would.
    """
    head = [subskill] if subskill else []
    session, result = start_session(
        entry, folder, *head, *flags(**handshake), mode=mode, via=via, env=env
    )
    results = [result]
    turn = 0
    while result["kind"] == "prompt":
        turn += 1
        output = model.respond(result["step"], result["prompt"], result["schema"])
        if mode == "file":
            session.write_output(result["step"], output, newline=turn % newline_every != 0)
            call = session.advance(via=via)
        else:
            call = session.advance(
                "--step", result["step"], "--output", json.dumps(output), via=via
            )
        assert call.code == 0, call.describe()
        number = int(call.stdout.strip())
        assert number == len(session.lines()), "the pointer names the last line"
        result = result_of(session.line(number))
        results.append(result)
    return results, session
