"""Whole workflows of every example and fixture, driven through the real CLI.

Each scenario runs in stateless mode, session file mode and session flag mode (on
different hosts, partly through ``skillkit run``), and every result an agent reads must
equal what the engine produces in-process for the same host: the CLI adds nothing, loses
nothing and reorders nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from skillkit_core.loader import load_entry
from skillkit_core.testing import handshake_of, mock_model, run_composite, run_skill
from tests.protocol.support import (
    AUTOPILOT,
    DEPLOY_CHECK,
    GET_TO_KNOW_YOU,
    HELP_DESK,
    REPO_DOCTOR,
    TRIAGE,
    drive_session,
    drive_stateless,
)


@dataclass(frozen=True)
class Scenario:
    name: str
    entry: str
    answers: dict[str, Any]
    params: Any = None
    subskill: str | None = None
    path_param: str | None = None
    """A param that must point into a fresh folder (side effects of actions go there)."""
    hosts: tuple[str, str, str] = ("claude-code", "codex", "generic")
    """The hosts of the stateless, session file and session flag runs."""
    flag_mode: bool = True
    via_skillkit: bool = False
    """Run the session file mode through ``skillkit run`` instead of the light path."""
    final: Any = field(default=None)


SCENARIOS = [
    Scenario(
        "deploy-check-staging",
        DEPLOY_CHECK,
        {
            "choose": {"target": "staging"},
            "verify": {"blockers": [], "safe": True},
            "deploy": {"url": "https://staging.example.com"},
        },
        final={"url": "https://staging.example.com"},
        via_skillkit=True,
    ),
    Scenario(
        "deploy-check-abort",
        DEPLOY_CHECK,
        {
            "choose": {"target": "production"},
            "verify": {"blockers": ["migration pending"], "safe": False},
            "abort": {"summary": "blocked by a migration"},
        },
        hosts=("gemini-cli", "cursor", "opencode"),
        final={"summary": "blocked by a migration"},
        flag_mode=False,
    ),
    Scenario(
        "get-to-know-you",
        GET_TO_KNOW_YOU,
        {
            "greet": {"name": 'Ada "the first" Lovelace'},
            "ask-role": {"role": "developer"},
            "ask-stack": {"answer": "Python and Rust"},
            "ask-hobby": [
                {"hobby": "chess", "wants_more": True},
                {"hobby": "rowing", "wants_more": False},
            ],
            "confirm-profile": {"approved": True},
            "write-card": {"card": "Ada writes Python and Rust."},
        },
        hosts=("claude-code", "roo-code", "amp"),
        final={"card": "Ada writes Python and Rust."},
    ),
    Scenario(
        "repo-doctor",
        REPO_DOCTOR,
        {
            "diagnose": {
                "checks": [
                    {"name": "ci", "status": "fail", "detail": "no config"},
                    {"name": "lint", "status": "fail"},
                    {"name": "readme", "status": "pass"},
                ]
            },
            "confirm-fixes": {"approved": True},
            "remediate": [{"fixed": ["ci"]}, {"fixed": ["lint"]}],
            "review": {"approved": True, "findings": []},
            "report": {"summary": "all fixed"},
        },
        path_param="repo_path",
        hosts=("codex", "claude-code", "kilo-code"),
        final={"summary": "all fixed"},
    ),
    Scenario(
        "autopilot",
        AUTOPILOT,
        {
            "ask": [{"part": "tests", "again": True}, {"part": "docs", "again": False}],
            "review": {"approved": True},
            "finish": {"summary": "asked twice"},
        },
        path_param="log",
        hosts=("claude-code", "opencode", "cline"),
        final={"summary": "asked twice"},
    ),
    Scenario(
        "help-desk-doctor",
        HELP_DESK,
        {
            "classify": {"intent": "doctor"},
            "doctor/diagnose": {"failing": ["ci"]},
            "doctor/report-issues": {"summary": "add a CI config"},
        },
        final={"summary": "add a CI config"},
        via_skillkit=True,
    ),
    Scenario(
        "help-desk-setup",
        HELP_DESK,
        {
            "classify": {"intent": "setup", "project": "web"},
            "setup/configure": [
                {"key": "port", "value": "8080", "more": True},
                {"key": "tls", "value": "on", "more": False},
            ],
            "setup/summary": {"summary": "port and tls set"},
        },
        hosts=("codex", "gemini-cli", "claude-code"),
        final={"summary": "port and tls set"},
    ),
    Scenario(
        "help-desk-topic",
        HELP_DESK,
        {"classify": {"intent": "rate-limits"}},
        hosts=("cursor", "generic", "codex"),
        flag_mode=False,
    ),
    Scenario(
        "help-desk-direct-setup",
        HELP_DESK,
        {
            "setup/configure": [
                {"key": "a", "value": "1", "more": True},
                {"key": "b", "value": "2", "more": True},
                {"key": "c", "value": "3", "more": True},
            ],
            "setup/summary": {"summary": "a, b, c"},
        },
        params={"project": "api"},
        subskill="setup",
        final={"summary": "a, b, c"},
    ),
    Scenario(
        "triage-fix",
        TRIAGE,
        {
            "intake": {"route": "fix", "ticket": "T-42"},
            "fix/investigate": {"cause": "race"},
            "fix/patch": [{"done": False}, {"done": True}],
            "fix/close": {"note": "fixed the race"},
        },
        hosts=("opencode", "claude-code", "codex"),
        final={"note": "fixed the race"},
    ),
    Scenario(
        "triage-notify",
        TRIAGE,
        {"intake": {"route": "notify"}, "notify/send": {"to": "ops"}},
        final={"to": "ops"},
        flag_mode=False,
    ),
    Scenario(
        "triage-policy-topic",
        TRIAGE,
        {"intake": {"route": "policy"}},
        hosts=("generic", "claude-code", "gemini-cli"),
        flag_mode=False,
    ),
    Scenario(
        "triage-direct-fix",
        TRIAGE,
        {
            "fix/investigate": {"cause": "typo"},
            "fix/patch": [{"done": False}, {"done": False}, {"done": False}],
            "fix/close": {"note": "gave up after three"},
        },
        params={"ticket": "T-7"},
        subskill="fix",
        hosts=("claude-code", "codex", "cursor"),
        final={"note": "gave up after three"},
    ),
]


def _params(scenario: Scenario, folder: Path) -> Any:
    if scenario.path_param is None:
        return scenario.params
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / "action.log" if scenario.path_param == "log" else folder
    return {**(scenario.params or {}), scenario.path_param: str(target)}


def _in_process(scenario: Scenario, host: str, params: Any) -> list[dict[str, Any]]:
    definition = load_entry(scenario.entry)
    model = mock_model(scenario.answers)
    if definition.is_composite:
        result = run_composite(
            definition,
            model=model,
            params=params,
            host=handshake_of(host),
            direct_subskill=scenario.subskill,
        )
    else:
        result = run_skill(definition, model=model, params=params, host=host)
    return result.results


def _without_action_tags(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Stateless results with their history entries' actionTag removed (the engine has
    none: stateless mode signs action results because the agent holds the history)."""
    for result in results:
        entries = [result.get("completed"), *result.get("autoAdvanced", [])]
        for entry in entries:
            if isinstance(entry, dict) and "actionResult" in entry:
                assert len(entry.pop("actionTag")) == 64, entry
    return results


