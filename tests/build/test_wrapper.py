"""``scripts/run`` as a shell script: found through symlinks, never changes directory,
exports SKILL_DIR, passes arguments through untouched, fails with the protocol's JSON.

These run the real generated script with a stand-in bundle (a tiny zipapp that reports
what it saw), so they are fast; the built examples are driven in test_built_workflows.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from skillkit_core.build.wrapper import binary_wrapper, pyz_wrapper
from skillkit_core.errors import BuildError

_REPORTER = """\
import json, os, sys
print(json.dumps({
    "cwd": os.getcwd(),
    "skill_dir": os.environ.get("SKILL_DIR"),
    "argv": sys.argv[1:],
    "isolated": sys.flags.isolated,
    "no_site": sys.flags.no_site,
}))
"""


def _skill(folder: Path, name: str = "demo") -> Path:
    (folder / "scripts").mkdir(parents=True)
    (folder / "bin").mkdir()
    run = folder / "scripts" / "run"
    run.write_text(pyz_wrapper(name))
    run.chmod(0o755)
    with zipfile.ZipFile(folder / "bin" / f"{name}.pyz", "w") as archive:
        archive.writestr("__main__.py", _REPORTER)
    return run


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "SKILL_DIR"}
    env["SKILLKIT_PYTHON"] = sys.executable
    env.update(extra)
    return env


def _call(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> dict:
    done = subprocess.run(argv, capture_output=True, text=True, cwd=cwd, env=env or _env())
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_runs_the_bundle_isolated_from_any_directory_without_changing_it(tmp_path: Path) -> None:
    run = _skill(tmp_path / "skills" / "demo")
    elsewhere = tmp_path / "project"
    elsewhere.mkdir()
    seen = _call([str(run), "start", "--params", '{"a": "b c"}', "it's", ""], elsewhere)
    assert seen["cwd"] == str(elsewhere)
    assert seen["skill_dir"] == str(tmp_path / "skills" / "demo")
    assert seen["argv"] == ["start", "--params", '{"a": "b c"}', "it's", ""]
    assert seen["isolated"] == 1 and seen["no_site"] == 1


def test_relative_invocation_and_symlink_chains_find_the_real_folder(tmp_path: Path) -> None:
    run = _skill(tmp_path / "skills" / "demo")
    links = tmp_path / "links"
    (links / "deeper").mkdir(parents=True)
    (links / "first").symlink_to(run)  # absolute target
    (links / "deeper" / "second").symlink_to(Path("..") / "first")  # relative target
    for argv, cwd in (
        (["./scripts/run"], tmp_path / "skills" / "demo"),
        (["deeper/second"], links),
        ([str(links / "deeper" / "second")], tmp_path),
    ):
        seen = _call(argv, cwd)
        assert Path(seen["skill_dir"]).resolve() == (tmp_path / "skills" / "demo").resolve()
        assert seen["cwd"] == str(cwd)


def test_found_through_path_like_a_command(tmp_path: Path) -> None:
    _skill(tmp_path / "demo")
    bindir = tmp_path / "bindir"
    bindir.mkdir()
    (bindir / "demo-skill").symlink_to(tmp_path / "demo" / "scripts" / "run")
    env = _env(PATH=f"{bindir}{os.pathsep}{os.environ['PATH']}")
    seen = _call(["demo-skill", "topics"], tmp_path, env)
    assert seen["skill_dir"] == str(tmp_path / "demo")
    assert seen["argv"] == ["topics"]


def test_dot_and_double_slash_segments_name_the_same_folders(tmp_path: Path) -> None:
    # ${self%/*} takes folders off the end of the path: "scripts/." was the skill folder.
    skill = tmp_path / "demo"
    _skill(skill)
    scripts = skill / "scripts"
    for argv, cwd in (
        (["./run"], scripts),
        ([f"{scripts}/./run"], tmp_path),
        ([f"{scripts}//run"], tmp_path),
        ([f"{skill}/./scripts/.//./run"], tmp_path),
    ):
        assert _call(argv, cwd)["skill_dir"] == str(skill), argv
    env = _env(PATH=f".{os.pathsep}{os.environ['PATH']}")
    assert _call(["run"], scripts, env)["skill_dir"] == str(skill)


@pytest.mark.parametrize("damage", ["missing", "empty", "cut short"])
def test_a_program_that_cannot_be_read_is_a_json_error(tmp_path: Path, damage: str) -> None:
    run = _skill(tmp_path / "demo")
    archive = tmp_path / "demo" / "bin" / "demo.pyz"
    if damage == "missing":
        archive.unlink()
    elif damage == "empty":
        archive.write_bytes(b"")
    else:
        archive.write_bytes(archive.read_bytes()[:-30])
    done = subprocess.run([str(run), "start"], capture_output=True, text=True, env=_env())
    assert done.returncode == 1
    error = json.loads(done.stdout)
    assert error["kind"] == "error" and error["error"] == "runtime" and error["retry"] is False
    assert error["message"] == (
        f"cannot read the program of this skill, {archive} (ZipImportError): "
        "install the skill again"
    )
    assert done.stderr == f"skillkit: error[runtime]: {error['message']}\n"


@pytest.mark.parametrize(
    ("env", "blames"),
    [
        (
            {"SKILLKIT_PYTHON": "python3-that-does-not-exist"},
            "SKILLKIT_PYTHON names no runnable program",
        ),
        ({"SKILLKIT_PYTHON": "/nonexistent/python3"}, "SKILLKIT_PYTHON names no runnable program"),
        ({"SKILLKIT_PYTHON": "/etc/passwd"}, "SKILLKIT_PYTHON names no runnable program"),
        ({"SKILLKIT_PYTHON": "/tmp"}, "SKILLKIT_PYTHON names no runnable program"),
        ({"PATH": "/nonexistent", "SKILLKIT_PYTHON": ""}, "python3 is not on PATH"),
    ],
)
def test_a_missing_python_is_a_json_error_that_says_which_was_missing(
    tmp_path: Path, env: dict[str, str], blames: str
) -> None:
    run = _skill(tmp_path / "demo")
    done = subprocess.run(
        ["/bin/sh", str(run), "start"], capture_output=True, text=True, env=_env(**env)
    )
    assert done.returncode == 1
    error = json.loads(done.stdout)
    assert error["kind"] == "error" and error["error"] == "python" and error["retry"] is False
    assert error["message"].startswith("demo needs Python 3.11 or newer: ")
    assert blames in error["message"]
    assert done.stderr == f"skillkit: error[python]: {error['message']}\n"


def test_binary_wrapper_names_the_built_platforms_when_this_one_is_missing(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "demo"
    (folder / "scripts").mkdir(parents=True)
    run = folder / "scripts" / "run"
    run.write_text(binary_wrapper("demo", ("plan9-mips",)))
    run.chmod(0o755)
    done = subprocess.run([str(run), "start"], capture_output=True, text=True)
    assert done.returncode == 1
    error = json.loads(done.stdout)
    assert error["error"] == "platform"
    assert "built for: plan9-mips" in error["message"]


def test_binary_wrapper_dispatches_to_this_platforms_program(tmp_path: Path) -> None:
    from skillkit_core.build.targets import current_target_id

    folder = tmp_path / "demo"
    program = folder / "bin" / f"demo-{current_target_id()}" / "demo"
    program.parent.mkdir(parents=True)
    program.write_text('#!/bin/sh\necho "$SKILL_DIR|$*|$(pwd)"\n')
    program.chmod(0o755)
    (folder / "scripts").mkdir()
    run = folder / "scripts" / "run"
    run.write_text(binary_wrapper("demo", (current_target_id(),)))
    run.chmod(0o755)
    done = subprocess.run([str(run), "a b", "c"], capture_output=True, text=True, cwd=tmp_path)
    assert done.stdout.strip() == f"{folder}|a b c|{tmp_path}"


def test_the_script_is_posix_sh(tmp_path: Path) -> None:
    run = _skill(tmp_path / "demo")
    for shell in ("sh", "dash", "bash"):
        if shutil.which(shell):
            assert subprocess.run([shell, "-n", str(run)]).returncode == 0, shell


@pytest.mark.parametrize("name", ["bad name", "x;rm -rf", "a_b", "-x", ""])
def test_names_that_could_escape_the_script_are_refused(name: str) -> None:
    with pytest.raises(BuildError):
        pyz_wrapper(name)


def test_calls_a_shell_makes_of_unusual_paths_find_the_skill(tmp_path: Path) -> None:
    # From a probe running scripts/run under dash, bash, busybox, mksh, zsh and ksh:
    # `sh run` (no slash in $0) looked along PATH only; a symlinked scripts/ folder gave
    # the link's parent as SKILL_DIR; a relative path starting with "-" was read by sh as
    # an option ("Illegal option -d", no JSON).
    skill = tmp_path / "shared" / "demo"
    _skill(skill)
    assert _call(["/bin/sh", "run", "topics"], skill / "scripts")["skill_dir"] == str(skill)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "scripts").symlink_to(skill / "scripts")
    assert _call(["scripts/run"], elsewhere)["skill_dir"] == str(skill)
    dashed = tmp_path / "-lead" / "demo"
    _skill(dashed)
    assert _call(["-lead/demo/scripts/run"], tmp_path)["skill_dir"] == str(dashed)


@pytest.mark.parametrize("python", ["cd", "-V"])
def test_a_skillkit_python_that_is_no_program_is_a_json_error(tmp_path: Path, python: str) -> None:
    # command -v names builtins too: SKILLKIT_PYTHON=cd ran `exec cd` (exit 127, no JSON).
    run = _skill(tmp_path / "demo")
    done = subprocess.run(
        [str(run), "start"], capture_output=True, text=True, env=_env(SKILLKIT_PYTHON=python)
    )
    assert done.returncode == 1, done
    assert json.loads(done.stdout)["error"] == "python"
