"""Shared by the headless editor smoke tests: the configuration the editors guide gives for
an editor (so the guide's copy-paste block is what the test runs), a private copy of the
LSP tests' linked-skills workspace (a git repository, as a user's project is: clients find
the root by ``.git``) and one editor session run to completion, its JSON report read back."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

LINKED_SKILLS = Path(__file__).parents[1] / "lsp" / "linked_skills"
GUIDE = Path(__file__).parents[2] / "docs" / "guides" / "editors.md"


def guide_configuration(heading: str, language: str, python: str) -> str:
    """The first ``language`` code block under the guide's ``### heading``, with the
    guide's ``python3`` replaced by ``python`` (the interpreter that has skillkit here)."""
    text = GUIDE.read_text(encoding="utf-8")
    section = text.split(f"\n### {heading}\n", 1)[1].split("\n## ", 1)[0].split("\n### ", 1)[0]
    block = re.search(rf"```{language}\n(.*?)\n```", section, re.DOTALL)
    assert block, f"the guide has no {language} block under '{heading}'"
    configuration = block.group(1)
    assert "python3" in configuration, "the guide's server command changed: update the test"
    quote = '"' if language == "elisp" else "'"
    quoted = json.dumps(python) if language == "elisp" else "'" + python.replace("'", "''") + "'"
    return configuration.replace(f"{quote}python3{quote}", quoted)


def linked_workspace(parent: Path) -> Path:
    """A copy of ``tests/lsp/linked_skills`` under ``parent``, made a git repository."""
    root = parent / "skills"
    shutil.copytree(LINKED_SKILLS, root)
    if shutil.which("git"):
        subprocess.run(["git", "init", "-q", str(root)], check=True)
    else:
        (root / ".git").mkdir()  # enough for the clients' root detection
    return root


def run_guide_session(
    parent: Path, editor: str, language: str, configuration: str, command: list[str]
) -> tuple[dict[str, Any], Path]:
    """Run an editor session (``command``) in a linked-skills workspace under ``parent``
    with the guide's ``language`` block for ``### editor`` written to ``configuration``
    (named by ``SKILLKIT_CONFIG``), on ``pdf-tools/SKILL.md`` (``SKILLKIT_FILE``), its home
    ``parent`` (no user init, no state left in the real home); its report and the
    workspace."""
    root = linked_workspace(parent)
    out = parent / "seen.json"
    config = parent / configuration
    config.write_text(guide_configuration(editor, language, sys.executable))
    env = {
        **os.environ,
        "HOME": str(parent),
        "SKILLKIT_CONFIG": str(config),
        "SKILLKIT_FILE": str(root / "pdf-tools" / "SKILL.md"),
        "SKILLKIT_OUT": str(out),
    }
    return run_session(command, cwd=root, env=env, out=out), root


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
