"""Time ``skillkit check`` beside ``agnix``: generated folders, a real corpus, one skill.

    .venv/bin/python bench/check_bench.py [--folders 200] [--runs 5]
        [--corpus ../shared/corpus] [--skill obra+superpowers/skills/brainstorming]

Three cases, each run by both linters as a fresh process (their own start-up included),
``--runs`` times, interleaved; the median wall time is reported with the ratio to agnix
from the same run:

- ``--folders`` generated SKILL.md folders (mostly valid, some typical mistakes);
- the real skills of ``--corpus`` passed as one root (issue 24: at most agnix's time);
- one skill folder of the corpus, ``--skill`` (issue 24: at most 3x agnix's time).

``agnix`` (a Rust linter for agent configurations, on PyPI) is not a dependency of this
project: install it into a throwaway environment (``python3 -m venv /tmp/agnix &&
/tmp/agnix/bin/pip install agnix``) and point the ``AGNIX`` environment variable at its
binary; without it only our figures are printed. ``skillkit`` is the console script beside
this interpreter (``-m skillkit_core`` where there is none), run with bytecode writing
allowed and once before timing, as an installed copy runs. The in-process time of the
core function on the generated folders is reported too (it forks its helpers as the
command does, with its imports warm), to separate the linter's own cost from interpreter
start-up and imports; ``python -c pass`` is the interpreter's own start.

The figures depend on the interpreter: a CPython built without PGO and LTO (pyenv's
default build) runs the same command about a tenth slower than a distribution's
optimised build. Run this file with another environment's Python to compare.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

DESCRIPTION = "Extract text and tables from PDF files. Use when the user sends a PDF."


def generate(root: Path, count: int) -> None:
    """``count`` skill folders: mostly valid, a share with typical mistakes, some scripts."""
    for index in range(count):
        name = f"skill-{index:03d}"
        folder = root / name
        (folder / "references").mkdir(parents=True)
        (folder / "scripts").mkdir()
        extra = ""
        if index % 5 == 1:
            extra = "metadata:\n  version: 1.0\n"
        if index % 7 == 2:
            extra += "allowed-tools: Read Bash\n"
        shown = name.upper() if index % 11 == 3 else name
        body = "\n".join(
            [
                f"# {name}",
                "",
                "Read [the guide](references/guide.md) before you start.",
                "Run `python scripts/extract.py input.pdf` to extract text.",
                *(f"- step {n}: do the thing carefully" for n in range(40)),
                "",
            ]
        )
        (folder / "SKILL.md").write_text(
            f"---\nname: {shown}\ndescription: {DESCRIPTION}\n{extra}---\n{body}",
            encoding="utf-8",
        )
        (folder / "references" / "guide.md").write_text("# Guide\n\nDetails.\n")
        script = folder / "scripts" / "extract.py"
        script.write_text("#!/usr/bin/env python3\nimport sys\nprint(sys.argv)\n")
        script.chmod(0o755)


def timed(commands: dict[str, list[str]], runs: int) -> dict[str, list[float]]:
    """Wall times of each command, run in turn ``runs`` times (interleaved, so a burst of
    load on the machine hits every command alike) after one untimed round (it writes
    the bytecode an installed copy has). Exit codes 0, 1 and 3 are normal."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    times: dict[str, list[float]] = {name: [] for name in commands}
    for round_ in range(runs + 1):
        for name, command in commands.items():
            start = time.perf_counter()
            done = subprocess.run(command, capture_output=True, check=False, env=env)
            if round_:
                times[name].append(time.perf_counter() - start)
            if done.returncode not in (0, 1, 3):
                raise SystemExit(f"{name} failed ({done.returncode}): {done.stderr[-500:]!r}")
    return times


def timed_call(call: Callable[[], object], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return times


def find_agnix() -> str | None:
    return os.environ.get("AGNIX") or shutil.which("agnix")


def skillkit_command(given: str | None = None) -> list[str]:
    """``given`` (split like a shell), else the console script beside this interpreter
    (what a user runs), else ``-m``."""
    if given:
        return shlex.split(given)
    script = Path(sys.executable).with_name("skillkit")
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-m", "skillkit_core"]


def compare(
    title: str, target: str, args: argparse.Namespace, agnix: str | None, goal: float
) -> None:
    """Time ``skillkit check`` and ``agnix`` on ``target``; print medians and the ratio."""
    skillkit = skillkit_command(args.skillkit)
    commands = {"skillkit check --format json": [*skillkit, "check", target]}
    commands["skillkit check --format json"] += ["--format", "json"]
    if agnix is not None:
        commands["agnix --format json"] = [agnix, target, "--format", "json"]
    print(f"{title}: {target}")
    report(timed(commands, args.runs), agnix, goal)


def report(results: dict[str, list[float]], agnix: str | None, goal: float) -> None:
    for name, values in results.items():
        print(f"  {name:32s} {statistics.median(values):7.3f} s ({min(values):.3f})")
    if agnix is None:
        print("  agnix: not installed (pip install agnix, or set AGNIX); skipped")
        return
    theirs = statistics.median(results["agnix --format json"])
    ratio = statistics.median(results["skillkit check --format json"]) / theirs
    print(f"  skillkit check / agnix: {ratio:.2f}x (target: at most {goal:g}x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--folders", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--corpus", default="../shared/corpus", help="a folder of real skills (one root)"
    )
    parser.add_argument(
        "--skill",
        default="obra+superpowers/skills/brainstorming",
        help="one skill folder, relative to --corpus",
    )
    parser.add_argument(
        "--skillkit",
        help="the command to time as skillkit (say, another checkout's "
        "'python -m skillkit_core'); default: the console script beside this interpreter",
    )
    args = parser.parse_args()
    agnix = find_agnix()
    print(f"interpreter: {sys.executable}; skillkit: {' '.join(skillkit_command(args.skillkit))}")
    print(f"agnix: {agnix or 'not found'}; {args.runs} runs each: median (min) wall time")
    start = timed({"python -c pass": [sys.executable, "-c", "pass"]}, args.runs)
    print(f"  {'python -c pass':32s} {statistics.median(start['python -c pass']):7.3f} s")
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp) / "skills"
        generate(root, args.folders)
        from skillkit_core.lint.check_paths import check_paths

        check_paths([str(root)])  # warm the imports once
        inside = timed_call(lambda: check_paths([str(root)]), args.runs)
        print(f"  {'check_paths() in process':32s} {statistics.median(inside):7.3f} s")
        compare(f"{args.folders} generated SKILL.md folders", str(root), args, agnix, 2)
    corpus = Path(args.corpus)
    if not corpus.is_dir():
        print(f"corpus: {corpus} is not a folder; skipped")
        return
    compare("the corpus as one root", str(corpus), args, agnix, 1)
    compare("one skill folder of it", str(corpus / args.skill), args, agnix, 3)


if __name__ == "__main__":
    main()
