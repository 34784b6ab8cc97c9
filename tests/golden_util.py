"""Golden-file assertions for rendered text (prompts, preambles, SKILL.md...).

Golden files live under ``tests/golden/``. Run the tests with ``SKILLKIT_BLESS=1`` to
(re)write them from the current output; the diff then shows what agents will see.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

GOLDEN_DIR = Path(__file__).parent / "golden"


def blessing() -> bool:
    """Whether golden files should be rewritten instead of compared."""
    return os.environ.get("SKILLKIT_BLESS", "") not in ("", "0")


def assert_golden(name: str, text: str) -> None:
    """Compare ``text`` with ``tests/golden/<name>`` (or write it when blessing)."""
    path = GOLDEN_DIR / name
    if blessing():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    if not path.exists():
        raise AssertionError(
            f"golden file {path} does not exist; run with SKILLKIT_BLESS=1 to create it"
        )
    expected = path.read_text(encoding="utf-8")
    if text != expected:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(keepends=True),
                text.splitlines(keepends=True),
                fromfile=f"golden/{name}",
                tofile="actual",
            )
        )
        raise AssertionError(
            f"output differs from golden/{name} (SKILLKIT_BLESS=1 re-blesses):\n{diff}"
        )
