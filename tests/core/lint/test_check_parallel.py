"""Checking many SKILL.md folders in forked processes gives exactly the sequential result."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from skillkit_core.lint import parallel
from skillkit_core.lint.check_paths import check_targets, collect_targets
from skillkit_core.lint.config import LintConfig
from skillkit_core.lint.format import render_json, render_sarif
from tests.core.lint.skillmd_support import make_skill

needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")


def _skills(root: Path, count: int) -> None:
    """Folders with a spread of findings: clean ones, bad names, broken links, scripts."""
    for index in range(count):
        name = f"skill-{index:03d}"
        shown = name.upper() if index % 3 == 0 else name
        extra = "metadata:\n  version: 1.0\n" if index % 4 == 1 else ""
        link = "references/missing.md" if index % 5 == 2 else "references/guide.md"
        make_skill(
            root,
            name,
            {
                "SKILL.md": (
                    f"---\nname: {shown}\ndescription: Does thing {index}.\n{extra}---\n"
                    f"# {name}\n\nRead [the guide]({link}).\n"
                ),
                "references/guide.md": "# Guide\n",
                "scripts/run.py": "print('hi')\n" if index % 2 else "#!/usr/bin/env python3\n",
            },
        )


@needs_fork
def test_a_forked_run_equals_the_sequential_run(tmp_path: Path) -> None:
    _skills(tmp_path, 40)
    targets = collect_targets([str(tmp_path)])
    config = LintConfig()
    sequential = check_targets(targets, config, workers=1)
    forked = check_targets(targets, config, workers=3)
    assert sequential.diagnostics  # the fixture does produce findings, fixable ones too
    assert any(d.fix is not None for d in sequential.diagnostics)
    assert forked == sequential
    # Named tuples equal plain tuples: the reprs also compare the types, nested ones too.
    assert repr(forked) == repr(sequential)
    assert render_json(forked, hosts=True) == render_json(sequential, hosts=True)
    assert render_sarif(forked) == render_sarif(sequential)
    without_hosts = check_targets(targets, config, workers=3, hosts=False)
    assert repr(without_hosts) == repr(check_targets(targets, config, workers=1, hosts=False))
    assert without_hosts.diagnostics == sequential.diagnostics


@needs_fork
def test_map_forked_keeps_the_order_of_the_items() -> None:
    items = list(range(50))
    assert parallel.map_forked(lambda n: (n, n * n), items, 4) == [(n, n * n) for n in items]


@needs_fork
def test_a_failing_child_has_its_share_done_by_the_caller() -> None:
    caller = os.getpid()

    def only_here(n: int) -> int:
        if os.getpid() != caller:
            raise RuntimeError("child fails")
        return n + 1

    assert parallel.map_forked(only_here, list(range(20)), 2) == list(range(1, 21))


@needs_fork
def test_an_error_in_the_callers_share_propagates() -> None:
    def boom(n: int) -> int:
        if n == 0:
            raise ValueError("item 0")
        return n

    with pytest.raises(ValueError, match="item 0"):
        parallel.map_forked(boom, list(range(10)), 2)


def test_few_items_or_one_cpu_stay_in_one_process(monkeypatch: pytest.MonkeyPatch) -> None:
    assert parallel.worker_count(parallel.MIN_ITEMS - 1) == 1
    monkeypatch.setattr(parallel, "usable_cpus", lambda: 1)
    assert parallel.worker_count(1000) == 1
    monkeypatch.setattr(parallel, "usable_cpus", lambda: 8)
    assert parallel.worker_count(200) == 8
    assert parallel.worker_count(40) == 2
