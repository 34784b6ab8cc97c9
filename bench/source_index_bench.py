"""Time the syntax index on a generated 200-step (~1,500-line) skill file.

    .venv/bin/python bench/source_index_bench.py [--steps 200] [--runs 100] [--json]

Reports the median and p95 of:

- a full parse + index of the file (what opening a document costs);
- an incremental re-index after a one-character edit (what each keystroke costs): the
  previous version's index is passed as ``old=``, the edit is inserted into (or deleted
  from) a prompt string at a different place each run, as typing does;
- the same edit at a random byte of the file (comments, code, strings alike);
- the parts: tree-sitter's parse alone (full and incremental), the structural
  diagnostics, and a completion-context lookup (``node_at``).

The first index of a process loads tree-sitter; it is timed apart as "first index".
A calibration loop (pure Python) is timed in the same run: on a busy or slow machine
every figure grows with it.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from skillkit_core.source import index_source, node_at, structural_diagnostics

HEADER = '''"""A generated skill: {steps} steps in one chain, as an editor would hold it."""

from typing import Literal

from pydantic import BaseModel

from skillkit_core import PARENT, act, branch, module, skill, terminal


class Pick(BaseModel):
    choice: Literal["a", "b"]


class Check(BaseModel):
    ok: bool
    notes: list[str] = []


def route(ctx):
    if ctx.response.ok:
        return "s1"
    return "s2" if ctx.attempts < 3 else "s3"


login = (
    module(name="login", entry="login-ask")
    .step("login-ask", prompt="Ask for the account — ünïcode ✓.", response=Check, next=PARENT)
    .build()
)

'''


def _step(number: int, count: int) -> list[str]:
    name, following = f"s{number}", f"s{number + 1}" if number + 1 < count else None
    lines = ["    .step(", f'        "{name}",']
    kind = number % 5
    if kind == 0:
        lines.append(f'        prompt="Step {number}: review the release notes — ünïcödé ✓.",')
    elif kind == 1:
        previous = f"s{max(number - 1, 0)}"
        lines += [
            "        prompt=lambda ctx: (",
            f"            f\"Use {{ctx.store.steps['{previous}'].notes}} for step {number}.\"",
            '            if "Bash" in ctx.host.tools_available',
            '            else "Ask the user."',
            "        ),",
        ]
    elif kind == 2:
        lines += [
            "        prompt=act.ask_user(",
            '            type="structured",',
            f'            question="Which way for step {number}?",',
            '            options=[{"value": "a", "label": "A"}, {"value": "b", "label": "B"}],',
            "        ),",
        ]
    elif kind == 3:
        lines.append(f'        prompt=[f"Hello {number}", act.confirm(message="Sure?")],')
    else:
        lines.append(f'        prompt="Check {number} and report.",')
    lines.append("        response=Check," if kind != 2 else "        response=Pick,")
    if following is None:
        lines.append('        next="login-ask",')
    elif kind == 1:
        lines += [
            f'        next=[branch("{following}", when=lambda ctx: ctx.response.ok),',
            '              branch("s0")],',
            "        max_visits=3,",
            f'        on_max_visits="{following}",',
        ]
    elif kind == 4:
        lines.append(f'        next=lambda ctx: "{following}" if ctx.response.ok else "self",')
    else:
        lines.append(f'        next="{following}",')
    lines.append("    )")
    return lines


def generate(steps: int = 200) -> str:
    """A skill file with ``steps`` steps: strings, lambdas, act calls, branches, guards."""
    lines = [HEADER.format(steps=steps), "big = (", '    skill(name="big", entry="s0")']
    for number in range(steps):
        lines += _step(number, steps)
    lines += [
        '    .register(login, next="finish")',
        '    .step("finish", prompt="Summarise the release.", next=terminal)',
        "    .build()",
        ")",
        "",
    ]
    return "\n".join(lines)


def _time(function: Callable[[], object]) -> float:
    start = time.perf_counter()
    function()
    return (time.perf_counter() - start) * 1000


def _summary(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"median": round(statistics.median(ordered), 2), "p95": round(p95, 2)}


def _calibration() -> float:
    return _time(lambda: sum(number * number for number in range(1_000_000)))


def run(steps: int, runs: int) -> dict[str, object]:
    text = generate(steps)
    first = _time(lambda: index_source(text))
    results: dict[str, object] = {
        "python": sys.version.split()[0],
        "steps": steps,
        "lines": text.count("\n") + 1,
        "bytes": len(text.encode()),
        "first index (loads tree-sitter) ms": round(first, 2),
        "calibration 1M-square-sum ms": round(min(_calibration() for _ in range(3)), 1),
    }
    results["full parse+index ms"] = _summary(
        [_time(lambda: index_source(text)) for _ in range(runs)]
    )
    results["keystroke in a prompt: incremental re-index ms"] = _summary(_typing(text, runs))
    results["keystroke anywhere: incremental re-index ms"] = _summary(_anywhere(text, runs))
    results.update(_parts(text, runs))
    return results


def _typing(text: str, runs: int) -> list[float]:
    # Type into a different prompt string each run, alternately inserting and deleting.
    anchors = [position for position in range(len(text)) if text.startswith("and report", position)]
    index = index_source(text)
    samples = []
    for run_number in range(runs):
        anchor = anchors[run_number % len(anchors)]
        if run_number % 2 == 0:
            text = text[:anchor] + "x" + text[anchor:]
        else:
            text = text[:anchor] + text[anchor + 1 :]
        start = time.perf_counter()
        index = index_source(text, old=index)
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def _anywhere(text: str, runs: int) -> list[float]:
    rng = random.Random(7)
    base = index_source(text)
    samples = []
    for _ in range(runs):
        position = rng.randrange(len(text))
        edited = text[:position] + "x" + text[position:]
        start = time.perf_counter()
        index_source(edited, old=base)
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def _parts(text: str, runs: int) -> dict[str, object]:
    from skillkit_core.source.parse import edit_between, parse
    from skillkit_core.source.positions import encode

    data = encode(text)
    tree = parse(data)
    anchor = text.index("and report")
    edited = encode(text[:anchor] + "x" + text[anchor:])
    edit = edit_between(data, edited)
    index = index_source(text)
    lines = text.split("\n")
    line = next(number for number, line in enumerate(lines) if 'next="s1' in line)
    column = lines[line].index('next="s') + 7
    return {
        "tree-sitter full parse ms": _summary([_time(lambda: parse(data)) for _ in range(runs)]),
        "tree-sitter incremental parse ms": _summary(
            [_time(lambda: parse(edited, tree, [edit])) for _ in range(runs)]
        ),
        "structural diagnostics ms": _summary(
            [_time(lambda: structural_diagnostics(index)) for _ in range(runs)]
        ),
        "node_at (completion context) ms": _summary(
            [_time(lambda: node_at(index, line, column)) for _ in range(runs)]
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    options = parser.parse_args()
    results = run(options.steps, options.runs)
    if options.json:
        print(json.dumps(results, indent=2))
        return
    for key, value in results.items():
        if isinstance(value, dict):
            print(f"{key:50s} median {value['median']:8.2f}   p95 {value['p95']:8.2f}")
        else:
            print(f"{key:50s} {value}")


if __name__ == "__main__":
    main()
