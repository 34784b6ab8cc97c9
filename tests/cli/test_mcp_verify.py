"""``skillkit mcp-verify -- COMMAND…``: the SEP-2640 host-side check of any stdio server,
run here against ``skillkit serve``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SKILLKIT = Path(sys.executable).parent / "skillkit"
SERVE = [sys.executable, "-m", "skillkit_core.cli", "serve"]


def _skill(root: Path, name: str, body: str) -> None:
    folder = root / name
    (folder / "references").mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: A skill for the verify test.\nx-team: tools\n---\n"
        f"# {name}\n\n{body}\n\nSee [the guide](references/guide.md).\n"
    )
    (folder / "references" / "guide.md").write_text("# Guide\n")


def _verify(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(SKILLKIT), "mcp-verify", *args], capture_output=True, text=True, timeout=120
    )


def test_a_clean_server_verifies(tmp_path: Path) -> None:
    _skill(tmp_path, "clean", "Do the thing.")
    done = _verify("--format", "json", "--", *SERVE, str(tmp_path))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] is True and report["declared"] is True
    (skill,) = report["skills"]
    assert skill["uri"] == "skill://clean/SKILL.md" and skill["files"] == 2
    assert skill["verified"] is True
    assert [(f["rule"], f["severity"]) for f in skill["findings"]] == [("unknown-key", "warning")]


def test_a_lint_error_fails_the_check_and_is_named(tmp_path: Path) -> None:
    _skill(tmp_path, "leaky", "Deploy with the key AKIAZ7QK2M4PXWN9RT5V.")
    done = _verify("--", *SERVE, str(tmp_path))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "FAILED skill://leaky/SKILL.md (2 file(s))" in done.stdout
    assert "error[secret-literal] SKILL.md:8" in done.stdout
    assert done.stdout.rstrip().endswith("1 of 1 skill(s) verified, 1 with lint errors; FAILED")


def test_a_server_that_cannot_start_is_a_clear_error(tmp_path: Path) -> None:
    done = _verify("--", str(tmp_path / "no-such-server"))
    assert done.returncode == 2
    assert done.stderr.startswith("error[mcp]: cannot check ")
    usage = _verify()
    assert usage.returncode == 2 and "usage: skillkit mcp-verify" in usage.stderr


def test_a_server_that_never_answers_is_given_up_on(tmp_path: Path) -> None:
    import time

    started = time.monotonic()
    done = _verify("--timeout", "1", "--", "sleep", "1000")
    assert time.monotonic() - started < 30
    assert done.returncode == 2
    assert (
        done.stderr == "error[mcp]: cannot check sleep: MCPError: Request 'initialize' timed out\n"
    )


def test_a_server_that_exits_at_once_is_named_not_a_task_group() -> None:
    done = _verify("--", "true")
    assert done.returncode == 2
    assert done.stderr == "error[mcp]: cannot check true: MCPError: Connection closed\n"
