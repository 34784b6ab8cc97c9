"""``skillkit build`` keeps the skill's code out of its own process: a module that hangs
at import is stopped at the time limit with the line it was stuck on, one that calls
``os._exit`` is reported as such, and no process a module starts outlives the build."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.build.conftest import BUILD_CACHE
from tests.process_support import LINUX, new_marker, none_left, spawns

pytestmark = pytest.mark.skipif(not LINUX, reason="finds processes through /proc")

SKILL = """
from skillkit_core import skill, terminal

spawning = skill(name="spawning", entry="a", description="Starts processes.").step(
    "a", prompt="A.", next=terminal
).build()
"""


def build(tmp_path: Path, source: str, limit: str = "3") -> subprocess.CompletedProcess[str]:
    """``skillkit build --single`` of ``source``, as a user runs it."""
    entry = tmp_path / "spawning.py"
    entry.write_text(source, encoding="utf-8")
    env = {
        **os.environ,
        "SKILLKIT_CACHE_DIR": str(BUILD_CACHE),
        "SKILLKIT_CHECK_TIMEOUT": limit,
        "NO_COLOR": "1",
        "COLUMNS": "300",
    }
    command = [sys.executable, "-m", "skillkit_core.cli", "build", str(entry), "--single"]
    return subprocess.run(
        [*command, "-o", str(tmp_path / "dist" / "spawning")],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,  # a sleeper holding the output pipes would keep this waiting
    )


def error_line(done: subprocess.CompletedProcess[str]) -> str:
    return done.stderr.strip().splitlines()[-1]


def test_a_module_that_hangs_at_import_fails_at_the_time_limit(tmp_path: Path) -> None:
    marker = new_marker()
    hang = "import time\nwhile True:\n    time.sleep(0.1)\n"
    started = time.monotonic()
    done = build(tmp_path, spawns(marker) + hang, limit="2")
    assert time.monotonic() - started < 2 + 15
    assert done.returncode == 1, done.stderr
    line = error_line(done)
    assert line.startswith("error[build]: 'Load the skill' did not finish within 2 s"), line
    stuck = (spawns(marker) + hang).splitlines().index("    time.sleep(0.1)") + 1
    assert line.endswith(f"spawning.py, line {stuck}"), line
    assert "SKILLKIT_CHECK_TIMEOUT" in line
    assert none_left(marker, 5)
    assert not (tmp_path / "dist" / "spawning").exists()


def test_a_module_that_calls_os_exit_says_so(tmp_path: Path) -> None:
    marker = new_marker()
    done = build(tmp_path, spawns(marker) + "_os._exit(7)\n")
    assert done.returncode == 1, done.stderr
    assert error_line(done) == (
        "error[build]: the build process exited with status 7 (os._exit, or a crash) while "
        "the skill's code ran in 'Load the skill'"
    )
    assert "Traceback" not in done.stderr
    assert none_left(marker, 5)


def test_a_module_that_starts_processes_builds_and_leaves_none(tmp_path: Path) -> None:
    marker = new_marker()
    done = build(tmp_path, spawns(marker) + SKILL)
    assert done.returncode == 0, done.stderr
    assert "✓ Load the skill" in done.stderr and "SKILL.md" in done.stdout
    assert (tmp_path / "dist" / "spawning" / "scripts" / "run").exists()
    assert none_left(marker, 5)


def test_a_build_error_of_the_pipeline_still_reads_as_before(tmp_path: Path) -> None:
    done = build(tmp_path, "from skillkit_core import skill\n")
    assert done.returncode == 1
    assert error_line(done).startswith("error[entry]: ")
    assert "Traceback" not in done.stderr
