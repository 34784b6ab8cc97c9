"""Markdown and JSON output of simulations."""

import json

from skillkit_core.simulate.json_format import to_json
from skillkit_core.simulate.markdown import fence, simulation_markdown
from skillkit_core.simulate.simulate import simulate


def test_fences_outgrow_the_backticks_inside() -> None:
    assert fence("plain", "xml") == "```xml\nplain\n```"
    assert fence("has ``` inside") == "````\nhas ``` inside\n````"


def test_a_transcript_shows_the_wire_the_response_and_what_happened(repo_doctor) -> None:
    report = simulate(
        repo_doctor,
        "claude-code",
        choose={"diagnose.checks.0.status": "fail", "confirm-fixes.approved": True},
    )
    text = simulation_markdown(report)
    assert text.startswith("# Simulation of `repo-doctor` on claude-code")
    first = report.runs[0].turns[0]
    assert json.dumps(first.received, indent=2, ensure_ascii=False) in text
    assert '"preamble": "The skill `repo-doctor` is a workflow' in text
    assert "(generated from its output schema, not run)" in text
    assert "`remediate` reached its visit limit, so its on_max_visits applied" in text
    assert '`gate` → `confirm-fixes` (`"confirm-fixes" if _failing(ctx)' in text
    assert (
        "- Path: diagnose → gate → confirm-fixes → remediate → remediate → remediate → review"
        " → report" in text
    )
    assert "### Done" in text


def test_all_paths_markdown_lists_paths_and_what_was_never_covered(repo_doctor) -> None:
    text = simulation_markdown(simulate(repo_doctor, all_paths=True))
    # The branch remediate → review depends on a sub-store no generated answer changes.
    assert "3 distinct path(s) (not every alternative was explored; see below)." in text
    assert "- no run went `remediate` → `review` (branch)" in text
    assert "| 2 | diagnose → gate → confirm-fixes → report | done |" in text
    assert (
        "| 3 | diagnose → gate → confirm-fixes → remediate → remediate → remediate → review → "
        'report | done | diagnose: checks.0.status="fail"; confirm-fixes: approved=true |' in text
    )
    assert "- Transitions: 8 of 9 taken\n  - never taken: `remediate` → `review` (branch)" in text


def test_json_carries_the_same_report(deploy_check) -> None:
    report = simulate(deploy_check, all_paths=True)
    data = json.loads(to_json(report))
    assert data["allPaths"] is True and data["boundReached"] is False
    assert [run["path"] for run in data["runs"]] == [run.path for run in report.runs]
    turn = data["runs"][0]["turns"][0]
    assert turn["received"]["kind"] == "prompt" and "preamble" in turn["received"]
    assert data["coverage"]["uncoveredTransitions"] == []
