"""Per-call latency of the agent protocol, as an agent pays it: one subprocess per call.

    .venv/bin/python bench/protocol_bench.py [--runs N]

Measures (medians): the interpreter's own start (``python -c pass``), ``start`` in
stateless and session mode, stateless ``advance`` with 10 / 100 / 1,000 history entries,
and session ``advance`` with 10 / 100 / 1,000 earlier steps, with the snapshot sidecar
(the normal path) and without it (the rebuild-from-the-file path). Histories and
sessions are prepared in-process through the same ``main()``. Each figure is the median
of subprocess calls (``python -m skillkit_core.protocol``, the typer-free path a built
``scripts/run`` takes), next to the same call made in-process, which shows the
protocol's own work without the interpreter and import start-up.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

LOOP_SKILL = """
from pydantic import BaseModel

from skillkit_core import skill, terminal


class Note(BaseModel):
    text: str
    n: int


loop = (
    skill(name="loop", entry="ask", description="A step that repeats.")
    .step(
        "ask",
        prompt=lambda ctx: f"Visit {ctx.attempts}: write a note.",
        response=Note,
        next="self",
        max_visits=1_000_000,
        on_max_visits="end",
    )
    .step("end", prompt="Done.", next=terminal)
    .build()
)
"""

OUTPUT = json.dumps({"text": "ok", "n": 1})
DEPTHS = (10, 100, 1000)


@dataclass
class Case:
    """One measured call: ``argv`` for the subprocess, ``args`` for the in-process twin."""

    name: str
    argv: list[str]
    args: list[str] | None = None
    before: Callable[[], None] | None = None
    """Run untimed before every call (e.g. drop the sidecar to force a rebuild)."""
    samples: list[float] = field(default_factory=list)
    local: list[float] = field(default_factory=list)


def measure(cases: list[Case], definition: object, runs: int) -> None:
    """Round-robin over the cases (one warm-up round), so that load from elsewhere on the
    machine spreads evenly instead of skewing one figure."""
    for round_ in range(runs + 1):
        for case in cases:
            if case.before:
                case.before()
            start = time.perf_counter()
            done = subprocess.run(case.argv, capture_output=True, text=True, check=False)
            elapsed = (time.perf_counter() - start) * 1000
            if done.returncode != 0:
                raise SystemExit(f"{case.name} failed:\n{done.stdout}\n{done.stderr}")
            if case.args is not None:
                if case.before:
                    case.before()
                start = time.perf_counter()
                in_process(definition, case.args)
                local = (time.perf_counter() - start) * 1000
            if round_:
                case.samples.append(elapsed)
                if case.args is not None:
                    case.local.append(local)


def in_process(definition, argv: list[str]) -> str:
    """Run one protocol call in this process; its stdout."""
    from skillkit_core.protocol import main

    out, err = io.StringIO(), io.StringIO()
    code = main(definition, argv, stdout=out, stderr=err)
    if code != 0:
        raise SystemExit(f"setup call {argv[:3]} failed: {out.getvalue()} {err.getvalue()}")
    return out.getvalue()


def history_of(length: int) -> str:
    return json.dumps([{"step": "ask", "response": {"text": "ok", "n": 1}}] * length)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="timed runs per figure")
    runs = parser.parse_args().runs

    from skillkit_core.loader import load_entry

    work = Path(tempfile.mkdtemp(prefix="skillkit-protocol-bench-"))
    entry = work / "loop_skill.py"
    entry.write_text(LOOP_SKILL)
    definition = load_entry(str(entry))
    sessions = work / "sessions"
    base = [sys.executable, "-m", "skillkit_core.protocol", str(entry)]
    new_session = ["--session", "new", "--session-dir", str(sessions)]
    cases = [
        Case("python -c pass", [sys.executable, "-c", "pass"]),
        Case("start (stateless)", [*base, "--host", "claude-code"], ["--host", "claude-code"]),
        Case("start --session new", [*base, *new_session], new_session),
    ]
    for depth in DEPTHS:
        args = ["advance", "--step", "ask", "--output", OUTPUT, "--history", history_of(depth)]
        cases.append(Case(f"advance, stateless, {depth} history entries", [*base, *args], args))
    for depth in DEPTHS:
        pointer = json.loads(in_process(definition, [*new_session, "--output-mode", "flag"]))
        session = pointer["sessionId"]
        args = ["advance", "--session", session, "--session-dir", str(sessions)]
        args += ["--step", "ask", "--output", OUTPUT]
        for _ in range(depth):
            in_process(definition, args)
        sidecar = sessions / f"skill-kit-{session}.snapshot.json"
        cases.append(Case(f"advance, session, {depth} earlier steps", [*base, *args], args))
        cases.append(
            Case(
                "  same, sidecar deleted (rebuild from the file)",
                [*base, *args],
                args,
                before=lambda path=sidecar: path.unlink(missing_ok=True),
            )
        )
    measure(cases, definition, runs)

    print(f"interpreter: {sys.executable} (Python {sys.version.split()[0]})")
    print(f"median of {runs} runs per figure, in ms; in-process = main() without start-up\n")
    width = max(len(case.name) for case in cases)
    print(f"{'call':<{width}}  {'process':>8}  {'in-process':>10}")
    for case in cases:
        local = f"{statistics.median(case.local):10.1f}" if case.local else f"{'':>10}"
        print(f"{case.name:<{width}}  {statistics.median(case.samples):8.1f}  {local}")
    if os.environ.get("SKILLKIT_BENCH_KEEP") is None:
        import shutil

        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
