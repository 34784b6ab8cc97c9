"""Simulation on the real engine: parity with run_skill, steering, all paths, actions."""

import json
import re

import pytest
from pydantic import BaseModel

from skillkit_core import action, branch, reference, skill, terminal
from skillkit_core.simulate.errors import SimulationError
from skillkit_core.simulate.simulate import simulate
from skillkit_core.testing import mock_model, run_composite, run_skill

CHECKS = [
    {"name": "ci", "status": "fail", "detail": "no config"},
    {"name": "lint", "status": "pass", "detail": "ruff"},
    {"name": "tests", "status": "fail", "detail": "none"},
]

GET_TO_KNOW_YOU = {
    "greet": {"name": "Ada"},
    "ask-role": [{"role": "designer"}, {"role": "developer"}],
    "ask-stack": {"answer": "Python"},
    "ask-hobby": [{"hobby": "chess", "wants_more": True}] * 3
    + [{"hobby": "go", "wants_more": False}],
    "confirm-profile": [{"approved": False}, {"approved": True}],
    "write-card": {"card": "Ada"},
}


def _wire(report):
    run = report.runs[0]
    return [turn.received for turn in run.turns] + [run.final]


def _same_as_run_skill(definition, responses, *, host="claude-code", params=None, **options):
    expected = run_skill(definition, model=mock_model(responses), host=host, params=params)
    report = simulate(definition, host, responses, params=params, **options)
    run = report.runs[0]
    assert run.status == "done"
    assert run.path == expected.path
    assert run.final_output == expected.response
    return expected, report


@pytest.mark.parametrize(
    "responses",
    [
        {
            "choose": {"target": "staging"},
            "verify": {"blockers": [], "safe": True},
            "deploy": {"url": "https://staging.example.com"},
        },
        {
            "choose": {"target": "production"},
            "verify": {"blockers": ["migration"], "safe": False},
            "abort": {"summary": "blocked"},
        },
    ],
)
def test_deploy_check_simulation_matches_run_skill_wire_for_wire(deploy_check, responses) -> None:
    expected, report = _same_as_run_skill(deploy_check, responses)
    assert _wire(report) == expected.results
    assert all(turn.decision.source == "fixture" for turn in report.runs[0].turns)


def test_get_to_know_you_simulation_matches_run_skill_through_loops(get_to_know_you) -> None:
    expected, report = _same_as_run_skill(get_to_know_you, GET_TO_KNOW_YOU, host="codex")
    assert _wire(report) == expected.results
    assert report.runs[0].visits["ask-hobby"] == 3
    guard = [
        t for turn in report.runs[0].turns for t in turn.transitions if t.reason == "max_visits"
    ]
    # Both times the hobby loop is full, its guard sends the run on to confirm-profile.
    assert [(g.source, g.target, g.intended) for g in guard] == [
        ("ask-hobby", "confirm-profile", "ask-hobby"),
        ("ask-stack", "confirm-profile", "ask-hobby"),
    ]


def test_repo_doctor_with_real_actions_matches_run_skill_exactly(repo_doctor, tmp_path) -> None:
    responses = {
        "diagnose": {"checks": CHECKS},
        "confirm-fixes": {"approved": True},
        "remediate": [{"fixed": ["ci"]}, {"fixed": ["tests"]}],
        "review": {"approved": True, "findings": []},
        "report": {"summary": "all fixed"},
    }
    params = {"repo_path": str(tmp_path / "a")}
    (tmp_path / "a").mkdir()
    expected = run_skill(repo_doctor, model=mock_model(responses), params=params)
    (tmp_path / "a" / ".repo-doctor.log").unlink()
    report = simulate(repo_doctor, "generic", responses, params=params, run_actions=True)
    assert _wire(report)[:-1] == expected.results[:-1]
    assert report.runs[0].final_output == expected.response
    log = (tmp_path / "a" / ".repo-doctor.log").read_text().splitlines()
    assert [line.split()[-1] for line in log] == ["ci", "tests"]
    actions = [a for turn in report.runs[0].turns for a in turn.actions]
    assert [(a.step, a.generated) for a in actions] == [("remediate", False)] * 2


def test_actions_do_not_run_without_run_actions_and_say_so(repo_doctor, tmp_path) -> None:
    responses = {
        "diagnose": {"checks": CHECKS},
        "confirm-fixes": {"approved": True},
        "remediate": [{"fixed": []}] * 3,
        "review": {"approved": False, "findings": ["nothing changed"]},
        "report": {"summary": "still failing"},
    }
    params = {"repo_path": str(tmp_path)}
    expected = run_skill(repo_doctor, model=mock_model(responses), params=params)
    (tmp_path / ".repo-doctor.log").unlink()
    report = simulate(repo_doctor, responses=responses, params=params)
    run = report.runs[0]
    assert (run.path, run.final_output) == (expected.path, expected.response)
    assert not (tmp_path / ".repo-doctor.log").exists()
    actions = [a for turn in run.turns for a in turn.actions]
    assert len(actions) == 3 and all(a.generated for a in actions)
    assert set(actions[0].result) == {"log_path", "entries"}
    completed = run.turns[3].received["completed"]
    assert completed.get("step") == "remediate"
    assert completed["actionResult"] == actions[0].result
    assert any("actions were not run" in note for note in report.notes)


