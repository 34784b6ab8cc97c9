"""All-paths simulation claims only what it explored; preview, graph and simulate read the
same successors (issue 21)."""

import json
from enum import StrEnum
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from skillkit_core import branch, skill, terminal
from skillkit_core.loader import load_entry
from skillkit_core.simulate.graph_render import build_diagram
from skillkit_core.simulate.json_format import to_json
from skillkit_core.simulate.markdown import preview_markdown, simulation_markdown
from skillkit_core.simulate.preview import preview
from skillkit_core.simulate.routing import routing
from skillkit_core.simulate.simulate import simulate

FIXTURES = Path(__file__).parent / "fixtures"


def _review_flow():
    return load_entry(str(FIXTURES / "review_flow.py"))


def test_a_literal_read_from_the_store_by_later_routing_is_explored() -> None:
    # 'plan' routes on scope.change, answered one step earlier: every change kind
    # leads to 'plan' at first, so only the value tells the paths apart.
    report = simulate(_review_flow(), all_paths=True)
    assert report.coverage.uncovered_steps == []
    starts = {tuple(run.path[:3]) for run in report.runs}
    assert starts == {
        ("scope", "plan", "implement"),
        ("scope", "plan", "write-tests"),
        ("scope", "plan", "review-docs"),
    }
    assert report.exploration is not None and report.exploration.complete
    text = simulation_markdown(report)
    assert "(every alternative explored)." in text
    assert "- Steps: 11 of 11 reached" in text


def test_routing_choices_are_the_closed_fields_routing_reads() -> None:
    found = {c.label: (c.readers, c.later) for c in routing(_review_flow()).choices}
    assert found == {
        "scope.change": (("plan",), True),  # through the store, by a named function
        "run-tests.passed": (("run-tests",), False),  # its own branch, ctx.response
        "review-code.verdict": (("review-code",), False),
    }


class Mode(StrEnum):
    quick = "quick"
    deep = "deep"


class Params(BaseModel):
    mode: Mode


class Answer(BaseModel):
    text: str


def _by_params():
    return (
        skill(name="by-params", entry="ask", description="x", params=Params)
        .step(
            "ask",
            prompt="Ask.",
            response=Answer,
            next=lambda ctx: "deep-dive" if ctx.params.mode == "deep" else "summary",
        )
        .step("deep-dive", prompt="Dig.", next=terminal)
        .step("summary", prompt="Sum up.", next=terminal)
        .build()
    )


def test_a_params_field_routing_reads_is_named_when_it_was_not_varied() -> None:
    report = simulate(_by_params(), all_paths=True, params={"mode": "quick"})
    explored = report.exploration
    assert explored is not None and not explored.complete
    assert [(u.choice, u.missing) for u in explored.unvaried] == [("params.mode", ("deep",))]
    assert explored.unreached == ["deep-dive"]
    text = simulation_markdown(report)
    assert "every alternative explored" not in text
    assert "(not every alternative was explored; see below)." in text
    assert (
        '- `params.mode` never took `"deep"`: the given params stay the same in every run' in text
    )
    assert "- steps no run reached: `deep-dive`" in text
    data = json.loads(to_json(report))
    assert data["exploration"]["complete"] is False
    assert data["exploration"]["unvaried"] == [
        {"choice": "params.mode", "missing": ["deep"], "reason": explored.unvaried[0].reason}
    ]


def test_generated_params_are_explored_for_each_value_routing_reads() -> None:
    report = simulate(_by_params(), all_paths=True)
    assert report.params_generated
    ends = {run.path[-1]: run for run in report.runs}
    assert set(ends) == {"deep-dive", "summary"}
    other = next(run for run in report.runs if run.params_choice)
    assert other.decisions[0] == other.params_choice
    assert other.params_choice in ('params.mode="deep"', 'params.mode="quick"')
    assert report.exploration is not None and report.exploration.complete
    assert "every alternative explored" in simulation_markdown(report)


def test_a_fixture_that_fixes_a_routing_choice_is_named() -> None:
    report = simulate(
        _review_flow(), responses={"scope": {"change": "docs", "files": []}}, all_paths=True
    )
    unvaried = {u.choice: u for u in report.exploration.unvaried}
    assert set(unvaried["scope.change"].missing) == {"feature", "bugfix"}
    assert unvaried["scope.change"].reason.startswith("the responses fixture answers this step")
    assert set(report.exploration.unreached) == {
        "implement",
        "write-tests",
        "run-tests",
        "fix-tests",
        "give-up",
    }


def _schema_less():
    return (
        skill(name="schema-less", entry="run-tests", description="x")
        .step(
            "run-tests",
            prompt="Run the tests.",
            next=[branch("merge", when=lambda ctx: ctx.response.passed), branch("fix")],
        )
        .step("merge", prompt="Merge.", next=terminal)
        .step("fix", prompt="Fix.", next=terminal)
        .build()
    )


