"""``skillkit --help``: what a person reads first."""

from __future__ import annotations

import os
import subprocess
import sys


def test_each_command_is_summarised_on_one_line() -> None:
    # typer kept a docstring's source line breaks in the command list: 'explain',
    # 'preview' and 'simulate' were cut in the middle of a sentence on any terminal.
    env = {**os.environ, "COLUMNS": "250", "NO_COLOR": "1", "TERM": "dumb"}
    done = subprocess.run(
        [sys.executable, "-m", "skillkit_core", "--help"], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr
    rows = [line.strip("│ ").rstrip() for line in done.stdout.splitlines() if line.startswith("│")]
    summaries = {row.split()[0]: row.split(None, 1)[1] for row in rows if not row.startswith("-")}
    assert summaries["explain"] == (
        "Explain one lint rule: why it exists, a bad and a good example (the text of its page "
        "in the docs)."
    )
    assert summaries["preview"].endswith("what each disclosure tier loads).")
    assert summaries["simulate"].endswith("exit 1 when a run ends in an error.")


def _help(*command: str) -> str:
    env = {**os.environ, "COLUMNS": "250", "NO_COLOR": "1", "TERM": "dumb"}
    done = subprocess.run(
        [sys.executable, "-m", "skillkit_core", *command, "--help"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_flag_shows_no_type_and_an_option_its_whole_help() -> None:
    text = _help("check")
    rows = {line.split()[1]: line for line in text.splitlines() if line.startswith("│ --")}
    # typer showed '--strict <bool>', which reads as an option that takes a value.
    assert "<bool>" not in text and rows["--strict"].split()[2] == "Fail"
    # Rich markup ate '[tool.skillkit]' from the help of --config.
    assert "pyproject.toml to read [tool.skillkit] from." in rows["--config"]
