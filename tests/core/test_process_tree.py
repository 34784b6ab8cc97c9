"""The process-tree helper finds and stops children that left the session or double-forked."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from skillkit_core import process_tree
from tests.process_support import (
    LINUX,
    new_marker,
    none_left,
    sleepers,
    spawns,
    started_sleepers,
)

pytestmark = pytest.mark.skipif(not LINUX, reason="uses /proc")


def spawner(marker: str, then: str) -> list[str]:
    """A Python process that starts the sleepers, says ready, then runs ``then``."""
    code = spawns(marker) + "print('ready', flush=True)\n" + then
    return [sys.executable, "-c", code]


def test_descendants_include_a_child_in_its_own_session() -> None:
    marker = new_marker()
    parent = subprocess.Popen(
        spawner(marker, "import time; time.sleep(300)"), stdout=subprocess.PIPE
    )
    try:
        assert parent.stdout.readline() == b"ready\n"
        children = set(process_tree.descendants(parent.pid))
        (in_session,) = [pid for pid in sleepers(marker) if pid in children]
        assert os.getsid(in_session) != os.getsid(parent.pid)
        process_tree.kill_tree(parent.pid)
        assert in_session not in sleepers(marker)
    finally:
        process_tree.kill_tree(parent.pid)
        parent.stdout.close()
        # The double-forked sleeper was nobody's descendant (no subreaper here).
        none_left(marker, 0)
    assert parent.wait(5) == -9


def test_kill_tree_of_a_keeper_leaves_no_process() -> None:
    marker = new_marker()
    command = process_tree.keeper_command(spawner(marker, "import time; time.sleep(300)"))
    keeper = subprocess.Popen(command, stdout=subprocess.PIPE)
    try:
        assert keeper.stdout.readline() == b"ready\n"
        assert len(started_sleepers(marker)) == 2
        killed = process_tree.kill_tree(keeper.pid)
        assert keeper.pid in killed
        assert not sleepers(marker)
    finally:
        keeper.stdout.close()
    assert keeper.wait(5) == -9
    assert none_left(marker)


def test_the_keeper_kills_what_the_command_left_and_exits_as_it_did() -> None:
    marker = new_marker()
    command = process_tree.keeper_command(spawner(marker, "import sys; sys.exit(3)"))
    done = subprocess.run(command, capture_output=True, timeout=30)
    assert done.stdout == b"ready\n"
    assert done.returncode == 3
    assert not sleepers(marker)


def test_the_keeper_ends_as_the_signal_that_ended_its_command() -> None:
    code = "import os, signal; os.kill(os.getpid(), signal.SIGTERM)"
    command = process_tree.keeper_command([sys.executable, "-c", code])
    assert subprocess.run(command, timeout=30).returncode == -15


def test_a_subreaper_kills_its_descendants_and_lives_on() -> None:
    marker = new_marker()
    code = (
        "from skillkit_core import process_tree\n"
        "process_tree.become_subreaper()\n" + spawns(marker) + "print('ready', flush=True)\n"
        "process_tree.kill_descendants()\n"
        "print('alive', flush=True)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=30)
    assert done.stdout == b"ready\nalive\n", done.stderr
    assert not sleepers(marker)


def test_the_keeper_ends_killed_when_its_command_was_killed() -> None:
    # SIGKILL cannot be given a handler: the keeper used to fail resetting it, with a
    # traceback and exit 1, whenever its command was killed (a timeout, a CPU limit).
    code = "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"
    command = process_tree.keeper_command([sys.executable, "-c", code])
    done = subprocess.run(command, capture_output=True, timeout=30)
    assert done.returncode == -9 and b"Traceback" not in done.stderr


def test_a_keeper_whose_parent_dies_kills_its_command_and_all_it_started() -> None:
    # The language server killed (or gone with `exit` and no `shutdown`) while its worker
    # was inside a module that loops: the worker burnt a core with nobody to read it.
    marker = new_marker()
    kept = spawner(marker, "import time; time.sleep(300)")
    code = (
        "import subprocess, time\n"
        "from skillkit_core import process_tree\n"
        f"subprocess.Popen(process_tree.keeper_command({kept!r}))\n"
        "time.sleep(300)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", code])
    try:
        assert len(started_sleepers(marker, within=30)) == 2
        parent.kill()
        parent.wait(5)
        assert none_left(marker), "the kept command outlived the keeper's parent"
    finally:
        parent.kill()
        parent.wait(5)


def test_a_keeper_started_with_sigchld_ignored_still_sees_its_command_end() -> None:
    # An ignored SIGCHLD survives exec: the child would be reaped unseen (no status,
    # and a wait for a signal that never comes).
    import signal

    command = process_tree.keeper_command([sys.executable, "-c", "import sys; sys.exit(5)"])
    done = subprocess.run(
        command,
        capture_output=True,
        timeout=30,
        preexec_fn=lambda: signal.signal(signal.SIGCHLD, signal.SIG_IGN),
    )
    assert (done.returncode, done.stderr) == (5, b"")


def test_a_keeper_whose_parent_died_before_it_started_runs_nothing() -> None:
    marker = new_marker()
    code = (
        "import os, subprocess\n"
        "from skillkit_core import process_tree\n"
        f"subprocess.Popen(process_tree.keeper_command({spawner(marker, 'pass')!r}))\n"
        "os._exit(0)\n"  # gone before the keeper's interpreter is up
    )
    subprocess.run([sys.executable, "-c", code], timeout=30, check=True)
    assert not started_sleepers(marker, count=1, within=3.0)
