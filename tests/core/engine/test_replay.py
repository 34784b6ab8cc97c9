"""Replay rebuilds the same state from a history without running actions or observers."""

import pytest
from pydantic import BaseModel

from skillkit_core import action, skill, terminal
from skillkit_core.engine import WorkflowEngine
from skillkit_core.errors import HistoryError
from tests.core.engine.skills import linear


async def test_replay_then_advance_continues_where_the_run_was() -> None:
    run = WorkflowEngine(linear())
    await run.replay(
        [
            {"step": "a", "response": {"name": "Ada"}},
            {"step": "b", "output": {"ok": False}},
            {"step": "a", "response": {"name": "Bob"}},
        ]
    )
    assert run.current == "b" and run.visits["a"] == 2
    assert run.store.steps["a"].name == "Bob"
    result = await run.advance("b", {"ok": True})
    assert result.step == "c" and "preamble" not in result.to_wire()


class Out(BaseModel):
    n: int


async def test_replay_reuses_recorded_action_results_and_fires_no_observers() -> None:
    calls, events = [], []
    counter = action("count", output=Out, run=lambda ctx: calls.append(1) or {"n": 1})
    definition = (
        skill(name="s", entry="a", observers={"on_step_complete": events.append})
        .step("a", prompt="x", action=counter, next="b")
        .step("b", prompt=lambda ctx: f"n={ctx.store.steps['a'].n}", next=terminal)
        .build()
    )
    run = WorkflowEngine(definition)
    await run.replay([{"step": "a", "response": {}, "actionResult": {"n": 41}}])
    assert calls == [] and events == []
    assert run.render_prompt(definition.steps["b"]) == "<prompt>\nn=41\n</prompt>"


async def test_replay_without_a_recorded_action_result_is_refused() -> None:
    counter = action("count", output=Out, run=lambda ctx: {"n": 1})
    definition = (
        skill(name="s", entry="a").step("a", prompt="x", action=counter, next=terminal).build()
    )
    with pytest.raises(HistoryError, match="no actionResult"):
        await WorkflowEngine(definition).replay([{"step": "a", "response": {}}])


@pytest.mark.parametrize(
    ("history", "message"),
    [
        (
            [{"step": "b", "response": {"ok": True}}],
            "is for step 'b', but the workflow is at step 'a'",
        ),
        ([{"step": "a"}], "has no 'response'"),
        (["a"], "must be an object"),
        ([{"step": "a", "response": {"nom": 1}}], "name: Field required"),
        (
            [
                {"step": "a", "response": {"name": "x"}},
                {"step": "b", "response": {"ok": True}},
                {"step": "c", "response": {"name": "y"}},
                {"step": "a", "response": {"name": "z"}},
            ],
            "comes after the run ended",
        ),
    ],
)
async def test_histories_that_do_not_fit_are_refused(history, message) -> None:
    with pytest.raises(HistoryError, match=message):
        await WorkflowEngine(linear()).replay(history)


async def test_replay_accepts_histories_with_or_without_auto_advanced_entries() -> None:
    definition = (
        skill(name="s", entry="gate")
        .step("gate", next="ask")
        .step("ask", prompt="x", next="route")
        .step("route", next="end")
        .step("end", prompt="y", next=terminal)
        .build()
    )
    full = WorkflowEngine(definition)
    await full.replay(
        [
            {"step": "gate", "response": {}},
            {"step": "ask", "response": {}},
            {"step": "route", "response": {}},
        ]
    )
    short = WorkflowEngine(definition)
    await short.replay([{"step": "ask", "response": {}}])
    assert full.current == short.current == "end"
    assert [r.step for r in short.store.steps.history] == ["gate", "ask", "route"]
