"""``# skillkit: ignore[rule]`` in skill modules: on the line, on the step's call, file-wide."""

from __future__ import annotations

from pathlib import Path

from skillkit_core.lint.load_worker import check_file
from skillkit_core.lint.python_source import python_suppressions
from tests.core.lint.workflow.support import findings

HEADER = "from skillkit_core import skill, terminal\n\n"


def _skill(tmp_path: Path, steps: str, extra: str = "") -> Path:
    path = tmp_path / "flow.py"
    path.write_text(
        HEADER
        + extra
        + 'flow = (\n    skill(name="flow", entry="a", description="A flow.")\n'
        + steps
        + "    .build()\n)\n"
    )
    return path


def test_marker_on_the_line_hides_that_rule_there(tmp_path: Path) -> None:
    path = _skill(
        tmp_path,
        '    .step("a", prompt="Go.", next="bee")  # skillkit: ignore[unknown-step]\n'
        '    .step("b", prompt="Use TodoWrite.", next=terminal)  # skillkit: ignore[cycle-guard]\n',
    )
    report = check_file(path)
    # the other marker names another rule, so TodoWrite is still reported
    assert findings(report.diagnostics) == [("no-host-tool-names", "error", 6)]
    assert report.suppressed == 1


def test_marker_on_the_steps_call_covers_the_whole_step(tmp_path: Path) -> None:
    path = _skill(
        tmp_path,
        '    .step("a", prompt="Start.", next=terminal)\n'
        "    # skillkit: ignore[unreachable-step, no-host-tool-names]\n"
        "    .step(\n"
        '        "b",\n'
        '        prompt="Use AskUserQuestion to ask.",\n'
        "        next=terminal,\n"
        "    )\n",
    )
    report = check_file(path)
    assert report.diagnostics == []
    assert report.suppressed == 2


def test_bare_marker_hides_every_rule_and_file_marker_the_whole_file(tmp_path: Path) -> None:
    path = _skill(
        tmp_path,
        '    .step("a", prompt="Use TodoWrite.", next=terminal)  # skillkit: ignore\n'
        '    .step("b", prompt="Use TodoWrite.", next="z")\n',
        extra="# skillkit: ignore-file[unreachable-step]\n",
    )
    report = check_file(path)
    assert findings(report.diagnostics) == [
        ("no-host-tool-names", "error", 7),
        ("unknown-step", "error", 7),
    ]
    assert report.suppressed == 2  # a's tool name; b being unreachable


def test_marker_text_inside_a_string_is_not_a_marker() -> None:
    text = 'x = "# skillkit: ignore[unknown-step]"\ny = 1  # skillkit: ignore[dead-end]\n'
    markers = python_suppressions(text)
    assert not markers.suppresses("unknown-step", 0)
    assert markers.suppresses("dead-end", 1)
    assert not markers.suppresses("dead-end", 2)  # a trailing comment covers its own line


def test_reference_files_take_markdown_markers(tmp_path: Path) -> None:
    references = tmp_path / "references"
    references.mkdir()
    (references / "kept.md").write_text("<!-- skillkit: ignore[orphan-references] -->\n# Kept\n")
    (references / "stray.md").write_text("# Stray\n")
    path = _skill(tmp_path, '    .step("a", prompt="Start.", next=terminal)\n')
    report = check_file(path)
    assert [(d.rule, Path(d.file).name) for d in report.diagnostics] == [  # type: ignore[arg-type]
        ("orphan-references", "stray.md")
    ]
    assert report.suppressed == 1
