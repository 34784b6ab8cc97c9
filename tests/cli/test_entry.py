"""The ``skillkit`` entry point: the hot commands skip typer, a closed pipe is quiet."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
DEPLOY = str(ROOT / "examples" / "deploy-check" / "deploy_check.py")
HEAVY = ("typer", "rich", "tree_sitter", "pygls")


def _imported(*args: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "skillkit_core", *args],
        capture_output=True,
        text=True,
    )
    lines = [line.split("|")[-1].strip() for line in done.stderr.splitlines() if "|" in line]
    return {name.split(".")[0] for name in lines}


@pytest.mark.parametrize(
    "args",
    [("run", DEPLOY, "start"), ("check", DEPLOY, "--format", "json")],
    ids=["run", "check"],
)
def test_hot_commands_import_no_cli_framework(args: tuple[str, ...]) -> None:
    assert not _imported(*args) & set(HEAVY)


def test_other_commands_go_through_typer() -> None:
    assert "typer" in _imported("version")


def test_a_reader_that_goes_away_gets_no_traceback(tmp_path: Path) -> None:
    # Far more output than a pipe buffers, so the writer meets the closed pipe.
    for index in range(100):
        folder = tmp_path / f"Notes{index}"
        folder.mkdir()
        (folder / "SKILL.md").write_text(
            f"---\nname: Notes{index}\ndescription: Notes.\nlicence: x\ncolour: y\n---\n"
        )
    reader = subprocess.Popen(
        f"{sys.executable} -m skillkit_core check {tmp_path} --format sarif | head -c 10",
        shell=True,
        stderr=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    out, err = reader.communicate(timeout=60)
    assert out == '{\n  "$sche'
    assert "Traceback" not in err and "BrokenPipeError" not in err


def test_checking_skill_md_folders_loads_no_dataclasses_pickle_or_pydantic(
    tmp_path: Path,
) -> None:
    # Start-up is most of a check's time: these modules cost more than checking the folders.
    for index in range(40):  # enough folders for the forked workers
        folder = tmp_path / f"notes-{index}"
        folder.mkdir()
        (folder / "SKILL.md").write_text(f"---\nname: notes-{index}\ndescription: Notes.\n---\n")
    loaded = _imported("check", str(tmp_path), "--format", "json")
    assert "yaml" in loaded  # the imports were seen
    assert not loaded & {"dataclasses", "inspect", "pickle", "pydantic", *HEAVY}
