"""``skillkit build`` on the command line: progress on stderr, a summary, exit codes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from skillkit_core.build.targets import current_target_id
from tests.build.conftest import BUILD_CACHE
from tests.protocol.support import HELP_DESK

SKILLKIT = Path(sys.executable).parent / "skillkit"


def _skillkit(*args: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin", "SKILLKIT_CACHE_DIR": str(BUILD_CACHE), "COLUMNS": "200"}
    return subprocess.run([str(SKILLKIT), *args], capture_output=True, text=True, env=env)


def test_build_prints_each_step_then_the_files_and_sizes(tmp_path: Path) -> None:
    out = str(tmp_path / "help-desk")
    done = _skillkit("build", f"{HELP_DESK}:help_desk", "-o", out, "--single")
    assert done.returncode == 0, done.stderr
    for step in ("Load the skill", "Bundle the program", "Check the folder", "Put the folder"):
        assert f"✓ {step}" in done.stderr
    for name in ("SKILL.md", "bin/help-desk.pyz", "scripts/run", "references/auth.md", "total"):
        assert name in done.stdout
    assert f"Mode pyz, targets {current_target_id()};" in done.stdout
    assert (tmp_path / "help-desk" / "scripts" / "run").exists()


def test_failures_are_one_error_line_and_exit_1(tmp_path: Path) -> None:
    out = str(tmp_path / "x")
    missing = _skillkit("build", str(tmp_path / "nope.py"), "-o", out)
    assert missing.returncode == 1
    assert missing.stderr.strip().splitlines()[-1].startswith("error[entry]: cannot load")
    assert "Traceback" not in missing.stderr
    refused = _skillkit("build", HELP_DESK, "-o", out, "--mode", "binary", "--targets", "beos-x86")
    assert refused.returncode == 1 and "error[build]: unknown target 'beos-x86'" in refused.stderr
    assert not Path(out).exists()


@pytest.mark.skipif(
    not hasattr(os, "getuid") or os.getuid() != 0 or not shutil.which("unshare"),
    reason="mounts a small file system in a mount namespace of its own: needs root",
)
@pytest.mark.parametrize("options", ["size=200k", "ro"], ids=["full", "read-only"])
def test_a_file_system_that_cannot_take_the_build_is_an_output_error(
    tmp_path: Path, options: str
) -> None:
    place = tmp_path / "small"
    place.mkdir()
    out = place / "help-desk"
    command = " ".join(
        [
            f"mount -t tmpfs -o {options} tmpfs {place} &&",
            f"exec {SKILLKIT} build {HELP_DESK}:help_desk -o {out} --single",
        ]
    )
    env = {"PATH": "/usr/bin:/bin", "SKILLKIT_CACHE_DIR": str(BUILD_CACHE), "COLUMNS": "200"}
    done = subprocess.run(
        ["unshare", "--mount", "sh", "-c", command], capture_output=True, text=True, env=env
    )
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    reason = "No space left on device" if options != "ro" else "Read-only file system"
    assert last.startswith(f"error[output]: the output could not be written: {reason}")
    assert "Traceback" not in done.stderr


def test_a_binary_builds_program_folder_is_one_summary_row() -> None:
    from skillkit_core.build.report import human_size, summary_rows

    files = [("SKILL.md", 3), ("bin/x-linux-x64/x", 10), ("bin/x-linux-x64/_internal/a.so", 5)]
    assert summary_rows(files) == [("SKILL.md", 3), ("bin/x-linux-x64/ (2 files)", 15)]
    assert [human_size(n) for n in (500, 1536, 13 << 20)] == ["500 B", "1.5 KB", "13.0 MB"]


def test_the_summary_never_folds_a_path_or_a_warning_mid_word(tmp_path: Path) -> None:
    import io

    from rich.console import Console

    from skillkit_core.build.pipeline import BuildResult
    from skillkit_core.build.report import print_summary

    out_dir = tmp_path / "a-rather-long-folder-name" / "[not markup]" / "deploy-check"
    warning = f"references/ of {out_dir} holds notes.md, which nothing mentions"
    result = BuildResult(
        out_dir, "deploy-check", "pyz", ("linux-x64",), [("SKILL.md", 3200)], [warning]
    )
    text = io.StringIO()
    print_summary(result, Console(file=text, width=40, highlight=False, color_system=None))
    lines = text.getvalue().splitlines()
    assert lines[0] == f"Built deploy-check → {out_dir}"
    assert f"warning: {warning}" in lines


@pytest.mark.parametrize(("signum", "code"), [("SIGINT", 130), ("SIGTERM", 143), ("SIGHUP", 129)])
def test_a_stopped_build_leaves_no_scratch_folder(tmp_path: Path, signum: str, code: int) -> None:
    # SIGINT is Ctrl-C; SIGTERM (kill) and SIGHUP (a closed terminal) ended the process
    # at once and left the scratch folder, which `skillkit check` then linted as a skill.
    import signal
    import time

    out = tmp_path / "help-desk"
    env = {"PATH": "/usr/bin:/bin", "SKILLKIT_CACHE_DIR": str(BUILD_CACHE), "COLUMNS": "200"}
    build = subprocess.Popen(
        [str(SKILLKIT), "build", f"{HELP_DESK}:help_desk", "-o", str(out), "--single"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
    )
    deadline = time.monotonic() + 60
    while not list(tmp_path.glob(".help-desk.build-*")) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert list(tmp_path.glob(".help-desk.build-*")), "the build made no scratch folder"
    build.send_signal(getattr(signal, signum))  # to the build's own process alone
    assert build.wait(timeout=60) == code
    assert list(tmp_path.iterdir()) == []


def test_only_a_scratch_folder_beside_the_output_is_removed_for_a_stopped_build(
    tmp_path: Path,
) -> None:
    # The child that names its scratch folder runs the skill's code: what it names is
    # removed only when it is named and placed as the pipeline makes it.
    from skillkit_core.build.isolated import _is_scratch_of

    out = tmp_path / "dist" / "demo"
    assert _is_scratch_of(tmp_path / "dist" / ".demo.build-x1", out)
    assert not _is_scratch_of(tmp_path / "dist" / "demo", out)
    assert not _is_scratch_of(tmp_path / ".demo.build-x1", out)
    assert not _is_scratch_of(Path.home(), out)
