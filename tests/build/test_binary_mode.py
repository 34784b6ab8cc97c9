"""Binary mode (PyInstaller), end to end. SLOW: about a minute; the only binary-mode
test, so the rest of the build tests stay fast. Skipped when PyInstaller is missing."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from skillkit_core.build.binary import pyinstaller_available
from skillkit_core.build.targets import current_target_id
from tests.build.conftest import build
from tests.protocol.support import DEPLOY_CHECK


@pytest.mark.skipif(not pyinstaller_available(), reason="PyInstaller is not installed")
def test_binary_mode_builds_a_standalone_program_that_runs_a_workflow(tmp_path: Path) -> None:
    result = build(DEPLOY_CHECK, tmp_path / "dist", mode="binary")
    folder = result.out_dir
    program = folder / "bin" / f"deploy-check-{current_target_id()}" / "deploy-check"
    assert program.is_file() and program.stat().st_mode & 0o111
    assert not list((folder / "bin").glob("*.pyz"))
    assert result.targets == (current_target_id(),)
    bundled = {p.name for p in program.parent.rglob("*")}
    for dev_only in ("typer", "rich", "pygls", "tree_sitter"):
        assert dev_only not in bundled, dev_only

    # No Python on PATH at all: the program carries its own.
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    link = tmp_path / "run-link"
    link.symlink_to(folder / "scripts" / "run")
    elsewhere = tmp_path / "project"
    elsewhere.mkdir()

    def call(*args: str) -> dict:
        done = subprocess.run(
            [str(link), *args], capture_output=True, text=True, cwd=elsewhere, env=env
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return json.loads(done.stdout)

    sessions = str(tmp_path / "sessions")
    pointer = call("start", "--session", "new", "--session-dir", sessions)
    session_file = Path(pointer["file"])
    answers = [
        ("choose", {"target": "staging"}),
        ("verify", {"blockers": [], "safe": True}),
        ("deploy", {"url": "https://staging.example.com"}),
    ]
    for step, output in answers:
        with session_file.open("a") as handle:
            handle.write(json.dumps({"type": "output", "step": step, "output": output}) + "\n")
        line = call("advance", "--session", pointer["sessionId"], "--session-dir", sessions)
        result_line = json.loads(session_file.read_text().splitlines()[line - 1])
    assert result_line["type"] == "done"
    assert result_line["finalOutput"] == {"url": "https://staging.example.com"}
