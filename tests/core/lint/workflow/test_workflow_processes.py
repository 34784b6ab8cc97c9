"""``check`` leaves no process behind: whatever a module starts at import (in its own
session, or double-forked) is killed with its check, whether the module finished, ended
the checking process or hung."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from skillkit_core.lint.load_worker import LoadWorker
from tests.process_support import LINUX, new_marker, none_left, spawns

pytestmark = pytest.mark.skipif(not LINUX, reason="finds processes through /proc")

SKILL = """
from skillkit_core import skill, terminal

fine = skill(name="fine", entry="a", description="Starts processes.").step(
    "a", prompt="A.", next=terminal
).build()
"""


def module(tmp_path: Path, marker: str, tail: str = "") -> Path:
    path = tmp_path / f"m_{marker[-8:]}.py"
    path.write_text(spawns(marker) + SKILL + tail, encoding="utf-8")
    return path


def test_a_module_that_finishes_leaves_no_process(tmp_path: Path) -> None:
    marker = new_marker()
    with LoadWorker(timeout=10) as worker:
        report = worker.check(module(tmp_path, marker))
        assert report.diagnostics == [] and report.skills == ("fine",)
        assert none_left(marker, 5)  # gone with the check, not with the worker


def test_a_module_that_exits_leaves_no_process(tmp_path: Path) -> None:
    marker = new_marker()
    with LoadWorker(timeout=10) as worker:
        (error,) = worker.check(module(tmp_path, marker, "_os._exit(7)\n")).diagnostics
    assert error.message == "the module ended the checking process (exit status 7)"
    assert none_left(marker, 5)


def test_a_module_that_hangs_is_stopped_with_everything_it_started(tmp_path: Path) -> None:
    marker = new_marker()
    started = time.monotonic()
    with LoadWorker(timeout=1.5) as worker:
        hang = "import time\nwhile True:\n    time.sleep(0.1)\n"
        (error,) = worker.check(module(tmp_path, marker, hang)).diagnostics
    assert time.monotonic() - started < 1.5 + 4.0
    assert error.message.startswith("importing or checking the module did not finish")
    assert none_left(marker, 5)


def test_skillkit_check_returns_with_nothing_left_behind(tmp_path: Path) -> None:
    marker = new_marker()
    path = module(tmp_path, marker)
    done = subprocess.run(
        [sys.executable, "-m", "skillkit_core.cli", "check", path.name],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "NO_COLOR": "1"},
        timeout=60,  # a sleeper holding the output pipes would keep this waiting
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert none_left(marker, 5)