@pytest.mark.parametrize(
    "responses",
    [
        {
            "classify": {"intent": "doctor"},
            "doctor/diagnose": {"failing": ["ci"]},
            "doctor/report-issues": {"summary": "add a CI config"},
        },
        {
            "classify": {"intent": "setup", "project": "web"},
            "setup/configure": [
                {"key": "port", "value": "8080", "more": True},
                {"key": "tls", "value": "on", "more": False},
            ],
            "setup/summary": lambda prompt: {"summary": prompt.split("changes: ")[1][:18]},
        },
        {"classify": {"intent": "auth"}},
    ],
    ids=["doctor", "setup", "topic"],
)
def test_help_desk_simulation_matches_run_composite(help_desk, responses) -> None:
    expected = run_composite(help_desk, model=mock_model(responses), host="opencode")
    report = simulate(help_desk, "opencode", responses)
    run = report.runs[0]
    assert (run.path, run.final_output) == (expected.path, expected.response)
    assert run.redirected_to == expected.redirected_to
    assert _wire(report) == expected.results


def test_steps_the_fixture_leaves_out_get_generated_valid_responses(deploy_check) -> None:
    report = simulate(deploy_check, responses={"choose": {"target": "production"}})
    turns = report.runs[0].turns
    assert turns[0].decision.source == "fixture"
    assert all(t.decision.source == "example" for t in turns[1:])
    assert "generated example of Verify" in turns[1].decision.note
    assert "production" in turns[1].received["prompt"]
    assert report.runs[0].status == "done"


def test_a_fixture_list_that_runs_out_falls_back_to_examples(get_to_know_you) -> None:
    responses = dict(GET_TO_KNOW_YOU, **{"ask-hobby": [{"hobby": "chess", "wants_more": True}]})
    report = simulate(get_to_know_you, responses=responses, choose={"ask-hobby.wants_more": False})
    hobby_turns = [t for t in report.runs[0].turns if t.step == "ask-hobby"]
    assert hobby_turns[0].decision.source == "fixture"
    assert "ran out" in hobby_turns[1].decision.note


def test_responses_load_from_json_and_python_files(deploy_check, tmp_path) -> None:
    answers = {
        "choose": {"target": "staging"},
        "verify": {"blockers": ["x"], "safe": False},
        "abort": {"summary": "no"},
    }
    as_json = tmp_path / "answers.json"
    as_json.write_text(json.dumps(answers))
    as_python = tmp_path / "answers.py"
    as_python.write_text(f"responses = {answers!r}\n")
    for file in (as_json, as_python, str(as_json)):
        run = simulate(deploy_check, responses=file).runs[0]
        assert run.path == ["choose", "verify", "abort"]
        assert run.final_output == {"summary": "no"}


@pytest.mark.parametrize(
    ("content", "name", "message"),
    [
        ("[1, 2]", "bad.json", "must hold an object"),
        ("{not json", "bad.json", "not valid JSON"),
        ("x = 1\n", "bad.py", "defines no 'responses'"),
        ("raise RuntimeError('boom')\n", "bad.py", "raised RuntimeError: boom"),
        ("{}", "bad.yaml", "must be a .json or .py file"),
        ('{"nope": {}}', "bad.json", "unknown step(s) 'nope'"),
    ],
)
def test_bad_response_files_are_clear_errors(deploy_check, tmp_path, content, name, message):
    file = tmp_path / name
    file.write_text(content)
    with pytest.raises(SimulationError, match=re.escape(message)):
        simulate(deploy_check, responses=file)


def test_choose_by_field_value_by_field_path_and_by_next_step(deploy_check) -> None:
    by_value = simulate(deploy_check, choose={"verify": False, "choose": "production"}).runs[0]
    assert by_value.path == ["choose", "verify", "abort"]
    assert "production" in by_value.turns[1].received["prompt"]
    by_path = simulate(deploy_check, choose={"verify.safe": True}).runs[0]
    assert by_path.path[-1] == "deploy"
    by_target = simulate(deploy_check, choose={"verify": "abort"}).runs[0]
    assert by_target.path[-1] == "abort"
    assert by_target.turns[1].decision.source == "choice"


