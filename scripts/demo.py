"""The main job on the bundled example (``make demo``).

Runs the deploy-check example's own tests, then drives it end to end with canned answers
and prints the path it took and what an agent would have received at each step. Then it
uses the ``skillkit`` command on it as an author would: check (the linter), preview (what
an agent on Claude Code sees), simulate (every path, with coverage), graph (Mermaid, plus
SVG when Graphviz is installed) and build (for this machine, into build/demo/), and
finally calls the built ``scripts/run`` once, as an agent would.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "deploy-check"
ENTRY = str(EXAMPLE / "deploy_check.py")
# Where the demo writes (the SVG and the built skill); the tests point it elsewhere.
OUT = Path(os.environ.get("SKILLKIT_DEMO_OUT") or ROOT / "build" / "demo")


def skillkit(title: str, *args: str) -> int:
    """Run one ``skillkit`` command, as a user would, under a heading."""
    print(f"\n== skillkit {title}", flush=True)
    done = subprocess.run([sys.executable, "-m", "skillkit_core", *args], cwd=ROOT)
    return done.returncode


def author_tools() -> int:
    """preview, simulate and graph on the example; the first failure stops the demo."""
    OUT.mkdir(parents=True, exist_ok=True)
    steps = [
        ("check", ["check", ENTRY]),
        ("preview (claude-code)", ["preview", ENTRY, "--host", "claude-code"]),
        ("simulate --all-paths", ["simulate", ENTRY, "--all-paths"]),
        ("graph (mermaid)", ["graph", ENTRY]),
    ]
    if shutil.which("dot"):
        svg = str(OUT / "deploy-check.svg")
        steps.append(
            (f"graph (svg, written to {svg})", ["graph", ENTRY, "--format", "svg", "-o", svg])
        )
    else:
        print("\n(Graphviz's dot is not installed: skipping the SVG graph)")
    built = OUT / "deploy-check"
    steps.append((f"build --single (into {built})", ["build", ENTRY, "-o", str(built), "--single"]))
    for title, args in steps:
        code = skillkit(title, *args)
        if code != 0:
            return code
    return call_built(built)


def call_built(folder: Path) -> int:
    """Start the built skill as an agent does: one call of scripts/run, JSON on stdout."""
    print(f"\n== {folder}/scripts/run start --host claude-code", flush=True)
    done = subprocess.run(
        [str(folder / "scripts" / "run"), "start", "--host", "claude-code"],
        capture_output=True,
        text=True,
        # --single carries native code for this interpreter only: run the pyz with it.
        env={**os.environ, "SKILLKIT_PYTHON": sys.executable},
    )
    if done.returncode != 0:
        print(done.stdout + done.stderr)
        return done.returncode
    result = json.loads(done.stdout)
    print(f"kind: {result['kind']}, step: {result['step']}")
    print(result["prompt"])
    return 0


def main() -> int:
    print(f"== example: {EXAMPLE.relative_to(ROOT)}")
    tests = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", str(EXAMPLE)], cwd=ROOT, check=False
    )
    if tests.returncode != 0:
        return tests.returncode
    sys.path.insert(0, str(EXAMPLE))
    from deploy_check import deploy_check

    from skillkit_core.testing import mock_model, run_skill

    result = run_skill(
        deploy_check,
        host="claude-code",
        model=mock_model(
            {
                "choose": {"target": "staging"},
                "verify": {"blockers": [], "safe": True},
                "deploy": {"url": "https://staging.example.com"},
            }
        ),
    )
    print("\n== simulated run on claude-code")
    for wire in result.results:
        shown = {k: v for k, v in wire.items() if k not in ("preamble", "schema")}
        print(json.dumps(shown, ensure_ascii=False))
    print(f"\npath: {' -> '.join(result.path)}")
    print(f"final output: {json.dumps(result.response)}")
    return author_tools()


if __name__ == "__main__":
    raise SystemExit(main())
