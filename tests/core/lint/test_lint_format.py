"""Output formats of skillkit check: text, JSON, SARIF, GitHub annotations, hosts."""

from __future__ import annotations

import io
import json
from pathlib import Path

from rich.console import Console

from skillkit_core.lint import format as formats
from skillkit_core.lint.check_paths import check_paths
from tests.core.lint.skillmd_support import make_skill, skill_md

BAD = skill_md(name="PDF_Tools", extra="licence: MIT\n", body="See [x](references/x.md).\n")


def run_for(tmp_path: Path):
    root = make_skill(tmp_path, "pdf-tools", {"SKILL.md": BAD})
    return root, check_paths([str(root)])


def render(run, hosts: bool = False) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, width=100, color_system=None, highlight=False, soft_wrap=True)
    formats.render_text(run, console)
    if hosts:
        formats.render_hosts(run, console)
    return buffer.getvalue()


def test_text_groups_by_file_with_positions_and_code_frames(tmp_path: Path) -> None:
    root, run = run_for(tmp_path)
    text = render(run)
    skill = str(root / "SKILL.md")
    assert text.startswith(skill + "\n")
    headline = f"  {skill}:2:7: error [name-format] name 'PDF_Tools' must be lowercase"
    assert headline + " (fixable)\n" in text
    assert "  > 2 │ name: PDF_Tools\n" in text
    assert "      │       ^^^^^^^^^\n" in text
    assert f"{skill}:6:9: error [broken-link]" in text
    assert text.rstrip().endswith("Found 4 errors, 1 warning in 1 target. (3 fixable with --fix)")


def test_hosts_matrix_lists_each_consumer(tmp_path: Path) -> None:
    _, run = run_for(tmp_path)
    text = render(run, hosts=True)
    for label in ("strict spec validator", "Claude Code", "VS Code", "Codex"):
        assert label in text
    assert "keys outside the specification: licence" in text


def test_json_document(tmp_path: Path) -> None:
    root, run = run_for(tmp_path)
    document = json.loads(formats.render_json(run, hosts=True))
    assert document["summary"] == {
        "targets": 1,
        "errors": 4,
        "warnings": 1,
        "info": 0,
        "fixable": 3,
        "suppressed": 0,
        "exit_code": 1,
    }
    first = document["diagnostics"][0]
    assert first["rule"] == "name-folder-mismatch"
    assert first["range"] == {"line": 1, "column": 6, "end_line": 1, "end_column": 15}
    fixed = next(d for d in document["diagnostics"] if d["fix"])
    assert fixed["fix"]["edits"][0]["new_text"] == "pdf-tools"
    verdicts = document["hosts"][0]["verdicts"]
    assert [v["consumer"] for v in verdicts] == [
        "spec",
        "claude-api",
        "claude-code",
        "vscode",
        "codex",
    ]
    assert document["hosts"][0]["target"] == str(root)


def test_sarif_log(tmp_path: Path) -> None:
    _, run = run_for(tmp_path)
    log = json.loads(formats.render_sarif(run))
    assert log["version"] == "2.1.0"
    (sarif_run,) = log["runs"]
    assert sarif_run["columnKind"] == "unicodeCodePoints"
    rules = sarif_run["tool"]["driver"]["rules"]
    results = sarif_run["results"]
    assert len(results) == 5
    for result in results:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
    region = results[0]["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": 2, "startColumn": 7, "endLine": 2, "endColumn": 16}
    assert results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].startswith(
        "file:///"
    )


def test_github_annotations_escape_properties_and_data(tmp_path: Path) -> None:
    root, run = run_for(tmp_path)
    lines = formats.render_github(run).splitlines()
    assert lines[0].startswith(f"::error file={root}/SKILL.md,line=2,col=7,endLine=2,endColumn=16,")
    assert "title=name-folder-mismatch::" in lines[0]
    assert formats._escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"
    assert lines[-1].startswith("Found 4 errors")


def test_clean_run_summary(tmp_path: Path) -> None:
    run = check_paths([str(make_skill(tmp_path))])
    assert formats.summary(run) == "No problems found in 1 target."
