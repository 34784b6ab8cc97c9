"""The README's main job (``make demo``) runs from start to end on the bundled example."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]


def test_the_demo_checks_previews_simulates_builds_and_calls_the_skill(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "demo.py")],
        capture_output=True,
        text=True,
        env={**os.environ, "SKILLKIT_DEMO_OUT": str(tmp_path)},
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    out = done.stdout
    for heading in ("== skillkit check", "== skillkit preview", "== skillkit simulate"):
        assert heading in out
    assert "path: choose -> verify -> deploy" in out
    assert "flowchart" in out  # the Mermaid graph
    assert (
        (tmp_path / "deploy-check" / "SKILL.md").read_text().startswith("---\nname: deploy-check")
    )
    assert "kind: prompt, step: choose" in out
    assert '<ask-user type="structured" question="Which environment?">' in out
