"""No string the engine gives a meaning of its own can be confused with a step name.

The seeds' own example routes ``next: 'done'`` into a step named ``done``; the end of a run
used to be the string "done" inside the engine, so every way of naming that step ended the
run instead.
"""

import pytest

from skillkit_core import branch, skill, terminal
from skillkit_core.errors import SkillDefinitionError
from skillkit_core.testing import mock_model, run_skill_async


def _with_done_step(**first: object):
    return (
        skill(name="reserved", entry="start", description="Route into a step named done.")
        .step("start", prompt="Begin.", **first)
        .step("done", prompt="Wrap up.", next=terminal)
        .build()
    )


@pytest.mark.parametrize(
    "first",
    [
        {"next": "done"},
        {"next": [branch("done", when=lambda ctx: True), branch("start")]},
        {"next": lambda ctx: "done"},
        # The loop guard's fallback: the second visit of "start" goes to "done".
        {"next": "self", "max_visits": 1, "on_max_visits": "done"},
    ],
    ids=["next", "branch", "callable", "on_max_visits"],
)
async def test_a_step_named_done_is_entered(first: dict) -> None:
    run = await run_skill_async(
        _with_done_step(**first), model=mock_model({"start": ["ok", "ok"], "done": "ok"})
    )
    assert run.path == ["start", "done"]


@pytest.mark.parametrize(
    ("name", "meaning"),
    [
        ("self", "next='self' means the current step"),
        ("__parent__", "marks a template transition"),
        ("subskill:triage", "routes to a sub-skill"),
        ("topic:faq", "routes to a topic"),
    ],
)
def test_names_with_a_meaning_in_next_are_refused_as_step_names(name: str, meaning: str) -> None:
    with pytest.raises(SkillDefinitionError, match=f"step name '{name}' is reserved: .*{meaning}"):
        (
            skill(name="reserved", entry="a", description="d")
            .step("a", prompt="A.", next=name)
            .step(name, prompt="B.", next=terminal)
            .build()
        )
