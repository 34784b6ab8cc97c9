"""``skillkit check``, ``skillkit rules`` and ``skillkit explain`` run as a user runs them."""

from __future__ import annotations

import getopt
import inspect
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from skillkit_core.cli import app
from skillkit_core.errors import SkillkitError
from skillkit_core.lint.check_command import OPTIONS, parse_options, read_words
from tests.core.lint.skillmd_support import make_skill, skill_md


def skillkit(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "skillkit_core.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        check=False,
        timeout=60,
    )


def test_clean_folder_exits_0(tmp_path: Path) -> None:
    make_skill(tmp_path)
    done = skillkit("check", "pdf-tools", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "No problems found in 1 target." in done.stdout


def test_errors_exit_1_with_file_line_col(tmp_path: Path) -> None:
    make_skill(tmp_path, "pdf", {"SKILL.md": skill_md("pdf-tools")})
    done = skillkit("check", ".", cwd=tmp_path)
    assert done.returncode == 1
    assert "pdf/SKILL.md:2:7: error [name-folder-mismatch]" in done.stdout
    assert "> 2 │ name: pdf-tools" in done.stdout


def test_strict_fails_on_warnings(tmp_path: Path) -> None:
    make_skill(tmp_path, "pdf-tools", {"SKILL.md": skill_md(extra="licence: MIT\n")})
    assert skillkit("check", "pdf-tools", cwd=tmp_path).returncode == 0
    assert skillkit("check", "pdf-tools", "--strict", cwd=tmp_path).returncode == 1


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    make_skill(tmp_path)
    for args in (
        ("check", "missing"),
        ("check", "pdf-tools", "--format", "xml"),
        ("check", "pdf-tools", "--select", "no-such-rule"),
        ("check", "pdf-tools", "--bogus-flag"),
        ("check",),
    ):
        done = skillkit(*args, cwd=tmp_path)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
    done = skillkit("check", "missing", cwd=tmp_path)
    assert done.stderr.strip() == "error[usage]: no such file or folder: missing"
    assert "Traceback" not in done.stderr


def test_select_ignore_and_pyproject_config(tmp_path: Path) -> None:
    make_skill(tmp_path, "pdf", {"SKILL.md": skill_md("pdf-tools", extra="licence: MIT\n")})
    ignored = skillkit("check", "pdf", "--ignore", "name-folder-mismatch", cwd=tmp_path)
    assert ignored.returncode == 0
    selected = skillkit("check", "pdf", "--select", "unknown-key", "--format", "json", cwd=tmp_path)
    rules = {d["rule"] for d in json.loads(selected.stdout)["diagnostics"]}
    assert rules == {"unknown-key"}
    (tmp_path / "pyproject.toml").write_text(
        '[tool.skillkit]\nignore = ["name-*"]\nstrict = true\n', encoding="utf-8"
    )
    configured = skillkit("check", "pdf", "--format", "json", cwd=tmp_path)
    assert configured.returncode == 1  # strict from the config, the warning remains
    assert {d["rule"] for d in json.loads(configured.stdout)["diagnostics"]} == {"unknown-key"}
    (tmp_path / "pyproject.toml").write_text("[tool.skillkit]\nstrict = 'x'\n")
    broken = skillkit("check", "pdf", cwd=tmp_path)
    assert broken.returncode == 2
    assert broken.stderr.startswith("error[config]:")


def test_formats_sarif_and_github(tmp_path: Path) -> None:
    make_skill(tmp_path, "pdf", {"SKILL.md": skill_md("pdf-tools")})
    sarif = json.loads(skillkit("check", "pdf", "--format", "sarif", cwd=tmp_path).stdout)
    assert sarif["runs"][0]["results"][0]["ruleId"] == "name-folder-mismatch"
    github = skillkit("check", "pdf", "--format", "github", cwd=tmp_path).stdout
    assert github.startswith("::error file=pdf/SKILL.md,line=2,col=7,")


def test_fix_rewrites_files_and_reports_what_is_left(tmp_path: Path) -> None:
    root = make_skill(
        tmp_path,
        "pdf-tools",
        {"SKILL.md": "---\nname: PDF_Tools\ndescription: Text. Use when: PDFs\n---\nx\n"},
    )
    done = skillkit("check", "pdf-tools", "--fix", cwd=tmp_path)
    assert done.returncode == 0, done.stdout
    # name-format's fix writes the spec form (the folder's name); name-folder-mismatch
    # offers no safe fix of its own (renaming a skill is a person's choice).
    assert "Applied 3 fixes in 1 file." in done.stdout
    assert (root / "SKILL.md").read_text() == (
        '---\nname: pdf-tools\ndescription: "Text. Use when: PDFs"\n---\nx\n'
    )


BROKEN = "---\nname: PDF_Tools\ndescription: Text. Use when: PDFs\n---\nx\n"


def test_fix_never_writes_through_a_link_to_a_file_outside_the_skill(tmp_path: Path) -> None:
    outside = tmp_path / "outside" / "REAL.md"
    outside.parent.mkdir()
    outside.write_text(BROKEN)
    root = make_skill(tmp_path / "skills", "pdf-tools", {"SKILL.md": "placeholder"})
    (root / "SKILL.md").unlink()
    (root / "SKILL.md").symlink_to(outside)
    done = skillkit("check", "skills", "--fix", "--no-cache", cwd=tmp_path)
    assert outside.read_text() == BROKEN
    assert "Applied 0 fixes in 0 files." in done.stdout
    # Not read at all: a SKILL.md linked to /proc/self/environ printed the environment.
    assert (
        "skills/pdf-tools/SKILL.md:1:1: error [skill-md-unreadable] cannot read "
        "skills/pdf-tools/SKILL.md: it is a symbolic link to a file outside the skill "
        "folder, which is not read\n\n"
    ) in done.stdout
    assert "description" not in done.stdout  # no frame drawn from the file either


def test_fix_never_writes_through_a_link_inside_the_skill(tmp_path: Path) -> None:
    root = make_skill(tmp_path / "skills", "pdf-tools", {"SKILL.md": "placeholder"})
    (root / "docs").mkdir()
    (root / "docs" / "REAL.md").write_text(BROKEN)
    (root / "SKILL.md").unlink()
    (root / "SKILL.md").symlink_to(Path("docs") / "REAL.md")
    done = skillkit("check", "skills", "--fix", "--no-cache", cwd=tmp_path)
    assert (root / "docs" / "REAL.md").read_text() == BROKEN
    assert "Applied 0 fixes in 0 files." in done.stdout
    assert done.stderr == (
        "warning: not fixed: skills/pdf-tools/SKILL.md: a symbolic link; fix the file it "
        "leads to by hand\n"
    )
    # What --fix refused is not offered again as "fixable with --fix".
    assert "fixable with --fix" not in done.stdout
    assert done.stdout.rstrip().endswith("fixable but not fixed)")


@pytest.mark.skipif(
    not hasattr(os, "getuid") or os.getuid() != 0 or not shutil.which("unshare"),
    reason="mounts the skill read-only in a mount namespace of its own: needs root",
)
def test_fix_on_a_file_that_cannot_be_written_says_so_without_a_traceback(tmp_path: Path) -> None:
    root = make_skill(tmp_path, "pdf-tools", {"SKILL.md": BROKEN})
    command = (
        f"mount --bind {root} {root} && mount -o remount,ro,bind {root} && "
        f'exec "$0" -m skillkit_core.cli check pdf-tools --fix --no-cache'
    )
    done = subprocess.run(
        ["unshare", "--mount", "sh", "-c", command, sys.executable],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "COLUMNS": "200", "NO_COLOR": "1"},
        timeout=60,
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr == "warning: not fixed: pdf-tools/SKILL.md: Read-only file system\n"
    assert (root / "SKILL.md").read_text() == BROKEN
    assert sorted(p.name for p in root.iterdir()) == ["SKILL.md"]  # no temporary file left


def test_hosts_matrix(tmp_path: Path) -> None:
    make_skill(tmp_path, "pdf-tools", {"SKILL.md": skill_md(extra="context: fork\n")})
    done = skillkit("check", "pdf-tools", "--hosts", cwd=tmp_path)
    assert "Host compatibility" in done.stdout
    assert "keys outside the specification: context" in done.stdout
    as_json = skillkit("check", "pdf-tools", "--hosts", "--format", "json", cwd=tmp_path)
    data = json.loads(as_json.stdout)
    loads = [v["loads"] for v in data["hosts"][0]["verdicts"]]
    assert loads == [False, False, True, True, True, True, True]


def test_rules_and_explain(tmp_path: Path) -> None:
    listing = skillkit("rules", cwd=tmp_path)
    assert listing.returncode == 0
    assert "name-format" in listing.stdout and "broken-link" in listing.stdout
    as_json = json.loads(skillkit("rules", "--format", "json", cwd=tmp_path).stdout)
    assert {"id", "severity", "summary", "rationale", "bad", "good"} <= set(as_json[0])
    explained = skillkit("explain", "script-shebang", cwd=tmp_path)
    assert explained.returncode == 0
    assert "## Bad" in explained.stdout and "## Good" in explained.stdout
    from skillkit_core.lint.registry import get_rule
    from skillkit_core.lint.rules_doc import rule_markdown

    # The same text as the rule's page on the docs site and behind the editor's link.
    assert explained.stdout == rule_markdown(get_rule("script-shebang"))
    unknown = skillkit("explain", "script-shebnag", cwd=tmp_path)
    assert unknown.returncode == 2
    assert "did you mean script-shebang" in unknown.stderr


def test_fast_parser_reads_options_anywhere_and_refuses_unknown_ones() -> None:
    assert parse_options(["a", "--form=json", "b", "--select", "x", "--sel", "y,z", "--fix"]) == {
        "paths": ["a", "b"],
        "output_format": "json",
        "select": ["x", "y,z"],
        "fix": True,
    }
    assert parse_options(["--strict", "--", "--odd-name"]) == {
        "paths": ["--odd-name"],
        "strict": True,
    }
    for argv, message in (
        (["a", "--bogus"], "option --bogus not recognized"),
        (["a", "--format"], "option --format requires argument"),
        (["a", "--strict=yes"], "option --strict must not have an argument"),
    ):
        with pytest.raises(SkillkitError, match=message) as raised:
            parse_options(argv)
        assert raised.value.code == "usage"


# Words a command line may hold: options whole, abbreviated, ambiguous and unknown, with
# and without values, the end-of-options mark, a lone dash, one-letter options, paths.
_WORDS = st.sampled_from(
    [
        *(f"--{name}" for name in OPTIONS),
        *(f"--{name}=v" for name in OPTIONS),
        *("--f", "--fo", "--fi", "--s", "--se", "--st", "--i", "--h", "--c", "--fix="),
        *("--", "-", "-x", "-fx", "--bogus", "--=", "--=x", "---x", "--format=", "--"),
        *("a", "b/c", "", "json", "x=y", "-"),
    ]
)


@settings(max_examples=400, deadline=None)
@given(argv=st.lists(st.one_of(_WORDS, st.text(max_size=8)), max_size=8), posix=st.booleans())
def test_fast_parser_reads_words_as_gnu_getopt_does(argv: list[str], posix: bool) -> None:
    spec = [f"{name}=" if takes_value else name for name, (_, takes_value) in OPTIONS.items()]
    saved = os.environ.pop("POSIXLY_CORRECT", None)
    if posix:
        os.environ["POSIXLY_CORRECT"] = "1"
    try:
        try:
            found, words = getopt.gnu_getopt(argv, "", spec)
        except getopt.GetoptError as error:
            with pytest.raises(SkillkitError) as raised:
                read_words(argv)
            assert raised.value.message == str(error)
        else:
            assert read_words(argv) == ([(flag[2:], value) for flag, value in found], words)
    finally:
        os.environ.pop("POSIXLY_CORRECT", None)
        if saved is not None:
            os.environ["POSIXLY_CORRECT"] = saved


def test_typer_command_and_fast_parser_take_the_same_options(tmp_path: Path) -> None:
    command = next(c for c in app.registered_commands if c.callback.__name__ == "check")
    typer_names = set(inspect.signature(command.callback).parameters)
    assert typer_names == {"paths"} | {parameter for parameter, _ in OPTIONS.values()}
    make_skill(tmp_path, "pdf", {"SKILL.md": skill_md("pdf-tools")})
    result = CliRunner().invoke(app, ["check", str(tmp_path / "pdf"), "--format", "json"])
    assert result.exit_code == 1
    assert json.loads(result.output)["summary"]["errors"] == 1
    assert "--strict" in CliRunner().invoke(app, ["check", "--help"]).output


def test_a_folder_without_skills_exits_3_with_a_warning(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    result = skillkit("check", "docs", cwd=tmp_path)
    assert result.returncode == 3, result.stderr
    assert "warning [no-skill] docs holds no skill" in result.stdout
    assert "No problems found" not in result.stdout
    as_json = skillkit("check", "--format", "json", "docs", cwd=tmp_path)
    assert json.loads(as_json.stdout)["summary"]["exit_code"] == 3


def test_an_unreadable_path_is_a_finding_without_a_traceback(tmp_path: Path) -> None:
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    result = skillkit("check", "loop", cwd=tmp_path)
    assert result.returncode == 1
    assert "error [unreadable-path] cannot read loop: too many levels of symbolic links" in (
        result.stdout
    )
    assert "Traceback" not in result.stderr and "no such file" not in result.stdout


def test_usage_errors_escape_control_characters(tmp_path: Path) -> None:
    result = skillkit("check", "missing\x1b]0;owned\x07", cwd=tmp_path)
    assert result.returncode == 2
    assert (
        result.stderr.strip() == "error[usage]: no such file or folder: missing\\x1b]0;owned\\x07"
    )


def test_a_line_of_hundreds_of_broken_links_prints_a_short_report(tmp_path: Path) -> None:
    # Issue 17's case in small: each finding printed the whole 24 KB line in its frame.
    line = " ".join(f"[x](references/missing-{i:04d}.md)" for i in range(800))
    make_skill(tmp_path, "pdf-tools", {"SKILL.md": skill_md(body=f"\n{line}\n")})
    result = skillkit("check", "pdf-tools", cwd=tmp_path)
    assert result.returncode == 1
    assert len(result.stdout) < 30_000
    assert result.stdout.count("error [broken-link]") == 50
    assert "… and 750 more [broken-link] in this file" in result.stdout
    assert "Found 800 errors" in result.stdout


def test_a_config_that_is_no_file_is_named_for_what_it_is(tmp_path: Path) -> None:
    make_skill(tmp_path)
    (tmp_path / "folder.toml").mkdir()
    cases = {
        "": "error[usage]: no such configuration file: ''",
        "folder.toml": "error[usage]: configuration file folder.toml is not a regular file",
        "missing.toml": "error[usage]: no such configuration file: missing.toml",
    }
    for value, message in cases.items():
        done = skillkit("check", "pdf-tools", "--config", value, cwd=tmp_path)
        assert (done.returncode, done.stderr.strip()) == (2, message)


def test_a_finding_on_a_fifo_or_a_device_draws_no_frame_and_does_not_wait(
    tmp_path: Path,
) -> None:
    # The code frame opened the file of each finding: a FIFO there held `check` for good,
    # a link to /dev/zero was read until memory ran out.
    skill = shutil.copytree(Path(__file__).parents[3] / "examples" / "help-desk", tmp_path / "hd")
    os.mkfifo(skill / "references" / "pipe.md")
    (skill / "references" / "zero.md").symlink_to("/dev/zero")
    done = skillkit("check", "hd/help_desk.py", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    for name in ("pipe.md", "zero.md"):
        assert f"hd/references/{name}:1:1: warning [orphan-references]" in done.stdout
    assert "│" not in done.stdout  # no frame drawn from either


@pytest.mark.parametrize("output_format", ["text", "json", "sarif", "github"])
def test_a_stdout_that_is_not_utf8_gets_the_whole_report(tmp_path: Path, output_format) -> None:
    # A Windows code page (cp1252 for a redirected stdout) could not take the frame's bar
    # or a CJK link target: a UnicodeEncodeError traceback, exit 1 and an empty SARIF file.
    body = "日本語 [日本](日本.md)\n"
    make_skill(tmp_path, "pdf-tools", {"SKILL.md": skill_md(body=body)})
    command = ["check", "pdf-tools", "--no-cache", "--format", output_format]
    done = subprocess.run(
        [sys.executable, "-m", "skillkit_core.cli", *command],
        capture_output=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONIOENCODING": "cp1252", "NO_COLOR": "1"},
        timeout=60,
    )
    assert done.returncode == 1 and done.stderr == b"", done.stderr.decode("utf-8", "replace")
    if output_format == "text":
        text = done.stdout.decode("cp1252")
        assert "link target '\\u65e5\\u672c.md' does not exist" in text
        assert "  > 5 | \\u65e5" in text  # the frame's bar in a character cp1252 has
    else:  # read by programs: UTF-8 whatever the locale
        text = done.stdout.decode("utf-8")
        assert "日本.md" in (str(json.loads(text)) if output_format != "github" else text)
