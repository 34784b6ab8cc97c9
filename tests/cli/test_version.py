"""``skillkit --version`` and ``skillkit version`` print the installed distribution's
version."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version

import pytest


@pytest.mark.parametrize("args", [("--version",), ("version",)])
def test_the_version_is_printed_and_the_command_succeeds(args: tuple[str, ...]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "skillkit_core", *args], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == version("pyskillkit") + "\n"


def test_version_wins_over_a_command_after_it() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "skillkit_core", "--version", "preview", "missing.py"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == version("pyskillkit") + "\n"
