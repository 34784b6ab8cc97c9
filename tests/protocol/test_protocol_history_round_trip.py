"""Through the real CLI, stateless: what ``completed`` holds goes back as ``--history``
and the run goes on (an aliased field used to come back under its Python name and end
the run with a history error), and an integer too large for a float field is a
retryable validation error, never ``Infinity`` in the output."""

from __future__ import annotations

import json
from pathlib import Path

from tests.protocol.support import ok, run

SKILL = """\
from pydantic import BaseModel, Field

from skillkit_core import skill, terminal


class Who(BaseModel):
    user_name: str = Field(alias="userName")


class Reading(BaseModel):
    value: float


aliased = (
    skill(name="aliased", entry="who", description="Aliases.")
    .step("who", prompt="Who?", response=Who, next="read")
    .step("read", prompt="Read it.", response=Reading, next="end")
    .step("end", prompt=lambda ctx: f"Bye {ctx.store.steps['who'].user_name}.", next=terminal)
    .build()
)
"""


def test_completed_objects_replay_as_history(tmp_path: Path) -> None:
    entry = tmp_path / "aliased.py"
    entry.write_text(SKILL)
    first = ok(
        run(
            str(entry),
            "advance",
            "--step",
            "who",
            "--output",
            '{"userName": "Ada"}',
            "--history",
            "[]",
        )
    )
    assert first["step"] == "read"
    assert first["completed"]["response"] == {"userName": "Ada"}
    history = json.dumps([first["completed"]])
    huge = run(
        str(entry),
        "advance",
        "--step",
        "read",
        "--output",
        '{"value": 1' + "0" * 309 + "}",
        "--history",
        history,
    )
    assert huge.code == 0 and "Infinity" not in huge.stdout
    assert (huge.json["error"], huge.json["retry"]) == ("validation", True)
    assert huge.json["message"].startswith("value: a number that JSON cannot hold")
    second = ok(
        run(
            str(entry),
            "advance",
            "--step",
            "read",
            "--output",
            '{"value": 2.5}',
            "--history",
            history,
        )
    )
    assert second["step"] == "end" and "Bye Ada." in second["prompt"]
