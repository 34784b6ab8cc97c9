"""Shared by the headless editor smoke tests: a private copy of the LSP tests' linked-skills
workspace (a git repository, as a user's project is: clients find the root by ``.git``)
and one editor session run to completion, its JSON report read back."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

LINKED_SKILLS = Path(__file__).parents[1] / "lsp" / "linked_skills"


def linked_workspace(parent: Path) -> Path:
    """A copy of ``tests/lsp/linked_skills`` under ``parent``, made a git repository."""
    root = parent / "skills"
    shutil.copytree(LINKED_SKILLS, root)
    if shutil.which("git"):
        subprocess.run(["git", "init", "-q", str(root)], check=True)
    else:
        (root / ".git").mkdir()  # enough for the clients' root detection
    return root


def run_session(
    command: list[str], *, cwd: Path, env: dict[str, str], out: Path, timeout: float = 180
) -> dict[str, Any]:
    """Run an editor session that writes its report to ``out``; the report, with any
    failure to finish recorded under ``errors``."""
    said = ""
    try:
        done = subprocess.run(
            command,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        said = done.stdout[-2000:] + done.stderr[-2000:]
    except subprocess.TimeoutExpired:
        said = f"the editor did not finish within {timeout} s"
    assert out.exists(), f"the session wrote nothing: {said}"
    seen = json.loads(out.read_text(encoding="utf-8"))
    if not isinstance(seen.get("errors"), dict):
        seen["errors"] = {}  # an empty JSON object may arrive as [] or as a string
    if said.startswith("the editor did not finish"):
        seen["errors"]["session"] = said
    seen["output"] = said
    return seen
