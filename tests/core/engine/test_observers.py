"""Observers see every lifecycle event; a failing observer never changes the run."""

from skillkit_core import skill, terminal
from skillkit_core.testing import mock_model, run_skill
from tests.core.engine.skills import linear


def test_all_five_events_fire_in_order_with_their_fields() -> None:
    seen = []

    async def on_complete(event):
        seen.append(("complete", event.step, event.duration_ms >= 0))

    definition = (
        skill(
            name="obs",
            entry="a",
            observers={
                "on_step_start": lambda e: seen.append(("start", e.step)),
                "on_step_complete": on_complete,
                "on_step_validation_failed": lambda e: seen.append(("invalid", e.step, e.attempt)),
                "on_transition": lambda e: seen.append(("move", e.from_step, e.to_step, e.reason)),
                "on_skill_complete": lambda e: seen.append(("done", e.path, e.final_output)),
            },
        )
        .step("a", prompt="x", next="b")
        .step("b", prompt="y", next=terminal)
        .build()
    )
    run_skill(definition, model=mock_model({"a": {}, "b": {"k": 1}}))
    assert seen == [
        ("start", "a"),
        ("complete", "a", True),
        ("move", "a", "b", "next"),
        ("start", "b"),
        ("complete", "b", True),
        ("done", ("a", "b"), {"k": 1}),
    ]


def test_validation_failures_count_attempts() -> None:
    attempts = []
    base = linear()
    definition = (
        skill(
            name="obs",
            entry="a",
            observers={"on_step_validation_failed": lambda e: attempts.append(e.attempt)},
        )
        .step("a", prompt="x", response=base.steps["a"].response.source, next=terminal)
        .build()
    )
    import asyncio

    from skillkit_core.engine import WorkflowEngine

    async def go():
        run = WorkflowEngine(definition)
        await run.start()
        await run.advance("a", {})
        await run.advance("a", {"name": 3})
        return await run.advance("a", {"name": "ok"})

    assert asyncio.run(go()).kind == "done"
    assert attempts == [1, 2]


def test_a_raising_observer_is_logged_and_ignored(capsys) -> None:
    def broken(event):
        raise ValueError("observer bug")

    definition = (
        skill(name="obs", entry="a", observers={"on_step_start": broken})
        .step("a", prompt="x", next=terminal)
        .build()
    )
    result = run_skill(definition, model=mock_model({"a": {"v": 1}}))
    assert result.response == {"v": 1}
    assert "observer on_step_start failed" in capsys.readouterr().err
