"""A built skill runs inside a user namespace that does not map root, as the sandboxes
bubblewrap makes for agents on Linux do: there root's ``/`` and ``/tmp`` show as the
kernel's overflow id, and the folder checks must not take them for another user's."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from tests.build.conftest import DEPLOY_CHECK

# An interpreter another user may run (the test's own lives in root's home), of the
# version the bundle's native code was built for.
PYTHON = Path("/usr/bin/python3.11")
USER = 1000
# Another user, in a user namespace of its own that maps that user alone.
SANDBOXED = (
    "setpriv",
    f"--reuid={USER}",
    f"--regid={USER}",
    "--clear-groups",
    "unshare",
    "--user",
    "--map-current-user",
)


def _unavailable() -> str | None:
    if not hasattr(os, "getuid") or os.getuid() != 0:
        return "needs root to become another user"
    if not PYTHON.is_file() or not (shutil.which("unshare") and shutil.which("setpriv")):
        return "needs /usr/bin/python3.11, unshare and setpriv"
    probe = subprocess.run([*SANDBOXED, "true"], capture_output=True)
    return None if probe.returncode == 0 else "user namespaces are not available here"


def test_a_built_skill_runs_in_a_user_namespace_without_root(
    built_skills: dict[str, Path],
) -> None:
    reason = _unavailable()
    if reason:
        pytest.skip(reason)
    place = Path(tempfile.mkdtemp(prefix="skillkit-userns-", dir="/tmp"))
    try:
        skill = place / "deploy-check"
        shutil.copytree(built_skills[DEPLOY_CHECK], skill, symlinks=True)
        (place / "home").mkdir()
        for path in (place, *place.rglob("*")):
            os.lchown(path, USER, USER)
        place.chmod(0o755)
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(place / "home"),
            "SKILLKIT_PYTHON": str(PYTHON),
            "SKILLKIT_WARM": "0",
        }
        run = [str(skill / "scripts" / "run"), "start", "--host", "codex", "--tools", ""]
        done = subprocess.run(
            [*SANDBOXED, *run],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert json.loads(done.stdout)["step"] == "choose"
        unpacked = place / "home" / ".cache" / "skillkit" / "bundles"
        assert any(unpacked.iterdir()), "unpacked into the user's own cache"
    finally:
        shutil.rmtree(place, ignore_errors=True)


def test_a_folder_the_user_cannot_enter_runs_each_call_cold_not_an_error(
    built_skills: dict[str, Path],
) -> None:
    """A warm process's child enters the caller's folder before it runs a call; when it
    cannot (the folder has mode 000: the user may stand in it but not enter it again),
    nothing ran, and the caller runs the call itself instead of reporting a lost call."""
    if not hasattr(os, "getuid") or os.getuid() != 0:
        pytest.skip("needs root to become another user")
    if not PYTHON.is_file() or not shutil.which("setpriv"):
        pytest.skip("needs /usr/bin/python3.11 and setpriv")
    place = Path(tempfile.mkdtemp(prefix="skillkit-cwd-", dir="/tmp"))
    try:
        skill = place / "deploy-check"
        shutil.copytree(built_skills[DEPLOY_CHECK], skill, symlinks=True)
        for folder in ("home", "closed", "warm"):
            (place / folder).mkdir()
        for path in (place, *place.rglob("*")):
            os.lchown(path, USER, USER)
        place.chmod(0o755)
        (place / "warm").chmod(0o700)
        (place / "closed").chmod(0o000)
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(place / "home"),
            "SKILLKIT_PYTHON": str(PYTHON),
            "SKILLKIT_WARM_DIR": str(place / "warm"),
        }
        run = [str(skill / "scripts" / "run"), "advance", "--step", "choose"]
        run += ["--output", '{"target": "staging"}', "--history", "[]"]
        as_user = ["setpriv", f"--reuid={USER}", f"--regid={USER}", "--clear-groups"]
        answers = []
        for _ in range(3):  # the first leaves a warm process; the others meet it
            done = subprocess.run(
                [*as_user, *run],
                capture_output=True,
                text=True,
                env=env,
                cwd=place / "closed",
                timeout=120,
            )
            assert done.returncode == 0, done.stdout + done.stderr
            answers.append(json.loads(done.stdout)["step"])
        assert answers == ["verify"] * 3
        assert list((place / "warm").iterdir()), "a warm process was there to refuse"
    finally:
        from tests.process_support import end_warm_processes

        end_warm_processes(place / "warm")
        shutil.rmtree(place, ignore_errors=True)