def test_bad_choices_are_explained(deploy_check) -> None:
    with pytest.raises(SimulationError, match="safe: true, false"):
        simulate(deploy_check, choose={"verify": "maybe"})
    with pytest.raises(SimulationError, match="unknown step 'nowhere'"):
        simulate(deploy_check, choose={"nowhere": 1})
    with pytest.raises(SimulationError, match="does not fit the response schema Verify"):
        simulate(deploy_check, choose={"verify.safe": "definitely"})


def test_a_value_of_several_fields_must_name_the_field() -> None:
    class Two(BaseModel):
        first: bool
        second: bool

    definition = (
        skill(name="two", entry="a")
        .step("a", prompt="Two flags.", response=Two, next=terminal)
        .build()
    )
    with pytest.raises(SimulationError, match=r"a\.first, a\.second"):
        simulate(definition, choose={"a": True})


def test_path_steers_branches_and_loops(get_to_know_you, repo_doctor) -> None:
    path = ["greet", "ask-role", "ask-hobby", "confirm-profile", "ask-role", "ask-stack"]
    run = simulate(get_to_know_you, path=path).runs[0]
    assert run.path[: len(path)] == path
    assert run.status == "done"
    # The prompt-less gate may be left out of the path.
    path = ["diagnose", "confirm-fixes", "remediate", "remediate", "remediate", "review"]
    run = simulate(repo_doctor, path=path).runs[0]
    assert run.path[:7] == ["diagnose", "gate", *path[1:]]


def test_impossible_paths_are_clear_errors(deploy_check) -> None:
    # The error names the step the path wants next; 'deploy' is on the path, not "unreached".
    with pytest.raises(SimulationError, match="leads on to 'deploy', the next step of the given"):
        simulate(deploy_check, path=["choose", "deploy"])
    with pytest.raises(SimulationError, match="before its first prompt it went choose"):
        simulate(deploy_check, path=["verify"])
    with pytest.raises(SimulationError, match="unknown step"):
        simulate(deploy_check, path=["choose", "ship"])


def test_all_paths_finds_every_branch_of_deploy_check(deploy_check) -> None:
    report = simulate(deploy_check, all_paths=True)
    assert sorted(tuple(run.path) for run in report.runs) == [
        ("choose", "verify", "abort"),
        ("choose", "verify", "deploy"),
    ]
    assert not report.bound_reached
    coverage = report.coverage
    assert coverage.uncovered_steps == [] and coverage.uncovered_transitions == []
    assert {(e.source, e.target, e.kind) for e in coverage.transitions} == {
        ("choose", "verify", "next"),
        ("verify", "deploy", "branch"),
        ("verify", "abort", "branch"),
    }


def test_all_paths_covers_loops_guards_and_routes(get_to_know_you, help_desk) -> None:
    report = simulate(get_to_know_you, all_paths=True)
    assert report.coverage.uncovered_transitions == []
    guards = {e.key for e in report.coverage.transitions if e.kind == "max_visits"}
    assert guards == {("ask-role", "write-card", True), ("ask-hobby", "confirm-profile", True)}
    assert len({tuple(run.path) for run in report.runs}) > 10
    composite = simulate(help_desk, all_paths=True)
    assert composite.coverage.uncovered_routes == []
    assert composite.coverage.uncovered_steps == []
    assert {run.redirected_to["name"] for run in composite.runs} == {
        "doctor",
        "setup",
        "auth",
        "rate-limits",
    }


def test_all_paths_reports_what_it_could_not_cover(repo_doctor) -> None:
    report = simulate(repo_doctor, all_paths=True)
    # Generated fixes never name the failing check, so remediate only leaves by its guard.
    missing = [(e.source, e.target, e.kind) for e in report.coverage.uncovered_transitions]
    assert missing == [("remediate", "review", "branch")]


def test_all_paths_stops_at_its_bound(get_to_know_you) -> None:
    report = simulate(get_to_know_you, all_paths=True, max_paths=3)
    assert len(report.runs) == 3
    assert report.bound_reached


def test_requests_that_make_no_sense_are_refused(deploy_check) -> None:
    with pytest.raises(SimulationError, match="run actions on one path at a time"):
        simulate(deploy_check, all_paths=True, run_actions=True)
    with pytest.raises(SimulationError, match="either all_paths or a path"):
        simulate(deploy_check, all_paths=True, path=["choose"])
    notes = reference(name="notes", description="Notes.").topic("a", label="A", content="x")
    with pytest.raises(SimulationError, match="reference skill"):
        simulate(notes.build())
    broken = (
        skill(name="broken", entry="a").step("a", prompt="A.", next="nowhere").build(strict=False)
    )
    with pytest.raises(SimulationError, match="fix its definition first"):
        simulate(broken)


