"""The advance lifecycle: results, errors, transitions, limits and auto-advance."""

import asyncio
import functools

import pytest
from pydantic import BaseModel

from skillkit_core import action, branch, skill, terminal
from skillkit_core.engine import Handshake, WorkflowEngine
from skillkit_core.errors import ParamsError
from tests.core.engine.skills import Flag, Name, linear


def engine(definition, **kwargs):
    return WorkflowEngine(definition, Handshake(host="claude-code"), **kwargs)


async def test_first_prompt_carries_the_preamble_and_the_schema() -> None:
    wire = (await engine(linear()).start()).to_wire()
    assert list(wire) == ["kind", "step", "preamble", "prompt", "schema"]
    assert wire["kind"] == "prompt" and wire["step"] == "a"
    assert "| Tag | Tool | How to use |" in wire["preamble"]
    assert wire["prompt"] == "<prompt>\nSay a name.\n</prompt>"
    assert wire["schema"]["properties"]["name"]["type"] == "string"


async def test_advance_reports_the_completed_step_and_no_preamble() -> None:
    run = engine(linear())
    await run.start()
    wire = (await run.advance("a", {"name": "Ada"})).to_wire()
    assert list(wire) == ["kind", "step", "prompt", "schema", "completed"]
    assert wire["completed"] == {
        "step": "a",
        "response": {"name": "Ada"},
        "result": {"name": "Ada"},
    }


async def test_done_carries_the_final_output() -> None:
    run = engine(linear())
    await run.start()
    await run.advance("a", {"name": "Ada"})
    await run.advance("b", {"ok": True})
    wire = (await run.advance("c", {"name": "end"})).to_wire()
    assert wire == {
        "kind": "done",
        "done": True,
        "finalOutput": {"name": "end"},
        "completed": {"step": "c", "response": {"name": "end"}, "result": {"name": "end"}},
    }
    assert run.path == ["a", "b", "c"]


async def test_validation_error_keeps_the_run_where_it_was() -> None:
    run = engine(linear())
    await run.start()
    result = await run.advance("a", {"nom": "Ada"})
    assert result.to_wire() == {
        "kind": "error",
        "error": "validation",
        "step": "a",
        "message": "name: Field required; nom: not a field of the schema; leave it out",
        "retry": True,
    }
    assert run.current == "a" and not run.store.steps.ran("a")
    assert (await run.advance("a", {"name": "Ada"})).step == "b"


@pytest.mark.parametrize(
    ("step", "error", "retry"),
    [("zzz", "unknown_step", True), ("b", "state", True)],
)
async def test_unknown_or_out_of_order_steps_are_refused(step, error, retry) -> None:
    # retry: true means a corrected call can succeed (here, the output for step 'a').
    run = engine(linear())
    await run.start()
    result = await run.advance(step, {"ok": True})
    assert (result.error, result.retry) == (error, retry)
    assert run.current == "a"


async def test_a_finished_run_cannot_be_advanced_or_restarted() -> None:
    definition = skill(name="one", entry="a").step("a", prompt="x", next=terminal).build()
    run = engine(definition)
    await run.start()
    assert (await run.advance("a", {})).kind == "done"
    again = await run.advance("a", {})
    assert again.error == "state" and "already finished" in again.message
    assert (await run.start()).error == "state"


async def test_prompt_less_steps_are_auto_advanced_and_reported_once() -> None:
    definition = (
        skill(name="auto", entry="first")
        .step("first", next="ask")
        .step("ask", prompt="Name?", response=Name, next="route")
        .step("route", next=lambda ctx: "end")
        .step("end", prompt="Done?", next=terminal)
        .build()
    )
    run = engine(definition)
    start = (await run.start()).to_wire()
    assert start["step"] == "ask" and "preamble" in start and "completed" not in start
    assert start["autoAdvanced"] == [{"step": "first", "response": {}, "result": {}}]
    nxt = (await run.advance("ask", {"name": "x"})).to_wire()
    assert nxt["completed"]["step"] == "ask"
    assert [r["step"] for r in nxt["autoAdvanced"]] == ["route"]
    assert run.path == ["first", "ask", "route", "end"]
    assert [r.step for r in run.store.steps.history] == ["first", "ask", "route"]


async def test_start_that_runs_to_the_end_is_done_with_auto_advanced_steps() -> None:
    definition = skill(name="auto", entry="a").step("a", next="b").step("b", next=terminal).build()
    wire = (await engine(definition).start()).to_wire()
    assert wire["kind"] == "done" and "completed" not in wire
    assert [r["step"] for r in wire["autoAdvanced"]] == ["a", "b"]


class Profile(BaseModel):
    name: str | None = None
    tags: list[str] = []


