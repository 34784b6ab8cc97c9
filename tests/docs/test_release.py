"""One version everywhere, and the integration files users copy are valid."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).parents[2]


def test_the_version_is_the_same_everywhere() -> None:
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    extension = json.loads((ROOT / "editors" / "vscode" / "package.json").read_text())
    assert extension["version"] == version
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert re.search(r"^## (\S+)", changelog, re.M).group(1) == version  # type: ignore[union-attr]
    shown = subprocess.run(
        [sys.executable, "-m", "skillkit_core.cli", "version"], capture_output=True, text=True
    )
    assert shown.stdout.strip() == version


def test_the_pre_commit_hooks_validate_and_check_the_project(tmp_path: Path) -> None:
    manifest = ROOT / ".pre-commit-hooks.yaml"
    done = subprocess.run(
        [sys.executable, "-m", "pre_commit", "validate-manifest", str(manifest)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    hooks = {hook["id"]: hook for hook in yaml.safe_load(manifest.read_text())}
    assert set(hooks) == {"skillkit-check", "skillkit-fix"}
    # What pre-commit runs: the entry and args, in the project folder.
    project = tmp_path / "project"
    (project / "notes").mkdir(parents=True)
    (project / "notes" / "SKILL.md").write_text("---\nname: Notes\ndescription: Notes.\n---\n")
    (project / "tool.py").write_text("print('an ordinary script')\n")
    skillkit = [sys.executable, "-m", "skillkit_core.cli"]
    check = hooks["skillkit-check"]
    failed = subprocess.run(
        [*skillkit, *check["entry"].split()[1:], *check["args"]],
        cwd=project,
        text=True,
        capture_output=True,
    )
    assert failed.returncode == 1 and "name-format" in failed.stdout
    assert "tool.py" not in failed.stdout
    fix = hooks["skillkit-fix"]
    fixed = subprocess.run(
        [*skillkit, *fix["entry"].split()[1:], *fix["args"]],
        cwd=project,
        text=True,
        capture_output=True,
    )
    assert fixed.returncode == 0, fixed.stdout
    assert "name: notes" in (project / "notes" / "SKILL.md").read_text()


def test_the_github_actions_example_uploads_sarif() -> None:
    workflow = yaml.safe_load((ROOT / "docs" / "examples" / "github-actions.yml").read_text())
    steps = workflow["jobs"]["check"]["steps"]
    runs = " ".join(step.get("run", "") for step in steps)
    assert "skillkit check . --format sarif > skillkit.sarif" in runs
    upload = [s for s in steps if s.get("uses", "").startswith("github/codeql-action/upload")]
    assert upload and upload[0]["with"]["sarif_file"] == "skillkit.sarif"
