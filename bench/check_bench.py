"""Time ``skillkit check`` beside ``agnix``: generated folders, a real corpus, one skill.

    .venv/bin/python bench/check_bench.py [--folders 200] [--runs 5]
        [--corpus ../shared/corpus] [--skill obra+superpowers/skills/brainstorming]
        [--install wheel|current] [--venv DIR]

Three cases, each run by both linters as a fresh process (their own start-up included),
``--runs`` times, interleaved; the median wall time is reported with the ratio to agnix
from the same run. ``skillkit check`` is timed three ways: with ``--no-cache``; with an
empty result cache (a new cache folder for every run, as a first check or a CI job
without a kept cache has); and cached (the folders unchanged since the untimed round
stored their results). agnix keeps no results between runs. The cases:

- ``--folders`` generated SKILL.md folders (mostly valid, some typical mistakes);
- the real skills of ``--corpus`` passed as one root (issue 24: at most agnix's time);
- one skill folder of the corpus, ``--skill`` (issue 24: at most 3x agnix's time).

``agnix`` (a Rust linter for agent configurations, on PyPI) is not a dependency of this
project: install it into a throwaway environment (``python3 -m venv /tmp/agnix &&
/tmp/agnix/bin/pip install agnix``) and point the ``AGNIX`` environment variable at its
binary; without it only our figures are printed.

What is timed is what users run: with ``--install wheel`` (the default) this tree is
built into a wheel (from a copy of its package folders, so nothing left in ``build/``
slips in) and installed, with its dependencies from the package index, into a venv of
this interpreter's Python that the bench creates (``--venv``, default
``$XDG_CACHE_HOME/skillkit-bench/venv-<python and dependencies digest>``) and reuses,
reinstalling the wheel only when the sources changed; its ``skillkit`` console script is
timed. A development checkout's editable install imports pathlib, typing and more while
``site`` starts (setuptools' editable finder: ``python -c pass`` takes twice as long),
whether the command needs them or not: ``--install current`` times the console script
beside this interpreter all the same (``-m skillkit_core`` where there is none). Either way
each command runs with bytecode writing allowed and once before timing, as an installed
copy runs. The in-process time of the core function on the generated folders is reported
too (this interpreter's copy; it forks its helpers as the command does, with its imports
warm), to separate the linter's own cost from interpreter start-up and imports;
``python -c pass`` (the timed install's interpreter) is the interpreter's own start.

The figures depend on the interpreter: a CPython built without PGO and LTO (pyenv's
default build) runs the same command about a tenth slower than a distribution's
optimised build. Run this file with another environment's Python to compare.
"""

from __future__ import annotations

import argparse
import hashlib
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

ROOT = Path(__file__).resolve().parent.parent
# What the wheel is built from (the package folders are copied without bytecode).
WHEEL_SOURCES = ("skillkit_core", "skill_lsp", "pyproject.toml", "README.md", "LICENSE")
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


class Cache:
    """Where a timed ``skillkit check`` keeps its results: ``None`` (``--no-cache``),
    ``"empty"`` (a new, empty cache folder for every run, made and removed outside the
    timing: a first check) or a folder that the untimed round fills (a check of
    unchanged folders)."""

    def __init__(self, mode: str | None, folder: Path | None = None) -> None:
        self.mode = mode
        self.folder = folder


