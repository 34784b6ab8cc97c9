"""Binary mode (PyInstaller). The end-to-end test is SLOW (PyInstaller runs for tens of
seconds); it is the only one that freezes a program, so the rest stay fast. Skipped when
PyInstaller is missing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import skillkit_core
from skillkit_core.build.binary import launcher_source, pyinstaller_available
from skillkit_core.build.record_data import skill_record_data
from skillkit_core.build.targets import current_target_id
from tests.protocol.support import DEPLOY_CHECK, SKILLKIT


def outside_env(home: Path) -> dict[str, str]:
    """An environment that gives the repository no way onto ``sys.path``."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SKILLKIT_DEBUG")}
    env["HOME"] = str(home)
    return env


@pytest.mark.skipif(not pyinstaller_available(), reason="PyInstaller is not installed")
def test_binary_built_outside_the_repository_runs_a_workflow(tmp_path: Path) -> None:
    # Built as a user would: the CLI, from a folder that is not the repository (the venv
    # holds skillkit as an editable install, which PyInstaller cannot follow by itself).
    folder = tmp_path / "dist" / "deploy-check"
    command = [str(SKILLKIT), "build", DEPLOY_CHECK, "-o", str(folder), "--mode", "binary"]
    done = subprocess.run(
        command, capture_output=True, text=True, cwd=tmp_path, env=outside_env(tmp_path)
    )
    assert done.returncode == 0, done.stdout + done.stderr
    program = folder / "bin" / f"deploy-check-{current_target_id()}" / "deploy-check"
    assert program.is_file() and program.stat().st_mode & 0o111
    assert not list((folder / "bin").glob("*.pyz"))
    bundled = {p.name for p in program.parent.rglob("*")}
    for dev_only in ("typer", "rich", "pygls", "tree_sitter", "yaml", "hypothesis", "_pytest"):
        assert dev_only not in bundled, dev_only

    # No Python on PATH at all: the program carries its own.
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    link = tmp_path / "run-link"
    link.symlink_to(folder / "scripts" / "run")

    def call(*args: str) -> dict:
        done = subprocess.run(
            [str(link), *args], capture_output=True, text=True, cwd=tmp_path, env=env
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


def test_launcher_reports_a_skill_that_cannot_load_as_a_json_error(tmp_path: Path) -> None:
    launcher = tmp_path / "launcher.py"
    launcher.write_text(launcher_source("no_such_skill_module", "skill"), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-I", str(launcher), "start"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=outside_env(tmp_path),
    )
    assert done.returncode == 1
    result = json.loads(done.stdout)
    assert result["kind"] == "error" and result["error"] == "entry"
    assert result["retry"] is False and result["step"] is None
    assert "ModuleNotFoundError" in result["message"]
    assert "no_such_skill_module" in result["message"]
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("skillkit: error[entry]: cannot load the skill")


def test_launcher_runs_the_protocol_of_a_loadable_skill(tmp_path: Path) -> None:
    launcher = tmp_path / "launcher.py"
    launcher.write_text(launcher_source("deploy_check", "deploy_check"), encoding="utf-8")
    skillkit_root = Path(skillkit_core.__file__).parent.parent
    env = outside_env(tmp_path)
    env["PYTHONPATH"] = os.pathsep.join([str(Path(DEPLOY_CHECK).parent), str(skillkit_root)])
    done = subprocess.run(
        [sys.executable, str(launcher), "start"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["kind"] == "prompt"


async def test_the_launcher_serves_the_skills_extension_from_the_builds_record(
    tmp_path: Path,
) -> None:
    """The frozen program gets SKILL.md's record the way the pyz does: from the build."""
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    from skillkit_core.runtime.verify import _call

    folder = tmp_path / "deploy-check"
    folder.mkdir()
    (folder / "SKILL.md").write_text(
        "---\nname: deploy-check\ndescription: Check a deploy.\nversion: 1.0\n---\nBody.\n",
        encoding="utf-8",
    )
    launcher = tmp_path / "launcher.py"
    record = skill_record_data(folder)
    launcher.write_text(launcher_source("deploy_check", "deploy_check", record), encoding="utf-8")
    env = outside_env(tmp_path)
    skillkit_root = Path(skillkit_core.__file__).parent.parent
    env["PYTHONPATH"] = os.pathsep.join([str(Path(DEPLOY_CHECK).parent), str(skillkit_root)])
    env["SKILL_DIR"] = str(folder)
    params = StdioServerParameters(
        command=sys.executable, args=[str(launcher), "mcp"], cwd=str(tmp_path), env=env
    )
    with (tmp_path / "stderr.txt").open("w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            (entry,) = (await _call(session, "skills/list"))["skills"]
    assert entry["uri"] == "skill://deploy-check/SKILL.md"
    assert entry["frontmatter"] == {
        "name": "deploy-check",
        "description": "Check a deploy.",
        "version": 1.0,
    }
