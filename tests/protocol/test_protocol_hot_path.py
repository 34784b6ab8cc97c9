"""The per-step path stays light: no typer, rich, pygls, tree-sitter, yaml or mcp (and no
asyncio for a skill without actions or observers) is imported by a ``scripts/run`` call."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.protocol.support import AUTOPILOT, DEPLOY_CHECK, ROOT, TRIAGE

HEAVY = ("typer", "click", "rich", "pygls", "lsprotocol", "tree_sitter", "yaml", "mcp", "anyio")


def imported_modules(*args: str, env: dict[str, str] | None = None) -> tuple[set[str], str]:
    """Top-level names of every module a protocol call imports (``-X importtime``)."""
    argv = [sys.executable, "-X", "importtime", "-m", "skillkit_core.protocol", *args]
    done = subprocess.run(
        argv, capture_output=True, text=True, cwd=ROOT, env={**os.environ, **(env or {})}
    )
    names = set()
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            name = line.rsplit("|", 1)[1].strip()
            names.add(name.split(".")[0])
    assert done.returncode == 0, done.stdout + done.stderr[-2000:]
    return names, done.stdout


@pytest.mark.parametrize(
    "args",
    [
        [DEPLOY_CHECK, "--host", "claude-code"],
        [
            DEPLOY_CHECK,
            "advance",
            "--step",
            "choose",
            "--output",
            '{"target": "staging"}',
            "--history",
            "[]",
        ],
        [TRIAGE, "topic", "policy"],
        [TRIAGE, "--help"],
    ],
    ids=["start", "advance", "topic", "help"],
)
def test_protocol_calls_import_nothing_heavy(args: list[str]) -> None:
    names, _ = imported_modules(*args)
    assert not names & {*HEAVY, "asyncio"}, sorted(names & {*HEAVY, "asyncio"})
    assert "skillkit_core" in names  # the check itself sees our imports


def test_session_calls_import_nothing_heavy(tmp_path: Path) -> None:
    folder = ["--session-dir", str(tmp_path)]
    names, out = imported_modules(DEPLOY_CHECK, "--session", "new", *folder)
    assert not names & {*HEAVY, "asyncio"}
    session = json.loads(out)["sessionId"]
    names, _ = imported_modules(
        DEPLOY_CHECK,
        "advance",
        "--session",
        session,
        *folder,
        "--step",
        "choose",
        "--output",
        '{"target": "staging"}',
    )
    assert not names & {*HEAVY, "asyncio"}, sorted(names & {*HEAVY, "asyncio"})


def test_skills_with_actions_get_an_event_loop_but_nothing_heavy(tmp_path: Path) -> None:
    params = json.dumps({"log": str(tmp_path / "log")})
    names, _ = imported_modules(AUTOPILOT, "--params", params)
    assert "asyncio" in names
    assert not names & set(HEAVY)