def timed(
    commands: dict[str, list[str]], runs: int, caches: dict[str, Cache] | None = None
) -> dict[str, list[float]]:
    """Wall times of each command, run in turn ``runs`` times (interleaved, so a burst of
    load on the machine hits every command alike) after one untimed round (it writes
    the bytecode an installed copy has). Exit codes 0, 1 and 3 are normal. ``caches``
    says where each ``skillkit`` command keeps its results (:class:`Cache`)."""
    skipped = ("PYTHONDONTWRITEBYTECODE", "SKILLKIT_NO_CACHE", "SKILLKIT_CACHE_DIR")
    env = {k: v for k, v in os.environ.items() if k not in skipped}
    times: dict[str, list[float]] = {name: [] for name in commands}
    for round_ in range(runs + 1):
        for name, command in commands.items():
            cache = (caches or {}).get(name)
            extra, empty = {}, None
            if cache is not None and cache.mode == "empty":
                CACHE_ROOT.mkdir(parents=True, exist_ok=True)
                empty = tempfile.mkdtemp(prefix="empty-", dir=CACHE_ROOT)
                extra = {"SKILLKIT_CACHE_DIR": empty}
            elif cache is not None and cache.folder is not None:
                extra = {"SKILLKIT_CACHE_DIR": str(cache.folder)}
            start = time.perf_counter()
            done = subprocess.run(command, capture_output=True, check=False, env=env | extra)
            if round_:
                times[name].append(time.perf_counter() - start)
            if empty is not None:
                shutil.rmtree(empty, ignore_errors=True)
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


class Install:
    """The ``skillkit`` command to time, its interpreter, and what it is (for the report)."""

    def __init__(self, command: list[str], python: str, what: str) -> None:
        self.command = command
        self.python = python
        self.what = what


def current_install(given: str | None = None) -> Install:
    """``given`` (split like a shell), else the console script beside this interpreter
    (``-m`` where there is none)."""
    if given:
        return Install(shlex.split(given), sys.executable, f"the command {given!r}")
    script = Path(sys.executable).with_name("skillkit")
    if script.is_file():
        return Install([str(script)], sys.executable, f"the console script {script}")
    return Install([sys.executable, "-m", "skillkit_core"], sys.executable, "-m skillkit_core")


def wheel_install(venv: Path | None) -> Install:
    """This tree's wheel installed in a venv of this interpreter's Python (made, or
    brought up to date, now)."""
    sources = _sources_digest()
    venv = venv or _default_venv()
    python = venv / "bin" / "python"
    if not python.is_file():
        print(f"creating {venv} (once: the wheel's dependencies come from the index)")
        _run([sys.executable, "-m", "venv", str(venv)])
    marker = venv / "skillkit-bench-sources"
    installed = marker.read_text() if marker.is_file() else ""
    if installed != sources:
        with tempfile.TemporaryDirectory() as temp:
            wheel = _build_wheel(python, Path(temp))
            _run(
                [
                    str(python),
                    "-m",
                    "pip",
                    "install",
                    "-q",
                    "--force-reinstall",
                    *(["--no-deps"] if installed else []),
                    str(wheel),
                ]
            )
        marker.write_text(sources)
    script = venv / "bin" / "skillkit"
    what = f"a wheel of this tree (sources {sources[:12]}) installed in {venv}"
    return Install([str(script)], str(python), what)


def _cache_base() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache", "skillkit-bench")


# The timed checks' result caches: in the user's cache folder, as a user's are (a file
# system such as /tmp can make writing them several times slower).
CACHE_ROOT = _cache_base() / "check-results"


def _default_venv() -> Path:
    """A cache folder per Python and dependency list (so a new dependency makes a new
    venv, never a stale one)."""
    pyproject = (ROOT / "pyproject.toml").read_bytes()
    key = hashlib.sha256(sys.version.encode() + sys.base_prefix.encode() + pyproject)
    return _cache_base() / f"venv-{key.hexdigest()[:16]}"


def _sources_files() -> list[Path]:
    files: list[Path] = []
    for name in WHEEL_SOURCES:
        path = ROOT / name
        if path.is_dir():
            files += sorted(
                p for p in path.rglob("*") if p.is_file() and "__pycache__" not in p.parts
            )
        elif path.is_file():
            files.append(path)
    return files