async def test_save_priority_and_sub_store_deep_merge() -> None:
    definition = (
        skill(name="s", entry="a", stores={"profile": Profile})
        .step(
            "a",
            prompt="x",
            response=Name,
            save=lambda ctx: {"step": {"kept": 1}, "profile": {"name": ctx.response.name}},
            next="b",
        )
        .step(
            "b",
            prompt="y",
            response=Name,
            save=lambda ctx: {"profile": {"tags": [ctx.response.name]}},
            next=terminal,
        )
        .build()
    )
    run = engine(definition)
    await run.start()
    result = await run.advance("a", {"name": "Ada"})
    assert result.completed.result == {"kept": 1}
    await run.advance("b", {"name": "t1"})
    assert run.store.profile == {"name": "Ada", "tags": ["t1"]}
    assert run.store.steps["a"].kept == 1


@pytest.mark.parametrize(
    ("save", "message"),
    [
        (lambda ctx: ["not", "a", "dict"], "save() must return a dict"),
        (lambda ctx: {"nowhere": {"x": 1}}, "neither 'step' nor a declared sub-store"),
        (lambda ctx: {"profile": {"age": 3}}, "has no such field"),
        (lambda ctx: {"profile": {"tags": "nope"}}, "invalid data to sub-store 'profile'"),
        (lambda ctx: 1 / 0, "save callback raised ZeroDivisionError"),
    ],
)
async def test_bad_save_is_an_error_naming_skill_and_step_and_changes_nothing(
    save, message
) -> None:
    definition = (
        skill(name="s", entry="a", stores={"profile": Profile})
        .step("a", prompt="x", response=Name, save=save, next=terminal)
        .build()
    )
    run = engine(definition)
    await run.start()
    result = await run.advance("a", {"name": "Ada"})
    assert result.kind == "error" and result.retry is False
    assert "skill 's', step 'a'" in result.message and message in result.message
    assert run.current == "a" and not run.store.steps.ran("a")
    assert run.store.profile == {}


async def test_next_callable_naming_a_missing_step_is_refused_without_change() -> None:
    definition = skill(name="s", entry="a").step("a", prompt="x", next=lambda ctx: "ghost").build()
    run = engine(definition)
    await run.start()
    result = await run.advance("a", {})
    assert result.kind == "error" and "'ghost', which is not a step" in result.message
    assert run.current == "a" and run.store.steps.history == ()


async def test_max_visits_redirects_to_on_max_visits() -> None:
    definition = (
        skill(name="loop", entry="a")
        .step("a", prompt="x", next="self", max_visits=2, on_max_visits="b")
        .step("b", prompt="y", next=terminal)
        .build()
    )
    run = engine(definition)
    await run.start()
    assert (await run.advance("a", {})).step == "a"
    assert (await run.advance("a", {})).step == "b"
    assert run.visits["a"] == 2


async def test_a_step_never_exceeds_its_own_limit_even_when_entered_from_elsewhere() -> None:
    definition = (
        skill(name="loop", entry="a")
        .step("a", prompt="x", next="b")
        .step("b", prompt="y", next="a", max_visits=1, on_max_visits="end")
        .step("end", prompt="z", next=terminal)
        .build()
    )
    run = engine(definition)
    await run.start()
    await run.advance("a", {})
    await run.advance("b", {})
    assert (await run.advance("a", {})).step == "end"
    assert run.visits["b"] == 1


async def test_exceeding_a_limit_without_fallback_is_a_clear_error() -> None:
    definition = (
        skill(name="loop", entry="a").step("a", prompt="x", next="self", max_visits=1).build()
    )
    run = engine(definition)
    await run.start()
    result = await run.advance("a", {})
    assert result.kind == "error" and "visit limit of 1" in result.message
    assert run.current == "a" and run.store.steps.history == ()


async def test_unguarded_cycles_get_the_implicit_limit_of_ten() -> None:
    definition = skill(name="loop", entry="a").step("a", prompt="x", next="self").build()
    run = engine(definition)
    result = await run.start()
    for _ in range(9):
        result = await run.advance("a", {})
        assert result.kind == "prompt"
    result = await run.advance("a", {})
    assert result.kind == "error" and "visit limit of 10" in result.message


class Fixed(BaseModel):
    count: int


async def test_actions_run_once_with_mapped_input_and_feed_the_store() -> None:
    calls = []

    async def run_it(ctx):
        calls.append(ctx.input)
        assert ctx.signal.cancelled is False
        await asyncio.sleep(0)
        return {"count": len(ctx.input.name)}

    count = action("count", input=Name, output=Fixed, run=run_it)
    definition = (
        skill(name="s", entry="a")
        .step(
            "a",
            prompt="x",
            response=Name,
            action={"run": count, "map_input": lambda ctx: {"name": ctx.response.name * 2}},
            next=[branch("big", when=lambda ctx: ctx.action_result.count > 4), branch("small")],
        )
        .step("big", prompt="big", next=terminal)
        .step("small", prompt="small", next=terminal)
        .build()
    )
    run = engine(definition)
    await run.start()
    result = await run.advance("a", {"name": "abc"})
    assert result.step == "big"
    assert result.completed.to_wire() == {
        "step": "a",
        "response": {"name": "abc"},
        "actionResult": {"count": 6},
        "result": {"count": 6},
    }
    assert [c.name for c in calls] == ["abcabc"]


