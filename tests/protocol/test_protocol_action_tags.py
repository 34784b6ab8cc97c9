"""Stateless mode: an action result the agent edits in its history cannot steer the run.

Every printed history entry with an ``actionResult`` carries an ``actionTag``; replay
refuses an entry whose result no longer matches its tag (or that has none).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.protocol.support import AUTOPILOT, history_entries, ok, run


def _first(tmp_path: Path) -> tuple[list[str], dict]:
    params = ["--params", json.dumps({"log": str(tmp_path / "actions.log")})]
    return params, ok(run(AUTOPILOT, "start", *params))


def _advance_ask(params: list[str], history: list[dict]):
    answer = json.dumps({"part": "docs", "again": False})
    return run(
        AUTOPILOT, "advance", *params, "--step", "ask", "--output", answer,
        "--history", json.dumps(history),
    )  # fmt: skip


def test_printed_action_results_are_tagged_and_replay(tmp_path: Path) -> None:
    params, first = _first(tmp_path)
    history = history_entries(first)
    (prepare,) = [entry for entry in history if "actionResult" in entry]
    assert len(prepare["actionTag"]) == 64
    call = _advance_ask(params, history)
    assert call.code == 0, call.describe()


@pytest.mark.parametrize("forgery", ["edited result", "no tag", "tag of another step"])
def test_a_forged_action_result_is_a_history_error(tmp_path: Path, forgery: str) -> None:
    params, first = _first(tmp_path)
    history = history_entries(first)
    entry = next(entry for entry in history if "actionResult" in entry)
    if forgery == "edited result":
        entry["actionResult"] = {"forged": True}
    elif forgery == "no tag":
        del entry["actionTag"]
    else:
        entry["step"] = "ask"  # the same result and tag, claimed for another step
    call = _advance_ask(params, history)
    assert call.code == 1, call.describe()
    assert call.json["error"] == "history"
    assert "is not one scripts/run printed" in call.json["message"]
