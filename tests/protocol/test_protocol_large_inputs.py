"""JSON flags larger than one command-line argument: ``@FILE`` and ``-`` (stdin).

Linux caps one argument at 128 KiB, so a long ``--history`` (a 670 KB one was seen) failed
with "Argument list too long" before scripts/run even started.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.protocol.support import DEPLOY_CHECK, ROOT

BIG = "x" * 300_000  # more than the kernel's 128 KiB per argument


def _call(*args: str, stdin: str | None = None, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("SKILLKIT_DEBUG", "SKILL_DIR")}
    argv = [sys.executable, "-m", "skillkit_core.protocol", DEPLOY_CHECK, *args]
    return subprocess.run(
        argv, input=stdin, capture_output=True, text=True, env=env, cwd=cwd, timeout=60
    )


def _history() -> list[dict]:
    return [
        {"step": "choose", "response": {"target": "staging"}},
        {"step": "verify", "response": {"blockers": [BIG], "safe": True}},
    ]


def test_the_argument_itself_is_too_long_for_the_kernel() -> None:
    with pytest.raises(OSError, match="Argument list too long"):
        _call("advance", "--step", "deploy", "--output", "{}", "--history", json.dumps(_history()))


def test_history_and_output_can_come_from_files(tmp_path: Path) -> None:
    (tmp_path / "history.json").write_text(json.dumps(_history()), encoding="utf-8")
    (tmp_path / "output.json").write_text(json.dumps({"url": BIG}), encoding="utf-8")
    done = _call(
        *("advance", "--step", "deploy"),
        *("--output", "@output.json", "--history", "@history.json"),
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["kind"] == "done" and result["finalOutput"] == {"url": BIG}


def test_output_can_come_from_stdin(tmp_path: Path) -> None:
    (tmp_path / "history.json").write_text(json.dumps(_history()), encoding="utf-8")
    done = _call(
        *("advance", "--step", "deploy", "--output", "-", "--history", "@history.json"),
        stdin=json.dumps({"url": "it's here"}),
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["finalOutput"] == {"url": "it's here"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("--output", "@missing.json"),
            "--output @missing.json: cannot read missing.json: No such",
        ),
        (("--output", "@not-json.txt"), "--output is not valid JSON"),
        (
            ("--output", "-", "--history", "-"),
            "only one flag can read standard input ('-'), not --output, --history",
        ),
    ],
)
def test_unreadable_or_doubled_inputs_are_usage_errors(
    tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    (tmp_path / "not-json.txt").write_text("it's not JSON", encoding="utf-8")
    done = _call("advance", "--step", "choose", *args, cwd=tmp_path)
    assert done.returncode == 1
    error = json.loads(done.stdout)
    assert error["error"] == "usage" and message in error["message"]