def test_a_run_that_ends_in_an_error_is_reported_not_raised() -> None:
    class Flag(BaseModel):
        on: bool

    definition = (
        skill(name="fragile", entry="a")
        .step(
            "a",
            prompt="Flag?",
            response=Flag,
            next=[branch("b", when=lambda ctx: ctx.response.missing), branch("b")],
        )
        .step("b", prompt="B.", response=Flag, next=terminal)
        .build()
    )
    report = simulate(definition)
    run = report.runs[0]
    assert run.status == "error" and not report.ok
    assert run.final["kind"] == "error"
    assert "missing" in run.final["message"]


def test_observers_run_only_with_run_actions() -> None:
    class Done(BaseModel):
        ok: bool

    seen = []
    definition = (
        skill(
            name="observed",
            entry="a",
            observers={"on_transition": lambda e: seen.append(e.to_step)},
        )
        .step("a", prompt="A.", response=Done, next="b")
        .step("b", prompt="B.", response=Done, next=terminal)
        .build()
    )
    report = simulate(definition)
    assert seen == [] and any("observers were not called" in n for n in report.notes)
    simulate(definition, run_actions=True)
    assert seen == ["b"]


def test_inline_actions_are_stubbed_too() -> None:
    class Done(BaseModel):
        ok: bool

    calls = []
    definition = (
        skill(name="inline", entry="a")
        .step("a", prompt="A.", response=Done, action=lambda ctx: calls.append(1), next=terminal)
        .build()
    )
    run = simulate(definition).runs[0]
    assert calls == []
    assert run.turns[0].actions[0].generated


def test_declared_action_input_is_still_checked_without_running_it() -> None:
    class In(BaseModel):
        n: int

    class Out(BaseModel):
        doubled: int

    ran = []
    double = action("double", input=In, output=Out, run=lambda ctx: ran.append(ctx) or {})
    definition = (
        skill(name="acting", entry="a")
        .step("a", prompt="A.", response=In, action=double, next=terminal)
        .build()
    )
    run = simulate(definition).runs[0]
    assert ran == []
    result = run.turns[0].actions[0].result
    assert set(result) == {"doubled"} and isinstance(result["doubled"], int)
    # The same input gives the same generated output on every run.
    assert simulate(definition).runs[0].turns[0].actions[0].result == result


class _Number(BaseModel):
    n: int


def _routed_by_an_action() -> object:
    return (
        skill(name="routed", entry="ask", description="Routes on an action's result.")
        .step(
            "ask",
            prompt="A number?",
            response=_Number,
            action=lambda ctx: {"big": ctx.response.n > 5},
            next=[branch("big", when=lambda ctx: ctx.action_result["big"]), branch("small")],
        )
        .step("big", prompt="Big.", next=terminal)
        .step("small", prompt="Small.", next=terminal)
        .build()
    )


def test_an_action_without_output_schema_stops_the_simulation_not_the_skill() -> None:
    # Its stand-in returned None and the branch reading it failed: every run was reported
    # as an error the real skill never gives, with exit 1.
    report = simulate(_routed_by_an_action())
    (run,) = report.runs
    assert (run.status, run.stand_ins, run.error, report.ok) == (
        "unsimulated",
        ("ask",),
        None,
        True,
    )
    from skillkit_core.simulate.markdown import simulation_markdown

    text = simulation_markdown(report)
    assert "### Not simulated further" in text and "--run-actions" in text
    real = simulate(_routed_by_an_action(), run_actions=True, responses={"ask": {"n": 9}})
    assert (real.runs[0].status, real.runs[0].path) == ("done", ["ask", "big"])
    # Errors that are the skill's or the fixture's own stay errors.
    bad_answer = simulate(_routed_by_an_action(), responses={"ask": {"n": "many"}})
    assert (bad_answer.runs[0].status, bad_answer.ok) == ("error", False)
    buggy = (
        skill(name="buggy", entry="ask", description="A side-effect action and a bug.")
        .step("ask", prompt="A number?", response=_Number, action=lambda ctx: None, next="next")
        .step(
            "next",
            prompt="More?",
            response=_Number,
            next=[branch("ask", when=lambda ctx: ctx.response.typo), branch("ask")],
        )
        .build()
    )
    bug = simulate(buggy)
    assert (bug.runs[0].status, bug.ok) == ("error", False)


def test_a_fixture_answer_that_leaves_the_given_path_is_an_error(deploy_check) -> None:
    # --path was silently ignored for a step the fixture answers.
    fixture = {"verify": {"blockers": [], "safe": True}}
    with pytest.raises(SimulationError, match="answer for step 'verify' leads off the given"):
        simulate(deploy_check, responses=fixture, path=["choose", "verify", "abort"])
    report = simulate(deploy_check, responses=fixture, path=["choose", "verify", "deploy"])
    assert report.runs[0].path == ["choose", "verify", "deploy"]
