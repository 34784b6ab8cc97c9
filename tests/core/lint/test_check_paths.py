"""Turning command-line paths into targets, and checking them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from skillkit_core.errors import UsageError
from skillkit_core.lint.check_paths import (
    NO_SKILL,
    NO_SKILL_EXIT,
    UNREADABLE,
    CheckRun,
    Target,
    check_paths,
    collect_targets,
    find_skill_folders,
    run_check,
)
from skillkit_core.lint.config import LintConfig
from tests.core.lint.skillmd_support import make_skill, skill_md


def test_folder_with_skill_md_is_one_target_even_with_nested_examples(tmp_path: Path) -> None:
    root = make_skill(tmp_path, "pdf-tools", {"SKILL.md": skill_md(), "assets/x/SKILL.md": ""})
    assert collect_targets([str(root)]) == [Target("manifest", str(root))]


def test_directory_walk_finds_skill_folders_including_dot_claude(tmp_path: Path) -> None:
    a = make_skill(tmp_path / ".claude" / "skills", "a", {"SKILL.md": skill_md("a")})
    b = make_skill(tmp_path / "skills", "b", {"skill.md": skill_md("b")})
    make_skill(tmp_path / "node_modules", "c", {"SKILL.md": skill_md("c")})
    make_skill(tmp_path / ".git", "d", {"SKILL.md": skill_md("d")})
    assert find_skill_folders(tmp_path) == [a, b]
    assert collect_targets([str(tmp_path)]) == [
        Target("manifest", str(a)),
        Target("manifest", str(b)),
    ]


def test_skill_md_file_and_python_entries(tmp_path: Path) -> None:
    root = make_skill(tmp_path)
    entry = tmp_path / "flow.py"
    entry.write_text("x = 1\n")
    targets = collect_targets([str(root / "SKILL.md"), f"{entry}:my_skill", str(entry), str(root)])
    assert targets == [
        Target("manifest", str(root)),
        Target("workflow", str(entry), "my_skill"),
        Target("workflow", str(entry)),
    ]


@pytest.mark.parametrize("bad", ["missing-dir", "notes.txt", "folder:attr"])
def test_bad_paths_are_usage_errors(tmp_path: Path, bad: str, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.txt").write_text("x")
    (tmp_path / "folder").mkdir()
    with pytest.raises(UsageError):
        collect_targets([bad])


def test_no_paths_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="at least one path"):
        collect_targets([])


def test_a_named_python_file_without_a_skill_is_an_error(tmp_path: Path) -> None:
    entry = tmp_path / "flow.py"
    entry.write_text("x = 1\n")
    run = check_paths([str(entry)])
    (report,) = run.reports
    (problem,) = report.diagnostics
    assert (problem.rule, problem.severity) == ("load-error", "error")
    assert problem.message == "the module defines no built skill or reference at top level"
    assert run.exit_code == 1


def test_run_counts_and_exit_codes(tmp_path: Path) -> None:
    good = make_skill(tmp_path, "pdf-tools")
    warn = make_skill(tmp_path, "warned", {"SKILL.md": skill_md("warned", extra="licence: x\n")})
    bad = make_skill(tmp_path, "broken", {"SKILL.md": skill_md("other-name")})
    assert check_paths([str(good)]).exit_code == 0
    assert check_paths([str(warn)]).exit_code == 0
    assert check_paths([str(warn)], LintConfig(strict=True)).exit_code == 1
    run: CheckRun = check_paths([str(tmp_path)])
    assert (run.count("error"), run.count("warning")) == (1, 1)
    assert run.exit_code == 1
    assert check_paths([str(bad)], LintConfig(ignore=("name-*",))).exit_code == 0


def test_host_verdicts_are_computed_only_when_asked(tmp_path: Path) -> None:
    make_skill(tmp_path, "pdf-tools")
    make_skill(tmp_path, "broken", {"SKILL.md": skill_md("other-name")})
    with_hosts = run_check([str(tmp_path)]).run
    without = run_check([str(tmp_path)], hosts=False).run
    assert [len(report.hosts) for report in with_hosts.reports] == [7, 7]
    assert [report.hosts for report in without.reports] == [(), ()]
    assert without.diagnostics == with_hosts.diagnostics
    assert without.exit_code == with_hosts.exit_code == 1


# Paths that hold no skill or cannot be read (issue 17): findings, never a traceback, never
# "no such file", never "No problems found".


def test_a_folder_without_any_skill_is_a_warning_with_its_own_exit_code(tmp_path: Path) -> None:
    (tmp_path / "empty" / "docs").mkdir(parents=True)
    (tmp_path / "empty" / "docs" / "notes.md").write_text("# notes\n")
    run = check_paths([str(tmp_path / "empty")])
    assert [(d.rule, d.severity, d.message) for d in run.diagnostics] == [
        (
            NO_SKILL,
            "warning",
            f"{tmp_path / 'empty'} holds no skill: no SKILL.md folder and no Python skill file",
        )
    ]
    assert run.exit_code == NO_SKILL_EXIT
    # Errors elsewhere still exit 1; --strict does not turn "no skill" into a failure.
    make_skill(tmp_path, "bad", {"SKILL.md": skill_md(name="Bad_Name")})
    assert check_paths([str(tmp_path / "empty"), str(tmp_path / "bad")]).exit_code == 1
    strict = check_paths([str(tmp_path / "empty")], LintConfig(strict=True))
    assert strict.exit_code == NO_SKILL_EXIT


def test_a_folder_that_cannot_be_listed_is_a_finding_and_the_rest_is_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    good = make_skill(tmp_path / "skills", "good", {"SKILL.md": skill_md("good")})
    locked = tmp_path / "skills" / "locked"
    locked.mkdir()
    real_scandir = os.scandir

    def scandir(path: object = ".") -> object:
        if os.fspath(path) == str(locked):  # what a folder without read permission does
            raise PermissionError(13, "Permission denied", str(locked))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    run = check_paths([str(tmp_path)])
    assert [r.target for r in run.reports] == [Target("manifest", str(good))]
    assert [(d.rule, d.severity, d.file, d.message) for d in run.diagnostics] == [
        (
            UNREADABLE,
            "error",
            str(locked),
            f"cannot read {locked}: permission denied; nothing in it was checked",
        )
    ]
    assert run.exit_code == 1


def test_an_argument_that_cannot_be_read_is_a_finding_not_a_missing_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hidden = tmp_path / "locked" / "skill"
    real_stat = os.stat

    def stat(path: object, *args: object, **kwargs: object) -> os.stat_result:
        if os.fspath(path).startswith(str(tmp_path / "locked")):  # a parent without x
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", stat)
    run = check_paths([str(hidden)])
    assert [(d.rule, d.message) for d in run.diagnostics] == [
        (UNREADABLE, f"cannot read {hidden}: permission denied; nothing in it was checked")
    ]


def test_a_symbolic_link_loop_argument_is_unreadable(tmp_path: Path) -> None:
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    run = check_paths([str(loop)])
    assert [(d.rule, d.file) for d in run.diagnostics] == [(UNREADABLE, str(loop))]
    assert "too many levels of symbolic links" in run.diagnostics[0].message


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_links_to_special_files_loops_and_dangling_links_each_say_what_they_are(
    tmp_path: Path,
) -> None:
    body = (
        "See [a](references/pipe.md), [b](references/loop.md), [c](references/gone.md).\n\n"
        "Read `references/pipe.md` first.\n"
    )
    root = make_skill(tmp_path, "pdf-tools", {"SKILL.md": skill_md(body=body)})
    references = root / "references"
    references.mkdir()
    os.mkfifo(references / "pipe.md")
    (references / "loop.md").symlink_to("loop.md")
    (references / "gone.md").symlink_to("nowhere.md")
    run = check_paths([str(root)])
    found = sorted((d.rule, d.file, d.message) for d in run.diagnostics)
    severities = {d.file: d.severity for d in run.diagnostics if d.rule == UNREADABLE}
    pipe, loop = references / "pipe.md", references / "loop.md"
    # A FIFO is no part of the skill (a build leaves it out); a file unread is an error.
    assert severities == {str(pipe): "warning", str(loop): "error"}
    assert found == [
        (
            "broken-link",
            str(root / "SKILL.md"),
            "link target 'references/gone.md' is a symbolic link to a file that does not exist",
        ),
        (
            UNREADABLE,
            str(loop),
            f"cannot read {loop}: too many levels of symbolic links; it was not checked",
        ),
        (
            UNREADABLE,
            str(pipe),
            f"cannot read {pipe}: not a regular file (a FIFO); it was not checked",
        ),
    ]


def test_what_cannot_be_read_is_reported_whatever_the_rule_selection(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_skill(tmp_path, "pdf-tools", {"SKILL.md": skill_md(), "scripts/run.sh": "x"})
    real_scandir = os.scandir

    def scandir(path: object = ".") -> object:
        if os.fspath(path) == str(root / "scripts"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    config = LintConfig(select=("name-format",))
    run = check_paths([str(root), str(tmp_path / "pdf-tools" / "SKILL.md")], config)
    assert [(d.rule, d.file) for d in run.diagnostics] == [(UNREADABLE, str(root / "scripts"))]


def test_a_finding_every_module_of_a_folder_makes_is_reported_once() -> None:
    fixture = Path(__file__).parent / "workflow" / "fixtures" / "references_modules"
    run = check_paths([str(fixture)])
    assert len(run.reports) == 2
    assert [(d.rule, Path(d.file or "").name) for d in run.diagnostics] == [
        ("orphan-references", "legacy.md")
    ]


def test_the_editors_own_rule_may_be_configured_like_any_other(tmp_path: Path) -> None:
    root = make_skill(tmp_path, "pdf-tools", {"SKILL.md": skill_md(name="pdf-tools")})
    outcome = run_check([str(root)], ignore=["unknown-skill-invocation"])
    assert outcome.run.exit_code == 0
    with pytest.raises(UsageError, match="unknown-skill-invocatio"):
        run_check([str(root)], ignore=["unknown-skill-invocatio"])


def test_targets_are_written_and_sorted_as_pathlib_writes_and_sorts_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    nested = make_skill(tmp_path / "a", "b", {"SKILL.md": skill_md("b")})
    dashed = make_skill(tmp_path, "a-b", {"SKILL.md": skill_md("a-b")})
    # pathlib orders by parts: a/b before a-b (as text, '-' sorts before '/').
    expected = [Target("manifest", str(nested)), Target("manifest", str(dashed))]
    assert collect_targets([f"{tmp_path}//./"]) == expected
    assert collect_targets(["./a/b/", ".//a-b/./SKILL.md"]) == [
        Target("manifest", "a/b"),
        Target("manifest", "a-b"),
    ]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs and /dev/zero")
def test_python_files_that_are_no_regular_files_are_passed_over_on_a_walk(
    tmp_path: Path,
) -> None:
    # The walk read each *.py to see whether it defines a skill: a FIFO blocked it for
    # good, and /dev/zero filled the memory.
    import subprocess
    import sys

    os.mkfifo(tmp_path / "pipe.py")
    (tmp_path / "zero.py").symlink_to("/dev/zero")
    # The same for the reader of the files findings point at (a build's validation hung
    # on a FIFO under references/, which a finding named).
    code = (
        "import sys\n"
        "from skillkit_core.lint.check_workflow import defines_skills\n"
        "from skillkit_core.lint.python_source import SourceFiles\n"
        "print([defines_skills(path) for path in sys.argv[1:]])\n"
        "print([SourceFiles().text(path) for path in sys.argv[1:]])\n"
    )
    paths = [str(tmp_path / "pipe.py"), str(tmp_path / "zero.py")]
    done = subprocess.run(
        [sys.executable, "-c", code, *paths], capture_output=True, text=True, timeout=60
    )
    assert done.stdout == "[False, False]\n[None, None]\n", done.stderr
