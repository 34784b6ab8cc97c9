"""Per-call cost of a built skill's ``scripts/run``: one process per call, as agents use it.

    .venv/bin/python bench/run_cold_start_bench.py [--runs 25] [--skill-dir DIR]
                                                   [--entry FILE.py] [--importtime]

Builds the entry (default: the deploy-check example, pyz mode, ``--single``) unless
``--skill-dir`` names a built folder, then measures, each over ``--runs`` fresh
processes:

- ``start --session new``: a new session and its first prompt;
- ``advance --session ID``: one answer submitted (each run on a fresh session whose
  first output line is already written, so every call does the same work);
- ``advance`` in stateless mode with 100 history entries, on a second build: a one-step
  loop skill (:data:`LOOP_SKILL`), since a run of the default skill has four steps at most;
- ``start --session new`` of that loop skill, whose prompt is a function: a start that
  cannot be served from build-time data (``skillkit_core.build.start_data``) and takes the
  full path (the default skill's start is served precomputed when cold; the report says
  which);
- ``python -c pass`` and ``python -I -S -c pass`` for the same interpreter, in the same
  run, as the floor to compare with.

Each call is measured twice, interleaved: *warm*, as an agent's calls after the first run
(a warm process of the skill is left by an untimed first call; see
``skillkit_core.build.warm``), and *cold*, with ``SKILLKIT_WARM=0`` (the first call of a
session that finds no warm process, or where warm processes are off or unsupported). Each
target (median per call ≤ ``TARGET_MS``) is printed for both, with the ``python -I -S -c
pass`` anchor of the same run and the ratio to it: on a shared machine, compare ratios
within one run, never absolute times from different runs. The warm processes the bench
starts live in its own socket folder and are ended before it exits.

The interpreter is the one ``python3`` on PATH resolves to, run directly (through
``SKILLKIT_PYTHON``) so that a version-manager shim's own start-up does not count; the
report names it, and also times one round through the shim when ``python3`` is one.
``--importtime`` prints the slowest imports of one cold ``start`` (``python -X
importtime``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_ENTRY = ROOT / "examples" / "deploy-check" / "deploy_check.py"
DEFAULT_PARAMS = "{}"
DEFAULT_STEP, DEFAULT_OUTPUT = "choose", {"target": "staging"}
TARGET_MS = 50.0
HISTORY_LENGTH = 100

LOOP_SKILL = """\
from pydantic import BaseModel

from skillkit_core import skill, terminal


class Note(BaseModel):
    text: str
    n: int


loop = (
    skill(name="loop", entry="ask", description="A step that repeats, for benchmarks.")
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
LOOP_OUTPUT = {"text": "ok", "n": 1}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=25)
    parser.add_argument("--skill-dir", type=Path, help="an already built skill folder")
    parser.add_argument("--entry", type=Path, default=DEFAULT_ENTRY)
    parser.add_argument("--params", default=DEFAULT_PARAMS)
    parser.add_argument("--step", default=DEFAULT_STEP, help="first step (for advance)")
    parser.add_argument("--output", default=json.dumps(DEFAULT_OUTPUT), help="its answer")
    parser.add_argument("--importtime", action="store_true")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    if args.runs < 20:
        parser.error("--runs must be at least 20")

    python = interpreter()
    # Under /tmp itself: a warm process's socket path must stay short.
    with tempfile.TemporaryDirectory(prefix="skillkit-bench-", dir=short_temp()) as scratch:
        work = Path(scratch)
        skill_dir = args.skill_dir or build(args.entry, work)
        run = skill_dir / "scripts" / "run"
        env = {
            **os.environ,
            "SKILLKIT_PYTHON": python,
            "SKILLKIT_CACHE_DIR": str(work / "cache"),
            "SKILLKIT_WARM_DIR": str(work / "warm"),
        }
        try:
            figures = measure_all(args, python, run, env, work)
        finally:
            end_warm_processes(work / "warm")
        figures["start_precomputed"] = precomputed(skill_dir)
        if args.importtime:
            print_importtime(run, {**env, "SKILLKIT_WARM": "0"}, args.params)
    figures["interpreter"] = interpreter_description(python)
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        report(figures)
    return 0