def test_an_error_row_shows_its_message_and_a_missing_schema_is_reported() -> None:
    report = simulate(_schema_less(), all_paths=True)
    assert not report.ok
    text = simulation_markdown(report)
    assert (
        "| 1 | run-tests | error: skill 'schema-less', step 'run-tests': its branch callback "
        "raised AttributeError: 'dict' object has no attribute 'passed' | — |" in text
    )
    assert (
        "- Missing schema: `run-tests` has no response schema, but its own routing reads its "
        "answer through `ctx.response`" in text
    )
    assert "every alternative explored" not in text


def test_a_schema_less_step_read_through_the_store_is_reported_in_a_single_run() -> None:
    definition = (
        skill(name="store-read", entry="check", description="x")
        .step("check", prompt="Check.", next="decide")
        .step(
            "decide",
            next=lambda ctx: "ship" if ctx.store.steps["check"].get("passed") else "stop",
        )
        .step("ship", prompt="Ship.", next=terminal)
        .step("stop", prompt="Stop.", next=terminal)
        .build()
    )
    report = simulate(definition)
    assert report.runs[0].status == "done"  # the run itself ends quietly...
    assert report.schema_gaps == [  # ...but the report says why its route means little
        "`check` has no response schema, but the routing of `decide` reads its answer "
        'through `steps["check"]`: the simulation could only answer `{}`; give the step a '
        "response model"
    ]
    assert "- Missing schema: `check` has no response schema" in simulation_markdown(report)


def test_the_path_error_names_the_next_step_of_the_path_and_the_reason() -> None:
    import pytest

    from skillkit_core.simulate.errors import SimulationError

    with pytest.raises(SimulationError) as raised:
        simulate(_schema_less(), path=["run-tests", "merge"])
    message = str(raised.value)
    assert "leads on to 'merge', the next step of the given path (run-tests → merge)" in message
    assert "they lead to: an error (skill 'schema-less', step 'run-tests': its branch" in message
    assert "`run-tests` has no response schema" in message
    assert "not reached" not in message


class Intent(BaseModel):
    intent: Literal["billing", "refund", "faq"]


def _desk():
    billing = (
        skill(name="billing", entry="ask", description="x")
        .step("ask", prompt="Ask.", next=terminal)
        .build()
    )
    refund = (
        skill(name="refund", entry="ask", description="x")
        .step("ask", prompt="Ask.", next=terminal)
        .build()
    )

    def route(ctx) -> str:
        intent = ctx.response.intent
        return f"subskill:{intent}" if intent in ("billing", "refund") else "topic:" + intent

    return (
        skill(name="desk", entry="classify", description="x")
        .step("classify", prompt="Classify.", response=Intent, next=route)
        .subskill("billing", billing)
        .subskill("refund", refund)
        .topic("faq", label="FAQ", content="Answers.")
        .build()
    )


def test_preview_graph_and_simulate_agree_on_f_string_routes() -> None:
    desk = _desk()
    routes = {"subskill:billing", "subskill:refund", "topic:faq"}
    shown = preview(desk)
    classify = next(s for s in shown.steps if s.name == "classify")
    assert {t.target for t in classify.transitions} == routes
    assert all(t.kind == "dynamic" for t in classify.transitions)
    text = preview_markdown(shown)
    assert "no step name found" not in text
    assert "- → `subskill:billing` (`route()` may return it)" in text
    drawn = {a.target for a in build_diagram(desk).arrows if a.source == "classify"}
    assert drawn == {"billing/ask", "refund/ask", "topic:faq"}
    report = simulate(desk, all_paths=True)
    assert set(report.coverage.routes) == routes and report.coverage.uncovered_routes == []


def test_preview_of_the_docs_help_desk_lists_every_route_of_its_f_strings() -> None:
    help_desk = load_entry(str(Path(__file__).parents[3] / "examples/help-desk/help_desk.py"))
    classify = next(s for s in preview(help_desk).steps if s.name == "classify")
    assert [t.target for t in classify.transitions] == [
        "subskill:doctor",
        "subskill:setup",
        "topic:auth",
        "topic:rate-limits",
    ]


class Note(BaseModel):
    note: str


def test_a_callable_edge_no_run_took_is_not_claimed_explored() -> None:
    # 'fast' is reached through 'slow', but no generated note is "urgent": the way
    # start → fast was never tried, whatever the steps reached say.
    definition = (
        skill(name="free-text", entry="start", description="x")
        .step(
            "start",
            prompt="Note?",
            response=Note,
            next=lambda ctx: "fast" if ctx.response.note == "urgent" else "slow",
        )
        .step("slow", prompt="Slow.", next="fast")
        .step("fast", prompt="Fast.", next=terminal)
        .build()
    )
    report = simulate(definition, all_paths=True)
    assert report.coverage.uncovered_steps == []
    assert [(e.source, e.target) for e in report.exploration.untaken] == [("start", "fast")]
    text = simulation_markdown(report)
    assert "every alternative explored" not in text
    assert "- no run went `start` → `fast` (dynamic): its code names that step" in text
