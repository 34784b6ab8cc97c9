"""Checking many SKILL.md folders in forked processes gives exactly the sequential result."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
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
def test_helpers_are_reaped_without_being_waited_for() -> None:
    # The caller takes a helper's results without waiting for it to free its memory
    # (about a millisecond of a check); it is reaped when helpers are next started.
    items = list(range(64))
    assert parallel.map_forked(lambda n: n + 1, items, 3) == [n + 1 for n in items]
    started = list(parallel._exiting)
    deadline = time.monotonic() + 10
    while parallel._exiting and time.monotonic() < deadline:
        time.sleep(0.05)
        parallel.Helpers.start(lambda: None, 0)  # starts none, reaps those exited
    assert parallel._exiting == []
    for pid in started:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)  # no zombie left


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


@needs_fork
def test_the_command_with_early_helpers_prints_the_sequential_result(tmp_path: Path) -> None:
    _skills(tmp_path, 48)
    done = subprocess.run(
        [sys.executable, "-m", "skillkit_core", "check", str(tmp_path), "--format", "json"],
        capture_output=True,
        text=True,
        check=False,
    )
    sequential = check_targets(collect_targets([str(tmp_path)]), LintConfig(), workers=1)
    assert done.returncode == sequential.exit_code == 1
    assert done.stdout == render_json(sequential, hosts=False) + "\n"


def _slow_here(index: int) -> tuple[int, str]:
    # The caller is slow, so the helper surely takes tickets: slowest on the first item,
    # which leaves a helper forked from this big process time to start on a busy machine.
    time.sleep(0.3 if index == 0 else 0.002)
    return index * index, "here"


def _as_helper(_payload: object, index: int) -> tuple[int, str]:
    return index * index, "helper"


def _helper_work() -> parallel.Work:
    return _as_helper


@needs_fork
def test_helpers_started_before_the_work_share_it_in_order() -> None:
    helpers = parallel.Helpers.start(_helper_work, 1)
    results = helpers.share(100, None, _slow_here, lambda index, plain: tuple(plain))
    assert [value for value, _ in results] == [n * n for n in range(100)]
    assert {source for _, source in results} == {"here", "helper"}
    # A pool shares once; then it is empty and the caller does everything.
    assert helpers.share(3, None, _slow_here, lambda index, plain: plain) == [
        (0, "here"),
        (1, "here"),
        (4, "here"),
    ]


def _dying_work() -> parallel.Work:
    def work(_payload: object, index: int) -> tuple[int, str]:
        os._exit(3)

    return work


def _failing_load() -> parallel.Work:
    raise ImportError("no such module")


@needs_fork
@pytest.mark.parametrize("load", [_dying_work, _failing_load])
def test_what_a_helper_does_not_deliver_the_caller_does(load: object) -> None:
    helpers = parallel.Helpers.start(load, 2)  # type: ignore[arg-type]
    results = helpers.share(40, None, _slow_here, lambda index, plain: tuple(plain))
    assert results == [(n * n, "here") for n in range(40)]


def _work_failing_at_7() -> parallel.Work:
    def work(_payload: object, index: int) -> int:
        if index == 7:
            raise ValueError("item 7")
        return index

    return work


@needs_fork
def test_an_item_that_fails_in_a_helper_fails_in_the_caller_too() -> None:
    def here(index: int) -> int:
        if index == 7:
            raise ValueError("item 7")
        time.sleep(0.002)
        return index

    helpers = parallel.Helpers.start(_work_failing_at_7, 1)
    with pytest.raises(ValueError, match="item 7"):
        helpers.share(40, None, here, lambda index, plain: plain)


@needs_fork
def test_the_job_payload_reaches_the_helpers() -> None:
    def work() -> parallel.Work:
        return lambda payload, index: payload[index].upper()

    words = [f"word{n}" for n in range(64)]
    helpers = parallel.Helpers.start(work, 1)

    def here(index: int) -> str:
        time.sleep(0.002)
        return words[index].upper()

    assert helpers.share(64, words, here, lambda index, plain: plain) == [w.upper() for w in words]


@needs_fork
def test_a_dismissed_helper_does_not_hold_the_callers_output(tmp_path: Path) -> None:
    # The helper is still loading when the caller dismisses it and exits; whoever reads
    # the caller's output must see its end at once, not when the helper is done.
    script = tmp_path / "caller.py"
    script.write_text(
        textwrap.dedent(
            """
            import time
            from skillkit_core.lint import parallel

            def load():
                time.sleep(5)
                return lambda payload, index: index

            helpers = parallel.Helpers.start(load, 1)
            helpers.dismiss()
            print("done", flush=True)
            """
        ),
        encoding="utf-8",
    )
    start = time.monotonic()
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert done.stdout == "done\n"
    assert time.monotonic() - start < 4


@needs_fork
def test_helpers_still_loading_when_the_caller_did_everything_are_not_waited_for(
    tmp_path: Path,
) -> None:
    # Quick items (results read back from the cache) are all done by the caller while the
    # helpers import; a helper that never finishes loading holds nothing up.
    script = tmp_path / "caller.py"
    script.write_text(
        textwrap.dedent(
            """
            import os, time
            from skillkit_core.lint import parallel

            def load():
                time.sleep(3600)
                return lambda payload, index: (index, "helper")

            helpers = parallel.Helpers.start(load, 1)
            print(helpers.share(50, None, lambda i: (i, "here"), lambda i, p: tuple(p))[-1])
            try:
                os.waitpid(-1, os.WNOHANG)
                print("a helper is left")
            except ChildProcessError:
                print("no helper left")
            """
        ),
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120
    )
    assert (done.stdout, done.stderr) == ("(49, 'here')\nno helper left\n", "")


def test_few_items_or_one_cpu_stay_in_one_process(monkeypatch: pytest.MonkeyPatch) -> None:
    assert parallel.worker_count(parallel.MIN_ITEMS - 1) == 1
    monkeypatch.setattr(parallel, "usable_cpus", lambda: 1)
    assert parallel.worker_count(1000) == 1
    monkeypatch.setattr(parallel, "usable_cpus", lambda: 8)
    assert parallel.worker_count(200) == 8
    assert parallel.worker_count(40) == 2
