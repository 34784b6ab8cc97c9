"""Built skills shared by the build tests: every example and protocol fixture, built once
per session in pyz mode for this machine (``--single``), into folders named after them.

Builds share one bytecode/wheel cache under the system temp folder, so a second test run
compiles nothing; the skills' run-time cache (unpacked native code) is per session.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from skillkit_core.build.pipeline import BuildOptions, BuildResult, build_skill
from skillkit_core.loader import load_entry
from tests.process_support import end_warm_processes
from tests.protocol.support import (
    AUTOPILOT,
    DEPLOY_CHECK,
    GET_TO_KNOW_YOU,
    HANDBOOK,
    HELP_DESK,
    REPO_DOCTOR,
    TRIAGE,
)

ENTRIES = (DEPLOY_CHECK, GET_TO_KNOW_YOU, HELP_DESK, REPO_DOCTOR, AUTOPILOT, TRIAGE, HANDBOOK)
BUILD_CACHE = Path(
    os.environ.get("SKILLKIT_TEST_CACHE", Path(tempfile.gettempdir()) / "skillkit-test-cache")
)


def build(entry: str, parent: Path, **options) -> BuildResult:
    """Build ``entry`` into ``parent/<skill name>`` (cached wheels and bytecode)."""
    name = load_entry(entry).name
    options.setdefault("single", not options.get("targets"))
    options.setdefault("cache_dir", BUILD_CACHE)
    return build_skill(BuildOptions(entry, parent / name, **options))


@pytest.fixture(scope="session")
def run_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where built skills unpack their native code during the tests."""
    return tmp_path_factory.mktemp("run-cache")


@pytest.fixture(scope="session")
def built_skills(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Entry path → built skill folder, for every example and protocol fixture."""
    parent = tmp_path_factory.mktemp("built")
    return {entry: build(entry, parent).out_dir for entry in ENTRIES}


def agent_env(run_cache: Path, **extra: str) -> dict[str, str]:
    """The environment an agent runs scripts/run in: no SKILL_DIR of its own, the test
    interpreter as python3 (run with -I -S it sees none of this virtualenv)."""
    env = {k: v for k, v in os.environ.items() if k not in ("SKILL_DIR", "SKILLKIT_DEBUG")}
    env["SKILLKIT_PYTHON"] = sys.executable
    env["SKILLKIT_CACHE_DIR"] = str(run_cache)
    env.update(extra)
    return env


@pytest.fixture
def warm_dir() -> Iterator[Path]:
    """A warm-process socket folder of the test's own (short: a socket's path is limited);
    the warm processes left there end with the test."""
    folder = Path(tempfile.mkdtemp(prefix="skw-", dir="/tmp"))
    yield folder
    end_warm_processes(folder)
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def env(run_cache: Path, warm_dir: Path) -> dict[str, str]:
    """:func:`agent_env` with the test's own warm-process folder."""
    return agent_env(run_cache, SKILLKIT_WARM_DIR=str(warm_dir))
