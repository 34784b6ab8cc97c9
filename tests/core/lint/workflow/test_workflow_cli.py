"""``skillkit check`` on Python skill files, run as a user runs it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from skillkit_core.lint.check_workflow import defines_skills, find_skill_sources
from tests.core.lint.workflow.support import FIXTURES


def skillkit(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "skillkit_core.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "COLUMNS": "200", "NO_COLOR": "1", **env},
        check=False,
        timeout=120,
    )


def _project(tmp_path: Path, *fixtures: str) -> Path:
    for fixture in fixtures:
        shutil.copy(FIXTURES / fixture, tmp_path / Path(fixture).name)
    return tmp_path


def test_text_output_groups_by_file_with_positions_and_frames(tmp_path: Path) -> None:
    _project(tmp_path, "unknown_step_bad.py")
    done = skillkit("check", "unknown_step_bad.py", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    out = done.stdout
    assert out.startswith("unknown_step_bad.py\n")
    assert (
        "unknown_step_bad.py:20:70: error [unknown-step] step 'choose': next 'verfiy' is not "
        "a step; did you mean 'verify'? (step 'choose') (fixable)"
    ) in out
    assert '> 20 │     .step("choose", prompt="Which version?"' in out
    assert "Found 7 errors in 1 target. (5 fixable with --fix)" in out


def test_clean_file_exits_0_and_attr_entries_work(tmp_path: Path) -> None:
    _project(tmp_path, "graph_good.py")
    done = skillkit("check", "graph_good.py:audit", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "No problems found in 1 target." in done.stdout


def test_warnings_fail_only_with_strict(tmp_path: Path) -> None:
    _project(tmp_path, "host_tools_good.py")
    (tmp_path / "host_tools_good.py").write_text(
        (FIXTURES / "host_branching_good.py").read_text().replace("AskUserQuestion", "AskUser")
    )
    assert skillkit("check", "host_tools_good.py", cwd=tmp_path).returncode == 0
    assert skillkit("check", "host_tools_good.py", "--strict", cwd=tmp_path).returncode == 1


def test_json_sarif_and_github_formats(tmp_path: Path) -> None:
    _project(tmp_path, "graph_bad.py")
    document = json.loads(skillkit("check", "graph_bad.py", "--format=json", cwd=tmp_path).stdout)
    first = document["diagnostics"][0]
    assert first["rule"] == "unguarded-store-access"
    assert first["file"] == "graph_bad.py"
    assert first["step"] == "report"
    assert first["range"] == {"line": 26, "column": 57, "end_line": 26, "end_column": 63}
    assert document["summary"]["errors"] == 2 and document["summary"]["warnings"] == 2

    sarif = json.loads(skillkit("check", "graph_bad.py", "--format", "sarif", cwd=tmp_path).stdout)
    result = sarif["runs"][0]["results"][0]
    assert result["ruleId"] == "unguarded-store-access"
    region = result["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (27, 58)
    rules = {rule["id"] for rule in sarif["runs"][0]["tool"]["driver"]["rules"]}
    assert rules == {"unguarded-store-access", "unreachable-step", "dead-end"}

    github = skillkit("check", "graph_bad.py", "--format", "github", cwd=tmp_path).stdout
    assert github.splitlines()[0] == (
        "::warning file=graph_bad.py,line=27,col=58,endLine=27,endColumn=64,"
        "title=unguarded-store-access::step 'report' reads ctx.store.steps['scan'], which "
        "raises when 'scan' has not run: not every path from the entry to 'report' passes "
        "through 'scan'. Use ctx.store.steps.get('scan') and handle None"
    )


def test_select_ignore_and_pyproject_configuration(tmp_path: Path) -> None:
    _project(tmp_path, "graph_bad.py")
    selected = skillkit("check", "graph_bad.py", "--select=dead-end", "--format=json", cwd=tmp_path)
    assert {d["rule"] for d in json.loads(selected.stdout)["diagnostics"]} == {"dead-end"}
    (tmp_path / "pyproject.toml").write_text(
        '[tool.skillkit]\nignore = ["dead-end"]\n[tool.skillkit.severity]\n'
        '"unreachable-step" = "error"\n'
    )
    configured = json.loads(skillkit("check", "graph_bad.py", "--format=json", cwd=tmp_path).stdout)
    assert [(d["rule"], d["severity"]) for d in configured["diagnostics"]] == [
        ("unguarded-store-access", "warning"),
        ("unreachable-step", "error"),
    ]


def test_fix_rewrites_the_file_and_reports_what_is_left(tmp_path: Path) -> None:
    _project(tmp_path, "unknown_step_bad.py")
    done = skillkit("check", "unknown_step_bad.py", "--fix", cwd=tmp_path)
    assert "Applied 5 fixes in 1 file." in done.stdout
    assert "Found 2 errors in 1 target." in done.stdout
    assert 'next="verify"' in (tmp_path / "unknown_step_bad.py").read_text()


def test_a_hanging_module_is_reported_within_the_time_limit(tmp_path: Path) -> None:
    _project(tmp_path, "load_errors/hangs.py", "graph_good.py")
    done = skillkit(
        "check",
        "hangs.py",
        "graph_good.py",
        "--format",
        "json",
        cwd=tmp_path,
        SKILLKIT_CHECK_TIMEOUT="1",
    )
    assert done.returncode == 1
    (error,) = json.loads(done.stdout)["diagnostics"]
    assert error["rule"] == "load-error" and error["file"] == "hangs.py"
    assert "did not finish within 1 s" in error["message"]


def test_directories_are_walked_for_skill_files(tmp_path: Path) -> None:
    skills = tmp_path / "skills"
    skills.mkdir()
    _project(skills, "graph_bad.py", "composite_good.py")
    (skills / "helpers.py").write_text("def skill(x):\n    return x\n\nskill(1)\n")
    (skills / "test_flow.py").write_text(
        "from skillkit_core.testing import run_skill\n\ndef test_it():\n    run_skill\n"
    )
    (skills / "notes.py").write_text('import skillkit_core\nTEXT = "skill(name=...)"\n')
    hidden = tmp_path / "node_modules"
    hidden.mkdir()
    shutil.copy(FIXTURES / "graph_bad.py", hidden / "graph_bad.py")
    assert find_skill_sources(tmp_path, {"node_modules"}) == [
        skills / "composite_good.py",
        skills / "graph_bad.py",
    ]
    assert not defines_skills(skills / "notes.py")
    done = skillkit("check", ".", "--format", "json", cwd=tmp_path)
    document = json.loads(done.stdout)
    assert document["summary"]["targets"] == 2
    assert {d["file"] for d in document["diagnostics"]} == {"skills/graph_bad.py"}
