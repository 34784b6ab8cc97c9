"""The main job on the bundled example (``make demo``).

Runs the deploy-check example's own tests, then drives it end to end with canned answers
and prints the path it took and what an agent would have received at each step.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "deploy-check"


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
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
