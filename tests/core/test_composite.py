"""Composite routing: sub-skills, topics, prefixing, replay and snapshots."""

import json
import sys
from pathlib import Path

import pytest
from pydantic import BaseModel

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
    assert result.retry is True  # the run waits: the same call with the right step succeeds
    assert run.current == "doctor/diagnose"


async def test_a_step_that_is_no_string_is_retryable_while_the_run_waits() -> None:
    run = engine()
    await run.start()
    result = await run.advance(7, {})
    assert (result.error, result.retry) == ("unknown_step", True)


@pytest.mark.parametrize(
    ("step", "message"),
    [
        (
            "diagnose",
            "'diagnose' is a step of sub-skill 'doctor', where the run is now: call it "
            "'doctor/diagnose'",
        ),
        (
            "report-clean",
            "'report-clean' is a step of sub-skill 'doctor', where the run is now: call it "
            "'doctor/report-clean'; the run is waiting for 'doctor/diagnose'",
        ),
        (
            "configure",
            "'configure' is not a step of this skill or of sub-skill 'doctor', where the run "
            "is now (its steps: doctor/diagnose, doctor/gate, doctor/report-issues, "
            "doctor/report-clean); the run is waiting for 'doctor/diagnose'",
        ),
    ],
)
async def test_a_sub_skill_step_named_without_its_prefix_gets_the_qualified_name(
    step: str, message: str
) -> None:
    run = engine()
    await run.start()
    await run.advance("classify", {"intent": "doctor"})
    result = (await run.advance(step, {"failing": []})).to_wire()
    assert result["error"] == "unknown_step" and result["retry"] is True
    assert result["message"] == f"skill 'help-desk': {message}"
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


class _Target(BaseModel):
    project: str


def _routing_dispatcher(mapping):
    """A dispatcher whose ``pick`` answer (saved to a sub-store) routes through a prompt-less
    ``route`` step to sub-skill ``work``, whose params come from ``mapping``."""
    work = (
        skill(name="work", entry="begin", params=_Target)
        .step("begin", prompt=lambda ctx: f"Work on {ctx.params.project}.", next=terminal)
        .build()
    )
    return (
        skill(name="router", entry="pick", stores={"seen": dict[str, str]})
        .step(
            "pick",
            prompt="Pick a target.",
            save=lambda ctx: {"seen": {"last": str(ctx.response.get("to"))}},
            next="route",
        )
        .step("route", next="subskill:work")
        .subskill("work", work, params=mapping)
        .build()
    )


@pytest.mark.parametrize(
    ("mapping", "answer", "says"),
    [
        (lambda response, store: {"project": response["to"]}, {"to": 7}, "invalid params"),
        (lambda response, store: {"project": response["to"]}, {}, "raised KeyError"),
    ],
    ids=["params-rejected", "mapping-raised"],
)
async def test_failed_sub_skill_params_keep_the_dispatcher_step_for_a_corrected_answer(
    mapping, answer, says
) -> None:
    run = CompositeEngine(_routing_dispatcher(mapping))
    await run.start()
    before = run.snapshot()
    refused = await run.advance("pick", answer)
    assert refused.to_wire()["kind"] == "error"
    assert refused.error == "params" and refused.retry is True
    assert refused.step == "pick" and says in refused.message and "'work'" in refused.message
    assert run.current == "pick" and not run.finished and run.history() == ()
    assert run.snapshot() == before
    routed = (await run.advance("pick", {"to": "web"})).to_wire()
    assert routed["kind"] == "prompt" and routed["step"] == "work/begin"
    assert routed["prompt"].count("Work on web.") == 1
    assert [r.step for r in run.history()] == ["pick", "route"]
    assert run.dispatcher.store.seen.last == "web"
    assert (await run.advance("work/begin", {})).kind == "done"


async def test_failed_sub_skill_params_survive_a_snapshot_round_trip() -> None:
    definition = _routing_dispatcher(lambda response, store: {"project": response["to"]})
    run = CompositeEngine(definition)
    await run.start()
    await run.advance("pick", {"to": None})
    again = CompositeEngine(definition)
    again.restore(json.loads(json.dumps(run.snapshot())))
    assert again.current == "pick"
    assert (await again.advance("pick", {"to": "api"})).step == "work/begin"


async def test_unknown_topic_from_a_callable_next_is_a_clear_error() -> None:
    definition = (
        skill(name="d", entry="a")
        .step("a", prompt="x", next=lambda ctx: "topic:" + ctx.response["to"])
        .topic("known", label="Known", content="text")
        .build()
    )
    run = CompositeEngine(definition)
    await run.start()
    result = await run.advance("a", {"to": "ghost"})
    assert result.kind == "error" and result.error == "runtime"
    assert "'topic:ghost'" in result.message and "unknown topic" in result.message
    assert result.step == "a" and run.current == "a" and not run.finished
    done = (await run.advance("a", {"to": "known"})).to_wire()
    assert done["finalOutput"] == {"topic": "known", "content": "text"}


async def test_a_topic_whose_content_fails_leaves_the_dispatcher_step_current() -> None:
    definition = (
        skill(name="d", entry="a")
        .step("a", prompt="x", next=lambda ctx: "topic:" + ctx.response["to"])
        .topic("missing", label="Missing", content=lambda ctx: ctx.refs.load("gone.md"))
        .topic("known", label="Known", content="text")
        .build()
    )
    run = CompositeEngine(definition, refs=MappingReferences({}))
    await run.start()
    result = await run.advance("a", {"to": "missing"})
    assert result.kind == "error" and result.error == "runtime" and result.retry is False
    assert "gone.md" in result.message and run.current == "a" and not run.finished
    assert (await run.advance("a", {"to": "known"})).kind == "done"