def measure_all(
    args: argparse.Namespace, python: str, run: Path, env: dict[str, str], work: Path
) -> dict[str, object]:
    sessions = work / "sessions"
    cold_env = {**env, "SKILLKIT_WARM": "0"}
    bench = Bench(run, cold_env, sessions, args.params, args.step, json.loads(args.output))
    first = bench.time_start()  # unpacks the bundle into the cache, once
    loop_entry = work / "loop.py"
    loop_entry.write_text(LOOP_SKILL, encoding="utf-8")
    loop_run = build(loop_entry, work) / "scripts" / "run"
    stateless = stateless_arguments(HISTORY_LENGTH)
    timed([str(loop_run), *stateless], cold_env, bench.cwd)  # unpacks this bundle too
    loop = Bench(loop_run, cold_env, sessions, "{}", "ask", LOOP_OUTPUT)
    cold = (bench, loop)
    warm = (bench.with_env(env), loop.with_env(env))
    for skill in warm:  # each leaves its warm process, untimed
        skill.time_start()
    figures = measure(python, args.runs, {"cold": cold, "warm": warm}, stateless)
    figures["first_call_ms"] = round(first[0] * 1000, 1)
    figures["via_path_python3_ms"] = shim_round(bench)
    return figures


def short_temp() -> str | None:
    return "/tmp" if os.path.isdir("/tmp") else None


def end_warm_processes(folder: Path) -> None:
    """End the warm processes whose sockets are in ``folder`` (each wrote its pid into
    its lock file)."""
    import signal

    for lock in folder.glob("*.lock") if folder.is_dir() else ():
        try:
            pid = int(lock.read_text().strip())
            if b".pyz" in Path(f"/proc/{pid}/cmdline").read_bytes():
                os.kill(pid, signal.SIGTERM)
        except (OSError, ValueError):
            continue


def interpreter() -> str:
    """The real executable behind ``python3`` on PATH (past any pyenv-style shim)."""
    found = shutil.which("python3")
    if found is None:
        sys.exit("python3 is not on PATH")
    done = subprocess.run(
        [found, "-c", "import sys; print(sys.executable)"], capture_output=True, text=True
    )
    return done.stdout.strip() or found