def _sources_digest() -> str:
    digest = hashlib.sha256()
    for path in _sources_files():
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _build_wheel(python: Path, temp: Path) -> Path:
    source = temp / "source"
    for path in _sources_files():
        target = source / path.relative_to(ROOT)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)
    _run([str(python), "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(temp), str(source)])
    return next(temp.glob("*.whl"))


def _run(command: list[str]) -> None:
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{shlex.join(command)} failed:\n{done.stdout}{done.stderr}")


def compare(
    title: str, target: str, install: Install, agnix: str | None, goal: float, runs: int
) -> None:
    """Time ``skillkit check`` (without its result cache, with an empty one, with one
    holding this target's results) and ``agnix`` on ``target``; print medians and each
    ratio to agnix."""
    check = [*install.command, "check", target, "--format", "json"]
    warm = CACHE_ROOT / "warm"
    shutil.rmtree(warm, ignore_errors=True)
    commands = {
        "skillkit check --no-cache": [*check, "--no-cache"],
        "skillkit check, empty cache": check,
        "skillkit check, cached": check,
    }
    caches = {
        "skillkit check --no-cache": Cache(None),
        "skillkit check, empty cache": Cache("empty"),
        "skillkit check, cached": Cache("warm", warm),
    }
    if agnix is not None:
        commands["agnix --format json"] = [agnix, target, "--format", "json"]
    print(f"{title}: {target}")
    report(timed(commands, runs, caches), agnix, goal)
    shutil.rmtree(warm, ignore_errors=True)


def report(results: dict[str, list[float]], agnix: str | None, goal: float) -> None:
    for name, values in results.items():
        print(f"  {name:32s} {statistics.median(values):7.3f} s ({min(values):.3f})")
    if agnix is None:
        print("  agnix: not installed (pip install agnix, or set AGNIX); skipped")
        return
    theirs = statistics.median(results["agnix --format json"])
    print(f"  / agnix (target: at most {goal:g}x):", end="")
    for name, values in results.items():
        if name.startswith("skillkit"):
            label = name.removeprefix("skillkit check").lstrip(", ")
            print(f"  {label} {statistics.median(values) / theirs:.2f}x", end="")
    print()


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
        "--install",
        choices=("wheel", "current"),
        default="wheel",
        help="wheel: this tree's wheel in a venv the bench makes (what users run); "
        "current: the console script beside this interpreter (an editable install "
        "imports more at start)",
    )
    parser.add_argument("--venv", type=Path, help="the venv for --install wheel")
    parser.add_argument(
        "--skillkit",
        help="the command to time as skillkit (say, another checkout's "
        "'python -m skillkit_core'); overrides --install",
    )
    args = parser.parse_args()
    agnix = find_agnix()
    if args.skillkit or args.install == "current":
        install = current_install(args.skillkit)
    else:
        install = wheel_install(args.venv)
    print(f"timed: {install.what}")
    print(f"interpreter: {install.python}; skillkit: {shlex.join(install.command)}")
    print(f"agnix: {agnix or 'not found'}; {args.runs} runs each: median (min) wall time")
    start = timed({"python -c pass": [install.python, "-c", "pass"]}, args.runs)
    print(f"  {'python -c pass':32s} {statistics.median(start['python -c pass']):7.3f} s")
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp) / "skills"
        generate(root, args.folders)
        from skillkit_core.lint.check_paths import check_paths

        check_paths([str(root)])  # warm the imports once
        inside = timed_call(lambda: check_paths([str(root)]), args.runs)
        print(f"  {'check_paths() in process':32s} {statistics.median(inside):7.3f} s")
        compare(
            f"{args.folders} generated SKILL.md folders", str(root), install, agnix, 2, args.runs
        )
    corpus = Path(args.corpus)
    if not corpus.is_dir():
        print(f"corpus: {corpus} is not a folder; skipped")
        return
    compare("the corpus as one root", str(corpus), install, agnix, 1, args.runs)
    compare("one skill folder of it", str(corpus / args.skill), install, agnix, 3, args.runs)


if __name__ == "__main__":
    main()
