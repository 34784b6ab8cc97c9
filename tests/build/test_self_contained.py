"""The pyz needs nothing but a Python: it runs in a fresh virtualenv with nothing
installed, builds are byte-for-byte reproducible, and a multi-platform build carries the
right native code for each platform and Python (and says so when it cannot run)."""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from skillkit_core.build.pipeline import BuildOptions, build_skill
from skillkit_core.build.targets import current_python, current_target_id
from skillkit_core.errors import BuildError
from tests.build.conftest import BUILD_CACHE
from tests.protocol.support import DEPLOY_CHECK, HELP_DESK


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new virtualenv without pip, setuptools or anything else."""
    folder = tmp_path_factory.mktemp("bare-venv")
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(folder)], check=True)
    python = folder / "bin" / "python"
    probe = "import importlib.util as u; print(u.find_spec('pydantic'))"
    assert subprocess.run([python, "-c", probe], capture_output=True, text=True).stdout == "None\n"
    return python


def test_the_pyz_runs_isolated_in_a_fresh_virtualenv(
    built_skills: dict[str, Path], bare_python: Path, tmp_path: Path
) -> None:
    pyz = built_skills[HELP_DESK] / "bin" / "help-desk.pyz"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "SKILLKIT_CACHE_DIR": str(tmp_path)}
    env["SKILLKIT_WARM_DIR"] = os.environ["SKILLKIT_WARM_DIR"]  # the session's (conftest)

    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [str(bare_python), *argv], capture_output=True, text=True, cwd=tmp_path, env=env
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done

    assert "Bearer" in run("-I", str(pyz), "topic", "auth").stdout  # site on, nothing there
    first = json.loads(run("-I", "-S", str(pyz), "start", "--host", "codex").stdout)
    assert first["kind"] == "prompt" and first["step"] == "classify"
    # Where every module came from: the pyz, the unpacked native code, the standard
    # library; never a site-packages folder.
    verbose = run("-I", "-v", str(pyz), "topics").stderr
    assert any(
        f"code object from '{tmp_path}/bundles/python-" in line
        and "/pydantic/__pycache__/__init__." in line
        for line in verbose.splitlines()
    ), "pydantic comes from the unpacked bundle, as cached bytecode"
    assert f"'pydantic_core._pydantic_core' loaded from '{tmp_path}/bundles/native-" in verbose
    loads = [line for line in verbose.splitlines() if "from '" in line or "matches" in line]
    assert loads and not [line for line in loads if "site-packages" in line]


def test_two_builds_give_identical_bytes(tmp_path: Path) -> None:
    digests = []
    for attempt in ("one", "two"):
        # A fresh cache each time: nothing is reused between the two builds.
        options = BuildOptions(
            DEPLOY_CHECK,
            tmp_path / attempt / "deploy-check",
            single=True,
            cache_dir=tmp_path / f"cache-{attempt}",
        )
        result = build_skill(options)
        files = {name: (result.out_dir / name).read_bytes() for name, _ in result.files}
        digests.append({name: hashlib.sha256(data).hexdigest() for name, data in files.items()})
    assert digests[0] == digests[1]


def _native_members(pyz: Path) -> dict[str, list[str]]:
    """Content hash → the files of each nested zip of native code."""
    with zipfile.ZipFile(pyz) as outer:
        found = {}
        for name in outer.namelist():
            if name.startswith("_skillkit_native/") and name.endswith(".zip"):
                with zipfile.ZipFile(io.BytesIO(outer.read(name))) as inner:
                    found[name.split("/")[1][:-4]] = inner.namelist()
        return found


@pytest.mark.skipif(current_target_id() != "linux-x64", reason="checks a linux-x64 host")
def test_a_multi_platform_build_carries_native_code_per_platform_and_python(
    tmp_path: Path,
) -> None:
    """Fetches wheels with pip (cached under the system temp folder after the first run)."""
    other = "3.13" if current_python() != "3.13" else "3.12"
    options = BuildOptions(
        DEPLOY_CHECK,
        tmp_path / "deploy-check",
        targets=("darwin-arm64",),
        pythons=(other,),
        cache_dir=BUILD_CACHE,
    )
    result = build_skill(options)
    tag = "cp" + other.replace(".", "")
    assert sorted(result.native) == [f"darwin-arm64-{tag}"]
    members = _native_members(result.out_dir / "bin" / "deploy-check.pyz")
    assert sorted(members) == sorted(result.native[f"darwin-arm64-{tag}"])
    names = [name for files in members.values() for name in files]
    assert any(
        n.startswith("pydantic_core/_pydantic_core.") and n.endswith("-darwin.so") for n in names
    )
    assert any(f"cpython-{tag[2:]}-darwin" in n for n in names)
    # This machine is not among the built platforms: a clear JSON error, exit 1.
    done = subprocess.run(
        [result.out_dir / "scripts" / "run", "start"],
        capture_output=True,
        text=True,
        env={
            "PATH": "/usr/bin:/bin",
            "SKILLKIT_PYTHON": sys.executable,
            "SKILLKIT_CACHE_DIR": str(tmp_path / "run"),
        },
    )
    assert done.returncode == 1
    error = json.loads(done.stdout)
    assert error["error"] == "platform"
    assert f"no native code for linux-x64 with CPython {current_python()}" in error["message"]
    assert f"darwin-arm64-{tag}" in error["message"]


def test_an_old_python_gets_a_clear_json_error_not_a_syntax_error(
    built_skills: dict[str, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    import ast

    with zipfile.ZipFile(built_skills[DEPLOY_CHECK] / "bin" / "deploy-check.pyz") as archive:
        source = archive.read("__main__.py").decode()
    ast.parse(source, feature_version=(3, 4))  # parses on any Python 3 that is still around
    monkeypatch.setattr(sys, "version_info", (3, 9, 18, "final", 0))
    with pytest.raises(SystemExit) as stopped:
        exec(compile(source, "__main__.py", "exec"), {"__name__": "__main__"})
    assert stopped.value.code == 1
    captured = capsys.readouterr()
    error = json.loads(captured.out)
    assert captured.out == json.dumps(error, separators=(",", ":")) + "\n"  # one compact line
    assert error["kind"] == "error" and error["error"] == "python"
    assert "deploy-check needs Python 3.11 or newer" in error["message"]
    assert "is Python 3.9" in error["message"]
    assert captured.err.startswith("skillkit: error[python]:")


@pytest.mark.skipif(sys.platform == "win32", reason="checks a build for Windows made elsewhere")
def test_a_target_needing_a_distribution_only_its_system_has_says_so(tmp_path: Path) -> None:
    # mcp requires pywin32 on Windows, which cannot be installed here: the build said
    # "distribution 'pywin32' is not installed" as if a pip install would do.
    options = BuildOptions(
        DEPLOY_CHECK, tmp_path / "deploy-check", targets=("windows-x64",), cache_dir=BUILD_CACHE
    )
    with pytest.raises(BuildError) as refused:
        build_skill(options)
    assert refused.value.message == (
        "'mcp' requires 'pywin32' on Windows, which is not installed here and cannot be on "
        "this system (skillkit bundles the distributions of the environment it runs in): "
        "build for Windows on Windows, or leave it out of --targets"
    )
