"""Composite routing: sub-skills, topics, prefixing, replay and snapshots."""

import json
import sys
from pathlib import Path

import pytest

from skillkit_core import skill, terminal
from skillkit_core.composite import CompositeEngine
from skillkit_core.engine import Handshake, WorkflowEngine
from skillkit_core.errors import HistoryError
from skillkit_core.refs import MappingReferences

sys.path.insert(0, str(Path(__file__).parents[2] / "examples" / "help-desk"))
from help_desk import help_desk


def engine(**kwargs):
    return CompositeEngine(help_desk, Handshake(host="claude-code"), **kwargs)


async def test_routing_returns_the_sub_skills_first_prompt_with_preamble() -> None:
    run = engine()
    first = (await run.start()).to_wire()
    assert first["step"] == "classify" and "preamble" in first
    routed = (await run.advance("classify", {"intent": "doctor"})).to_wire()
    assert routed["step"] == "doctor/diagnose"
    assert "preamble" in routed
    assert routed["completed"]["step"] == "classify"
    assert run.current == "doctor/diagnose"


async def test_sub_skill_results_are_prefixed_and_advance_is_unprefixed() -> None:
    run = engine()
    await run.start()
    await run.advance("classify", {"intent": "doctor"})
    result = (await run.advance("doctor/diagnose", {"failing": []})).to_wire()
    assert result["completed"]["step"] == "doctor/diagnose"
    assert [r["step"] for r in result["autoAdvanced"]] == ["doctor/gate"]
    assert result["step"] == "doctor/report-clean"
    assert [r.step for r in run.history()] == ["classify", "doctor/diagnose", "doctor/gate"]


@pytest.mark.parametrize(
    ("step", "error"),
    [("nobody/diagnose", "unknown_step"), ("setup/configure", "state"), ("classify", "state")],
)
async def test_wrong_steps_after_routing_are_refused(step, error) -> None:
    run = engine()
    await run.start()
    await run.advance("classify", {"intent": "doctor"})
    result = await run.advance(step, {})
    assert result.kind == "error" and result.error == error
    assert run.current == "doctor/diagnose"


async def test_topic_route_is_done_with_the_content() -> None:
    run = engine(refs=MappingReferences({"rate-limits.md": "100 rps"}))
    await run.start()
    result = (await run.advance("classify", {"intent": "rate-limits"})).to_wire()
    assert result["kind"] == "done"
    assert result["finalOutput"] == {"topic": "rate-limits", "content": "100 rps"}
    assert run.finished


async def test_replay_rebuilds_a_run_that_is_inside_a_sub_skill() -> None:
    run = engine()
    await run.replay(
        [
            {"step": "classify", "response": {"intent": "setup", "project": "web"}},
            {"step": "setup/configure", "response": {"key": "a", "value": "1", "more": True}},
        ]
    )
    assert run.current == "setup/configure"
    result = await run.advance("setup/configure", {"key": "b", "value": "2", "more": False})
    assert result.step == "setup/summary" and "web" not in result.prompt
    assert run.sub.params.project == "web"


async def test_replay_that_ends_at_the_routing_step_enters_the_sub_skill() -> None:
    run = engine()
    await run.replay([{"step": "classify", "response": {"intent": "doctor"}}])
    assert run.current == "doctor/diagnose"


@pytest.mark.parametrize(
    "history",
    [
        [
            {"step": "classify", "response": {"intent": "doctor"}},
            {"step": "setup/configure", "response": {}},
        ],
        [{"step": "doctor/diagnose", "response": {"failing": []}}],
    ],
)
async def test_histories_that_jump_between_skills_are_refused(history) -> None:
    with pytest.raises(HistoryError):
        await engine().replay(history)


async def test_direct_sub_skill_runs_refuse_dispatcher_history() -> None:
    run = engine(params={"project": "x"}, direct_subskill="setup")
    with pytest.raises(HistoryError, match="directly"):
        await run.replay([{"step": "classify", "response": {"intent": "doctor"}}])


async def test_snapshot_restores_an_equivalent_run() -> None:
    run = engine()
    await run.start()
    await run.advance("classify", {"intent": "setup", "project": "web"})
    await run.advance("setup/configure", {"key": "a", "value": "1", "more": True})
    snapshot = json.loads(json.dumps(run.snapshot()))
    again = engine()
    again.restore(snapshot)
    assert again.current == run.current == "setup/configure"
    one = await run.advance("setup/configure", {"key": "b", "value": "2", "more": False})
    two = await again.advance("setup/configure", {"key": "b", "value": "2", "more": False})
    assert one.to_wire() == two.to_wire()


async def test_plain_engine_snapshot_keeps_stores_visits_and_preamble_state() -> None:
    definition = (
        skill(name="s", entry="a", stores={"notes": dict[str, str]})
        .step(
            "a",
            prompt="x",
            save=lambda ctx: {"notes": {"k": "v"}},
            next="self",
            max_visits=2,
            on_max_visits="b",
        )
        .step("b", prompt=lambda ctx: f"notes {ctx.store.notes.k}", next=terminal)
        .build()
    )
    run = WorkflowEngine(definition)
    await run.start()
    await run.advance("a", {})
    restored = WorkflowEngine(definition)
    restored.restore(json.loads(json.dumps(run.snapshot())))
    result = await restored.advance("a", {})
    assert result.step == "b" and "notes v" in result.prompt and result.preamble is None
    with pytest.raises(HistoryError, match="fresh engine"):
        restored.restore(run.snapshot())
    with pytest.raises(HistoryError, match="another skill"):
        WorkflowEngine(definition).restore({**run.snapshot(), "skill": "other"})


async def test_unknown_routes_from_callables_are_clear_errors() -> None:
    definition = (
        skill(name="d", entry="a")
        .step("a", prompt="x", next=lambda ctx: "subskill:" + ctx.response["to"])
        .topic("t", label="T", content="text")
        .build()
    )
    run = CompositeEngine(definition)
    await run.start()
    result = await run.advance("a", {"to": "ghost"})
    assert result.kind == "error" and "unknown sub-skill" in result.message
    assert run.current == "a"
