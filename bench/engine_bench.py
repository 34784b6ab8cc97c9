"""Engine throughput and replay cost.

    .venv/bin/python bench/engine_bench.py

Measures steps per second through ``run_skill`` on a 50-step linear skill, and the time to
replay histories of 10, 100 and 1,000 entries (replay must grow linearly).
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time

from pydantic import BaseModel

from skillkit_core import skill, terminal
from skillkit_core.engine import WorkflowEngine
from skillkit_core.testing import mock_model, run_skill


class Note(BaseModel):
    text: str
    n: int


def linear_skill(steps: int):
    builder = skill(name="linear", entry="s0")
    for i in range(steps):
        nxt = f"s{i + 1}" if i + 1 < steps else terminal
        builder = builder.step(f"s{i}", prompt=f"Step {i}.", response=Note, next=nxt)
    return builder.build()


def loop_skill():
    return (
        skill(name="loop", entry="ask")
        .step(
            "ask",
            prompt=lambda ctx: f"Visit {ctx.attempts}.",
            response=Note,
            next="self",
            max_visits=100_000,
            on_max_visits="end",
        )
        .step("end", prompt="Done.", next=terminal)
        .build()
    )


def throughput(steps: int = 50, rounds: int = 20) -> float:
    definition = linear_skill(steps)
    answers = {f"s{i}": {"text": "ok", "n": i} for i in range(steps)}
    run_skill(definition, model=mock_model(answers))
    start = time.perf_counter()
    for _ in range(rounds):
        run_skill(definition, model=mock_model(answers))
    return steps * rounds / (time.perf_counter() - start)


def replay_cost(entries: int, repeats: int = 7) -> float:
    definition = loop_skill()
    history = [{"step": "ask", "response": {"text": "x", "n": i}} for i in range(entries)]

    async def once() -> float:
        engine = WorkflowEngine(definition)
        start = time.perf_counter()
        await engine.replay(history)
        return time.perf_counter() - start

    return statistics.median(asyncio.run(once()) for _ in range(repeats))


def main() -> None:
    print(f"python {sys.version.split()[0]} at {sys.executable}")
    print(f"run_skill, 50-step linear skill: {throughput():,.0f} steps/s")
    base = None
    for n in (10, 100, 1000):
        seconds = replay_cost(n)
        per = seconds / n * 1e6
        base = base or per
        print(
            f"replay {n:>5} entries: {seconds * 1e3:8.2f} ms  ({per:6.1f} µs/entry, "
            f"{per / base:4.2f}x the 10-entry cost per entry)"
        )


if __name__ == "__main__":
    main()