def interpreter_description(python: str) -> str:
    version = subprocess.run(
        [python, "-c", "import sys; print(sys.version.split()[0])"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    shim = shutil.which("python3")
    via = f"; python3 on PATH is {shim}" if shim and os.path.realpath(shim) != python else ""
    return f"CPython {version} at {python}{via}"


def build(entry: Path, work: Path) -> Path:
    # Named after the skill (the spec wants folder and name to match).
    out = work / entry.stem.replace("_", "-")
    command = [sys.executable, "-m", "skillkit_core.cli", "build", str(entry), "-o", str(out)]
    done = subprocess.run(
        [*command, "--single"],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        sys.exit(f"build failed:\n{done.stderr}")
    return out


class Bench:
    """Timed calls of one built skill."""

    def __init__(
        self, run: Path, env: dict[str, str], sessions: Path, params: str, step: str, output: object
    ) -> None:
        self.run, self.env, self.sessions = run, env, sessions
        self.params, self.step, self.output = params, step, output
        self.cwd = Path(tempfile.gettempdir())  # not the skill folder: as an agent runs it

    def with_env(self, env: dict[str, str]) -> Bench:
        """The same calls in another environment."""
        return Bench(self.run, env, self.sessions, self.params, self.step, self.output)

    def call(self, *arguments: str) -> tuple[Timing, str]:
        timing, stdout, stderr, code = timed([str(self.run), *arguments], self.env, self.cwd)
        if code != 0:
            sys.exit(f"scripts/run {' '.join(arguments)} failed:\n{stdout}{stderr}")
        return timing, stdout

    def start_arguments(self) -> list[str]:
        return [
            *("start", "--params", self.params, "--session", "new"),
            *("--session-dir", str(self.sessions)),
        ]

    def time_start(self) -> Timing:
        return self.call(*self.start_arguments())[0]

    def time_advance(self) -> Timing:
        _, pointer = self.call(*self.start_arguments())
        session = json.loads(pointer)
        line = {"type": "output", "step": self.step, "output": self.output}
        with open(session["file"], "a", encoding="utf-8") as handle:
            handle.write(json.dumps(line) + "\n")
        timing, printed = self.call(
            "advance", "--session", session["sessionId"], "--session-dir", str(self.sessions)
        )
        if not printed.strip().isdigit():
            sys.exit(f"advance printed {printed!r}, not a line number")
        return timing


def stateless_arguments(length: int) -> list[str]:
    """``advance`` of the loop skill with ``length`` earlier answers as history."""
    history = [{"step": "ask", "response": LOOP_OUTPUT}] * length
    return [
        *("advance", "--step", "ask", "--output", json.dumps(LOOP_OUTPUT)),
        *("--history", json.dumps(history)),
    ]


Timing = tuple[float, float]
"""(wall seconds, CPU seconds): CPU time (user + system) of the process is far less
disturbed by other work on a shared machine than the wall clock."""


def timed(argv: list[str], env: dict[str, str] | None = None, cwd: Path | None = None):
    """Run ``argv``; its timing, stdout, stderr and exit code."""
    started = time.perf_counter()
    process = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=cwd, text=True
    )
    stdout, stderr = process.stdout.read(), process.stderr.read()  # type: ignore[union-attr]
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    return (wall, usage.ru_utime + usage.ru_stime), stdout, stderr, process.returncode


SERIES = ("start", "start_full", "advance", "advance_stateless")
"""The measured calls, each with its own target."""
MODES = ("warm", "cold")


def precomputed(skill_dir: Path) -> bool:
    """Whether the build stored the skill's first result (see ``build.start_data``)."""
    import zipfile

    pyz = next((skill_dir / "bin").glob("*.pyz"))
    with zipfile.ZipFile(pyz) as archive:
        return "'start': {" in archive.read("__main__.py").decode()


def measure(
    python: str, runs: int, skills: dict[str, tuple[Bench, Bench]], stateless: list[str]
) -> dict[str, object]:
    """``skills``: per mode, the measured skill and the loop skill."""
    names = [f"{name}_{mode}" for name in SERIES for mode in MODES]
    samples: dict[str, list[Timing]] = {name: [] for name in (*names, "pass", "pass_isolated")}
    for _ in range(runs):  # interleaved, so a noisy moment hits every series alike
        samples["pass"].append(timed([python, "-c", "pass"])[0])
        samples["pass_isolated"].append(timed([python, "-I", "-S", "-c", "pass"])[0])
        for mode, (bench, loop) in skills.items():
            samples[f"start_{mode}"].append(bench.time_start())
            samples[f"start_full_{mode}"].append(loop.time_start())
            samples[f"advance_{mode}"].append(bench.time_advance())
            argv = [str(loop.run), *stateless]
            timing, stdout, stderr, code = timed(argv, loop.env, loop.cwd)
            if code != 0 or '"kind":"prompt"' not in stdout:
                sys.exit(f"stateless advance failed:\n{stdout}{stderr}")
            samples[f"advance_stateless_{mode}"].append(timing)
    figures: dict[str, object] = {"runs": runs}
    for name, values in samples.items():
        ms = sorted(wall * 1000 for wall, _ in values)
        figures[name] = {
            "median_ms": round(statistics.median(ms), 1),
            "min_ms": round(ms[0], 1),
            "p90_ms": round(ms[int(0.9 * (len(ms) - 1))], 1),
            "cpu_median_ms": round(statistics.median(cpu * 1000 for _, cpu in values), 1),
        }
    anchor = figures["pass_isolated"]["median_ms"]  # type: ignore[index]
    for name in names:
        median = figures[name]["median_ms"]  # type: ignore[index]
        figures[name]["ratio_to_anchor"] = round(median / anchor, 2)  # type: ignore[index]
    return figures


def shim_round(bench: Bench) -> float | None:
    """One median of five ``start`` calls with ``python3`` looked up on PATH as the
    wrapper does by default (a pyenv shim adds its own start-up)."""
    env = dict(bench.env)
    env.pop("SKILLKIT_PYTHON", None)
    plain = bench.with_env(env)
    return round(statistics.median(plain.time_start()[0] for _ in range(5)) * 1000, 1)


def print_importtime(run: Path, env: dict[str, str], params: str, top: int = 15) -> None:
    """Where one ``start`` spends its import time: self time summed per package
    (skillkit's subpackages apart), then the slowest single imports (cumulative)."""
    pyz = next((run.parent.parent / "bin").glob("*.pyz"))
    python = env["SKILLKIT_PYTHON"]
    done = subprocess.run(
        [python, "-I", "-S", "-X", "importtime", str(pyz), "start", "--params", params],
        capture_output=True,
        text=True,
        env=env,
    )
    rows = _importtime_rows(done.stderr)
    groups: dict[str, int] = {}
    for _cumulative, own, name in rows:
        parts = name.strip().split(".")
        key = ".".join(parts[:2]) if parts[0] == "skillkit_core" else parts[0]
        groups[key] = groups.get(key, 0) + own
    total = sum(groups.values())
    print(f"Import time of one start: {total / 1000:.1f} ms (self time by package):")
    for key, own in sorted(groups.items(), key=lambda item: -item[1])[:top]:
        print(f"  {own / 1000:7.1f} ms  {key}")
    print(f"Slowest single imports (cumulative), top {top}:")
    for cumulative, _own, name in sorted(rows, reverse=True)[:top]:
        print(f"  {cumulative / 1000:7.1f} ms  {name.strip()}")


def _importtime_rows(text: str) -> list[tuple[int, int, str]]:
    rows = []
    for line in text.splitlines():
        if not line.startswith("import time:"):
            continue
        fields = line[len("import time:") :].split("|")
        if len(fields) != 3 or not fields[0].strip().isdigit():
            continue
        rows.append((int(fields[1]), int(fields[0]), fields[2].rstrip()))
    return rows


LABELS = {
    "start": "start --session new",
    "start_full": "start --session new, loop skill",
    "advance": "advance --session",
    "advance_stateless": f"advance, stateless, {HISTORY_LENGTH} history",
}


def report(figures: dict[str, object]) -> None:
    print(f"Interpreter: {figures['interpreter']}")
    print(f"Runs per series: {figures['runs']} (interleaved)")
    print(f"First call (unpacks the bundle into the cache, once): {figures['first_call_ms']} ms")
    print(f"{'series':<42}{'median':>10}{'min':>10}{'p90':>10}{'CPU':>10}{'× anchor':>10}")
    rows = {"pass": "python -c pass", "pass_isolated": "python -I -S -c pass (anchor)"}
    for key, label in LABELS.items():
        for mode in MODES:
            rows[f"{key}_{mode}"] = f"{label} ({mode})"
    for key, label in rows.items():
        row = figures[key]
        ratio = row.get("ratio_to_anchor", "")  # type: ignore[union-attr]
        print(
            f"{label:<42}{row['median_ms']:>8} ms{row['min_ms']:>7} ms"  # type: ignore[index]
            f"{row['p90_ms']:>7} ms{row['cpu_median_ms']:>7} ms{ratio:>10}"  # type: ignore[index]
        )
    print("CPU: of the calling process only (a warm call's work is done by the warm process)")
    print(f"cold start through python3 on PATH (median of 5): {figures['via_path_python3_ms']} ms")
    served = "served from build-time data" if figures["start_precomputed"] else "full path"
    print(f"cold start of the measured skill: {served}; the loop skill's start: full path")
    anchor = figures["pass_isolated"]["median_ms"]  # type: ignore[index]
    for key, label in LABELS.items():
        for mode in MODES:
            row = figures[f"{key}_{mode}"]
            median, ratio = row["median_ms"], row["ratio_to_anchor"]  # type: ignore[index]
            verdict = "meets" if median <= TARGET_MS else "misses"
            print(
                f"target scripts/run {label} ({mode}): median {median} ms ≤ {TARGET_MS:.0f} ms? "
                f"{verdict} (anchor python -I -S -c pass {anchor} ms in this run; {ratio}×)"
            )


if __name__ == "__main__":
    sys.exit(main())