async def test_failing_action_is_retryable_and_changes_nothing() -> None:
    def boom(ctx):
        raise RuntimeError("disk full")

    definition = (
        skill(name="s", entry="a").step("a", prompt="x", action=boom, next=terminal).build()
    )
    run = engine(definition)
    await run.start()
    result = await run.advance("a", {})
    assert (result.error, result.retry) == ("action", True)
    assert "disk full" in result.message and run.current == "a"


@pytest.mark.parametrize(
    ("options", "said"),
    [
        ({"action": lambda ctx: {"ratio": float("nan")}}, "returned nan at ['ratio']"),
        ({"save": lambda ctx: {"step": {"big": [1, float("inf")]}}}, "inf at ['big'][1]"),
    ],
    ids=["action", "save"],
)
async def test_a_number_json_cannot_hold_from_the_skills_own_code_is_a_runtime_error(
    options: dict, said: str
) -> None:
    # Written into a result as NaN, it was no JSON: the next call's --history and the
    # session file read back refused it, and the run fell back a step.
    definition = skill(name="s", entry="a").step("a", prompt="x", next=terminal, **options)
    run = engine(definition.build())
    await run.start()
    result = await run.advance("a", {})
    assert result.error == "runtime" and said in result.message, result.message
    assert "a number JSON cannot hold" in result.message and run.current == "a"


class _AsyncCall:
    async def __call__(self, ctx):
        return {"by": "async object"}


async def _async_action(ctx):
    return {"by": "async def"}


@pytest.mark.parametrize(
    ("run_it", "by", "through_runner"),
    [
        (lambda ctx: {"by": "def"}, "def", True),
        (_async_action, "async def", False),
        (functools.partial(_async_action), "async def", False),
        (_AsyncCall(), "async object", False),
    ],
    ids=["def", "async-def", "partial-of-async", "object-with-async-call"],
)
async def test_a_plain_action_runs_through_the_runner_a_server_sets(
    run_it, by: str, through_runner: bool
) -> None:
    # skillkit_core.protocol.mcp_tools sets a runner that moves plain actions to a thread.
    from skillkit_core.engine.actions import plain_action_runner

    seen = []

    async def runner(fn, ctx):
        seen.append(ctx.step)
        return fn(ctx)

    definition = (
        skill(name="s", entry="a").step("a", prompt="x", action=run_it, next=terminal).build()
    )
    run = engine(definition)
    await run.start()
    token = plain_action_runner.set(runner)
    try:
        result = await run.advance("a", {})
    finally:
        plain_action_runner.reset(token)
    assert result.to_wire()["finalOutput"] == {"by": by}
    assert run.finished and seen == (["a"] if through_runner else [])


async def test_final_output_schema_is_enforced_as_a_retryable_validation_error() -> None:
    definition = (
        skill(name="s", entry="a", final_output=Flag)
        .step("a", prompt="x", response=Name, next=terminal)
        .build()
    )
    run = engine(definition)
    await run.start()
    result = await run.advance("a", {"name": "x"})
    assert (result.error, result.retry) == ("validation", True)
    assert "final_output" in result.message and run.current == "a"


class Params(BaseModel):
    repo: str = "."
    depth: int = 1


async def test_params_defaults_are_applied_and_bad_params_refused() -> None:
    definition = (
        skill(name="s", entry="a", params=Params)
        .step(
            "a",
            prompt=lambda ctx: f"repo {ctx.params.repo} depth {ctx.params.depth}",
            next=terminal,
        )
        .build()
    )
    run = engine(definition, params={"depth": 2})
    assert run.params_data == {"repo": ".", "depth": 2}
    assert "repo . depth 2" in (await run.start()).prompt
    with pytest.raises(ParamsError, match="depth: Input should be a valid integer"):
        engine(definition, params={"depth": "deep"})


async def test_prompt_function_errors_name_the_step() -> None:
    definition = (
        skill(name="s", entry="a").step("a", prompt=lambda ctx: 1 / 0, next=terminal).build()
    )
    result = await engine(definition).start()
    assert result.kind == "error"
    assert "step 'a'" in result.message and "ZeroDivisionError" in result.message


async def test_store_reads_of_steps_that_did_not_run_explain_themselves() -> None:
    definition = (
        skill(name="s", entry="a")
        .step("a", prompt=lambda ctx: str(ctx.store.steps["b"]), next="b")
        .step("b", prompt="b", next=terminal)
        .build()
    )
    result = await engine(definition).start()
    assert "store.steps['b']: no result" in result.message
    assert "store.steps.get" in result.message
