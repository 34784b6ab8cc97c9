"""Time ``skillkit check`` on 200 generated SKILL.md folders, beside ``agnix``.

    .venv/bin/python bench/check_bench.py [--folders 200] [--runs 5]

Both linters run as a fresh process on the same folders (their own start-up included),
each ``--runs`` times; the median wall time is reported. ``agnix`` (a Rust linter for
agent configurations, on PyPI) is not a dependency of this project: install it with
``pip install agnix`` (or point the ``AGNIX`` environment variable at its binary);
without it only our figures are printed. The in-process time of the core function is
reported too (it forks its helpers as the command does, with its imports warm), to
separate the linter's own cost from interpreter start-up and imports.

The figures depend on the interpreter: a CPython built without PGO and LTO (pyenv's
default build) runs the same command about a tenth slower than a distribution's
optimised build. Run this file with another environment's Python to compare.
"""

from __future__ import annotations

import argparse
import os
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
    load on the machine hits every command alike). Exit codes 0 and 1 are normal."""
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, command in commands.items():
            start = time.perf_counter()
            done = subprocess.run(command, capture_output=True, check=False)
            times[name].append(time.perf_counter() - start)
            if done.returncode not in (0, 1):
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--folders", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    skillkit = [sys.executable, "-m", "skillkit_core"]
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp) / "skills"
        generate(root, args.folders)
        print(f"{args.folders} SKILL.md folders, {args.runs} runs each: median (min) wall time")
        print(f"interpreter: {sys.executable}")
        from skillkit_core.lint.check_paths import check_paths

        check_paths([str(root)])  # warm the imports once
        inside = timed_call(lambda: check_paths([str(root)]), args.runs)
        folder = str(root)
        commands = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "skillkit check --format json": [*skillkit, "check", folder, "--format", "json"],
        }
        agnix = find_agnix()
        if agnix is not None:
            commands["agnix --format json"] = [agnix, folder, "--format", "json"]
        results = timed(commands, args.runs)
        results = {"check_paths() in process": inside, **results}
        for name, values in results.items():
            print(f"  {name:32s} {statistics.median(values):7.3f} s ({min(values):.3f})")
        if agnix is None:
            print("  agnix: not installed (pip install agnix, or set AGNIX); skipped")
            return
        theirs = statistics.median(results["agnix --format json"])
        ratio = statistics.median(results["skillkit check --format json"]) / theirs
        print(f"  skillkit check / agnix: {ratio:.2f}x (target: within 2x)")


if __name__ == "__main__":
    main()