def _normalised(results: list[dict[str, Any]], folder: Path) -> str:
    return json.dumps(results).replace(str(folder), "<folder>")


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_every_mode_shows_the_agent_what_the_engine_produces(
    scenario: Scenario, tmp_path: Path
) -> None:
    stateless_host, file_host, flag_host = scenario.hosts
    runs = {
        "stateless": (stateless_host, "module"),
        "file": (file_host, "skillkit" if scenario.via_skillkit else "module"),
    }
    if scenario.flag_mode:
        runs["flag"] = (flag_host, "module")
    for mode, (host, via) in runs.items():
        work = tmp_path / mode
        params = _params(scenario, work / "data")
        expected = _in_process(scenario, host, _params(scenario, work / "reference"))
        model = mock_model(scenario.answers)
        handshake = {"params": params, "host": host}
        if mode == "stateless":
            results = drive_stateless(
                scenario.entry, model, subskill=scenario.subskill, via=via, **handshake
            )
            results = _without_action_tags(results)
        else:
            results, session = drive_session(
                scenario.entry,
                model,
                work / "sessions",
                mode=mode,
                subskill=scenario.subskill,
                via=via,
                **handshake,
            )
            # Header, then one result per call and one output line per answer.
            assert len(session.lines()) == 1 + len(results) + (len(results) - 1)
            header = session.line(1)
            assert header["host"] == host and header["outputMode"] == mode
            assert header.get("subskill") == scenario.subskill
        assert _normalised(results, work / "data") == _normalised(expected, work / "reference"), (
            f"{mode} mode on {host} differs from the engine"
        )
        assert results[0]["kind"] == "prompt" and "preamble" in results[0]
        assert results[-1]["kind"] == "done"
        if scenario.final is not None:
            assert results[-1]["finalOutput"] == scenario.final


def test_topic_routes_finish_with_the_topic_content(tmp_path: Path) -> None:
    results = drive_stateless(HELP_DESK, mock_model({"classify": {"intent": "auth"}}))
    done = results[-1]
    assert done["finalOutput"]["topic"] == "auth"
    assert "Bearer" in done["finalOutput"]["content"]
    assert done["completed"]["step"] == "classify"


def test_actions_run_once_per_real_step_in_every_mode(tmp_path: Path) -> None:
    """Replays (stateless history, session rebuilds) reuse recorded action results."""
    answers = {
        "ask": [{"part": "a", "again": True}, {"part": "b", "again": False}],
        "review": {"approved": True},
        "finish": {"summary": "done"},
    }
    for mode in ("stateless", "file"):
        log = tmp_path / f"{mode}.log"
        if mode == "stateless":
            drive_stateless(AUTOPILOT, mock_model(answers), params={"log": str(log)})
        else:
            drive_session(AUTOPILOT, mock_model(answers), tmp_path / "s", params={"log": str(log)})
        assert log.read_text().splitlines() == ["prepare", "gate", "gate"], mode
