"""Author mistakes met while a step completes, and cancelling a running action."""

import asyncio

import pytest

from skillkit_core import action, skill, terminal
from skillkit_core.engine import Handshake, WorkflowEngine
from tests.core.engine.skills import Name


class Opaque:
    """Neither JSON data nor a pydantic model."""


def engine(definition, **kwargs):
    return WorkflowEngine(definition, Handshake(host="claude-code"), **kwargs)


# ---------------------------------------------------------------- JSON-less values


async def test_save_returning_a_non_json_step_result_is_refused_naming_skill_and_step() -> None:
    definition = (
        skill(name="s", entry="a", stores={"notes": dict})
        .step(
            "a",
            prompt="x",
            response=Name,
            save=lambda ctx: {"notes": {"seen": True}, "step": Opaque()},
            next="b",
        )
        .step("b", prompt="y", next=terminal)
        .build()
    )
    run = engine(definition)
    await run.start()
    result = await run.advance("a", {"name": "Ada"})
    assert result.kind == "error" and result.error == "runtime" and result.retry is False
    assert result.step == "a"
    assert "skill 's', step 'a'" in result.message
    assert "save() returned {'step': <Opaque>}" in result.message
    assert "return plain data" in result.message
    assert run.current == "a" and run.store.steps.history == ()
    assert run.store.notes.get("seen") is None  # the earlier store write was rolled back


async def test_save_writing_a_non_json_store_value_is_refused() -> None:
    definition = (
        skill(name="s", entry="a", stores={"notes": dict})
        .step("a", prompt="x", save=lambda ctx: {"notes": {"x": Opaque()}}, next=terminal)
        .build()
    )
    run = engine(definition)
    await run.start()
    result = await run.advance("a", {})
    assert result.kind == "error" and "save() returned {'notes': <dict>}" in result.message
    assert run.current == "a" and not run.finished


async def test_inline_action_returning_a_non_json_value_is_refused_without_change() -> None:
    runs = []

    def act_out(ctx):
        runs.append(ctx.input)
        return Opaque()

    definition = (
        skill(name="s", entry="a")
        .step("a", prompt="x", action=act_out, next="b")
        .step("b", prompt="y", next=terminal)
        .build()
    )
    run = engine(definition)
    await run.start()
    result = await run.advance("a", {"k": 1})
    assert result.kind == "error" and result.error == "runtime" and result.retry is False
    assert "skill 's', step 'a': action 'act_out'" in result.message
    assert "returned a Opaque that cannot be recorded as JSON" in result.message
    assert "output=" in result.message
    assert run.current == "a" and run.store.steps.history == () and runs == [{"k": 1}]


# ---------------------------------------------------------------- cancellation


def waiting_skill(seen: list, started: asyncio.Event, *, release: asyncio.Event | None = None):
    async def wait(ctx):
        started.set()
        try:
            if release is None:
                await asyncio.sleep(30)
            else:
                while not ctx.signal.cancelled and not release.is_set():
                    await asyncio.sleep(0.001)
        except asyncio.CancelledError:
            seen.append(("cancelled", ctx.signal.cancelled, ctx.signal.reason))
            raise
        seen.append(("returned", ctx.signal.cancelled))
        return {"ok": True}

    return (
        skill(name="s", entry="a")
        .step("a", prompt="x", action=action("wait", input=None, output=dict, run=wait), next="b")
        .step("b", prompt="y", next=terminal)
        .build()
    )


async def test_cancelling_the_advancing_task_sets_the_signal_before_the_action_sees_it() -> None:
    seen: list = []
    started = asyncio.Event()
    run = engine(waiting_skill(seen, started))
    await run.start()
    task = asyncio.create_task(run.advance("a", {}))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert task.cancelled()
    assert seen == [("cancelled", True, "the task running the action was cancelled")]
    assert run.current == "a" and run.store.steps.history == ()


async def test_a_retry_after_engine_cancel_runs_with_a_fresh_signal_and_succeeds() -> None:
    seen: list = []
    started = asyncio.Event()
    release = asyncio.Event()
    run = engine(waiting_skill(seen, started, release=release))
    await run.start()
    task = asyncio.create_task(run.advance("a", {}))
    await started.wait()
    run.cancel("user stopped it")
    result = await task
    assert result.kind == "error" and result.error == "action" and result.retry is True
    assert "cancelled (user stopped it)" in result.message
    assert run.current == "a" and run.store.steps.history == ()

    release.set()
    result = await run.advance("a", {})
    assert result.kind == "prompt" and result.step == "b"
    assert seen == [("returned", True), ("returned", False)]
    assert result.completed.action_result == {"ok": True}


async def test_cancel_without_a_running_action_does_not_poison_the_next_one() -> None:
    seen: list = []
    started = asyncio.Event()
    release = asyncio.Event()
    release.set()
    run = engine(waiting_skill(seen, started, release=release))
    await run.start()
    run.cancel()
    result = await run.advance("a", {})
    assert result.kind == "prompt" and seen == [("returned", False)]


# ---------------------------------------------------------------- schemas


async def test_a_response_without_json_schema_is_refused_at_start_naming_skill_and_step() -> None:
    from collections.abc import Callable

    from pydantic import BaseModel, ConfigDict

    class Plan(BaseModel):
        model_config = ConfigDict(arbitrary_types_allowed=True)
        on_done: Callable[[], None]

    definition = skill(name="s", entry="a").step("a", prompt="x", response=Plan, next=terminal)
    result = await engine(definition.build()).start()
    assert result.kind == "error" and result.error == "runtime" and result.step == "a"
    assert "skill 's', step 'a': response=Plan cannot produce a JSON Schema" in result.message
