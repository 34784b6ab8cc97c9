"""Time ``skillkit check`` on 50 generated Python workflow skill files.

    .venv/bin/python bench/check_bench_workflow.py [--files 50] [--runs 3]

Reported, each the median of ``--runs``:

- ``skillkit check DIR`` as a fresh process (start-up, directory walk, the load worker's
  start, importing every module in it and linting), through the light entry point
  ``python -m skillkit_core.lint.check_command`` and through the ``skillkit`` command;
- the same files checked in this process (import + lint per file, no process start-up),
  to separate the linter's own cost from the worker's;
- the worker's start (a warm process, ready to take files) on its own.

The generated files are realistic and varied: 6 to 14 steps, string, list and callable
prompts, ask_user choices with Literal responses, guarded loops, store reads, host tool
guards, composites with sub-skills and topics; about a third carry lint findings.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HEADER = '''\
"""Generated skill {index}."""

from typing import Literal

from pydantic import BaseModel

from skillkit_core import act, branch, skill, terminal


class Choice(BaseModel):
    target: Literal["alpha", "beta"{extra_value}]


class Report(BaseModel):
    ok: bool
    notes: list[str] = []

'''

STEP_STRING = """\
    .step(
        "s{n}",
        prompt="Inspect part {n} of the project and report what you find.",
        response=Report,
        next="s{next}",
    )
"""

STEP_CALLABLE = """\
    .step(
        "s{n}",
        prompt=lambda ctx: (
            f"Part {n}: the choice was {{ctx.store.steps['s0'].target}}. "
            + ("Track it with TodoWrite." if "TodoWrite" in ctx.host.tools_available else "")
        ),
        response=Report,
        next=[branch("s{next}", when=lambda ctx: ctx.response.ok), branch("s{n}")],
        max_visits=3,
        on_max_visits="s{next}",
    )
"""

STEP_LOOP_UNGUARDED = """\
    .step(
        "s{n}",
        prompt=[act.checklist(create=[{{"title": "build"}}, {{"title": "test"}}]), "Work on it."],
        response=Report,
        next=[branch("s{n}", when=lambda ctx: not ctx.response.ok), branch("s{next}")],
    )
"""

STEP_STORE_READ = """\
    .step(
        "s{n}",
        prompt=lambda ctx: f"Summarise: {{ctx.store.steps['s{later}'].notes}}",
        response=Report,
        next="s{next}",
    )
"""


def skill_source(index: int) -> str:
    """One generated skill module; about a third have findings."""
    steps = 6 + index % 9
    flawed = index % 3 == 0
    parts = [HEADER.format(index=index, extra_value=', "gamma"' if flawed else "")]
    parts.append(
        f'skill_{index} = (\n    skill(name="generated-{index}", entry="s0", '
        f'description="Generated skill number {index}.")\n'
    )
    parts.append(
        '    .step(\n        "s0",\n        prompt=act.ask_user(\n'
        '            question="Which target?",\n            options=[\n'
        '                {"value": "alpha", "label": "Alpha"},\n'
        '                {"value": "beta", "label": "Beta"},\n            ],\n        ),\n'
        '        response=Choice,\n        next="s1",\n    )\n'
    )
    for n in range(1, steps):
        following = n + 1
        if n % 4 == 1:
            template = STEP_CALLABLE
        elif n % 4 == 2 and flawed:
            template = STEP_LOOP_UNGUARDED
        elif n % 4 == 3 and flawed:
            template = STEP_STORE_READ
        else:
            template = STEP_STRING
        parts.append(template.format(n=n, next=following, later=min(following, steps - 1)))
    parts.append(f'    .step("s{steps}", prompt="Report the results.", next=terminal)\n')
    if index % 10 == 5:
        parts.append('    .topic("guide", label="Guide", content="Read the guide first.")\n')
    parts.append("    .build()\n)\n")
    return "".join(parts)


def generate(root: Path, count: int) -> list[Path]:
    """``count`` skill files in ``root``."""
    files = []
    for index in range(count):
        path = root / f"skill_{index:03d}.py"
        path.write_text(skill_source(index), encoding="utf-8")
        files.append(path)
    return files


def median_seconds(action: Callable[[], object], runs: int) -> float:
    """The median wall time of ``runs`` calls of ``action``."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def run_check(command: list[str], root: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [*command, str(root), "--format", "json"], capture_output=True, text=True, check=False
    )
    if done.returncode not in (0, 1):
        raise SystemExit(f"check failed ({done.returncode}): {done.stderr}")
    return done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=50)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()

    import json

    from skillkit_core.lint.load_worker import LoadWorker, check_file

    root = Path(tempfile.mkdtemp(prefix="skillkit-check-bench-"))
    try:
        files = generate(root, args.files)
        light = [sys.executable, "-m", "skillkit_core.lint.check_command"]
        full = [str(Path(sys.executable).with_name("skillkit")), "check"]
        summary = json.loads(run_check(light, root).stdout)["summary"]
        light_time = median_seconds(lambda: run_check(light, root), args.runs)
        full_time = median_seconds(lambda: run_check(full, root), args.runs)
        in_process = median_seconds(lambda: [check_file(f) for f in files], args.runs)

        def start_worker() -> None:
            with LoadWorker() as worker:
                worker.check(files[0])

        worker_time = median_seconds(start_worker, args.runs)
        interpreter = median_seconds(
            lambda: subprocess.run([sys.executable, "-c", "pass"], check=True), args.runs
        )
    finally:
        shutil.rmtree(root, ignore_errors=True)

    print(f"interpreter: {sys.executable} (bare start {interpreter * 1000:.0f} ms)")
    print(
        f"{args.files} workflow skill files: {summary['targets']} targets, "
        f"{summary['errors']} errors, {summary['warnings']} warnings"
    )
    print(f"python -m skillkit_core.lint.check_command DIR  {light_time:6.2f} s")
    print(f"skillkit check DIR                             {full_time:6.2f} s")
    print(
        f"in process (import + lint, no start-up)        {in_process:6.2f} s "
        f"({in_process / args.files * 1000:.1f} ms per file)"
    )
    print(f"load worker start + first file                 {worker_time:6.2f} s")


if __name__ == "__main__":
    main()
