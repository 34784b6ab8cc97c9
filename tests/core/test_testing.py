"""The testing helpers: mock answers, exhaustion, callables, and clear failures."""

import pytest
from pydantic import BaseModel

from skillkit_core import skill, terminal
from skillkit_core.testing import SkillRunError, mock_model, run_skill, run_skill_async


class Count(BaseModel):
    n: int


def looping():
    return (
        skill(name="loop", entry="a")
        .step(
            "a",
            prompt="Count.",
            response=Count,
            next=lambda ctx: "a" if ctx.response.n < 3 else "end",
            max_visits=5,
            on_max_visits="end",
        )
        .step(
            "end",
            prompt=lambda ctx: f"Reached {ctx.store.steps['a'].n}.",
            response=Count,
            next=terminal,
        )
        .build()
    )


def test_lists_are_consumed_one_answer_per_visit_and_callables_see_the_prompt() -> None:
    result = run_skill(
        looping(),
        model=mock_model(
            {
                "a": [{"n": 1}, {"n": 2}, {"n": 3}],
                "end": lambda prompt: {"n": int(prompt.split("Reached ")[1][0])},
            }
        ),
    )
    assert result.path == ["a", "a", "a", "end"]
    assert result.response == {"n": 3}
    assert result.outputs["a"] == {"n": 3}
    assert [r.step for r in result.history] == ["a", "a", "a", "end"]
    assert result.results[0]["kind"] == "prompt" and result.results[-1]["kind"] == "done"


def test_exhausted_answers_are_a_clear_error() -> None:
    with pytest.raises(SkillRunError, match="exhausted: visit 2 but only 1 answer"):
        run_skill(looping(), model=mock_model({"a": [{"n": 1}], "end": {"n": 0}}))


def test_missing_answers_and_invalid_answers_are_clear_errors() -> None:
    with pytest.raises(SkillRunError, match="no answer for step 'end'"):
        run_skill(looping(), model=mock_model({"a": {"n": 9}}))
    with pytest.raises(SkillRunError, match=r"step 'a' failed \(validation\): n: "):
        run_skill(looping(), model=mock_model({"a": {"n": "many"}}))


async def test_async_twin_runs_inside_an_event_loop() -> None:
    result = await run_skill_async(
        looping(), model=mock_model({"a": {"n": 5}, "end": {"n": 0}}), host="codex"
    )
    assert result.path == ["a", "end"]
