"""The main job on the bundled example (``make demo``).

Runs the deploy-check example's own tests, then drives it end to end with canned answers
and prints the path it took and what an agent would have received at each step. Then it
uses the ``skillkit`` command on it as an author would: preview (what an agent on Claude
Code sees), simulate (every path, with coverage) and graph (Mermaid, plus SVG when
Graphviz is installed, written under build/demo/).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "deploy-check"
ENTRY = str(EXAMPLE / "deploy_check.py")
OUT = ROOT / "build" / "demo"


def skillkit(title: str, *args: str) -> int:
    """Run one ``skillkit`` command, as a user would, under a heading."""
    print(f"\n== skillkit {title}", flush=True)
    done = subprocess.run([sys.executable, "-m", "skillkit_core.cli", *args], cwd=ROOT)
    return done.returncode


def author_tools() -> int:
    """preview, simulate and graph on the example; the first failure stops the demo."""
    OUT.mkdir(parents=True, exist_ok=True)
    steps = [
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
    for title, args in steps:
        code = skillkit(title, *args)
        if code != 0:
            return code
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
