"""The process-tree helper finds and stops children that left the session or double-forked."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid

import pytest

from skillkit_core import process_tree

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="uses /proc")

# Starts one child in its own session and one double-forked grandchild (the middle
# process exits at once), each a `sleep` tagged with the marker, then waits.
SPAWNER = """
import os, subprocess, sys, time
sleeper = [sys.executable, "-c", "import time; time.sleep(300)", sys.argv[1] + "-sleeper"]
subprocess.Popen(sleeper, start_new_session=True)
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv(sleeper[0], sleeper)
    os._exit(0)
os.wait()
print("ready", flush=True)
time.sleep(int(sys.argv[2]))
"""


def tagged(marker: str) -> list[int]:
    """Live sleepers started with ``marker``."""
    marker += "-sleeper"
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as stream:
                if marker.encode() not in stream.read():
                    continue
            with open(f"/proc/{name}/stat", "rb") as stream:
                stat = stream.read()
        except OSError:
            continue
        if stat[stat.rfind(b")") + 2 :].split()[0] != b"Z":
            found.append(int(name))
    return found


def wait_for(predicate, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def test_descendants_include_a_child_in_its_own_session() -> None:
    marker = f"skillkit-test-{uuid.uuid4().hex}"
    code = "import subprocess, sys, time\n" + (
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)',"
        " sys.argv[1] + '-sleeper'], start_new_session=True)\n"
        "print('ready', flush=True); time.sleep(300)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", code, marker], stdout=subprocess.PIPE)
    try:
        assert parent.stdout.readline() == b"ready\n"
        (sleeper,) = tagged(marker)
        assert sleeper in process_tree.descendants(parent.pid)
        assert os.getsid(sleeper) != os.getsid(parent.pid)
    finally:
        process_tree.kill_tree(parent.pid)
        parent.stdout.close()
    assert parent.returncode is not None or parent.wait(5) is not None
    assert wait_for(lambda: not tagged(marker))


def test_kill_tree_of_a_subreaper_leaves_no_process() -> None:
    marker = f"skillkit-test-{uuid.uuid4().hex}"
    command = process_tree.keeper_command([sys.executable, "-c", SPAWNER, marker, "300"])
    keeper = subprocess.Popen(command, stdout=subprocess.PIPE)
    try:
        assert keeper.stdout.readline() == b"ready\n"
        assert len(tagged(marker)) == 2
        killed = process_tree.kill_tree(keeper.pid)
        assert keeper.pid in killed
    finally:
        keeper.stdout.close()
    assert keeper.wait(5) == -9
    assert wait_for(lambda: not tagged(marker))


def test_the_keeper_kills_what_the_command_left_and_exits_as_it_did() -> None:
    marker = f"skillkit-test-{uuid.uuid4().hex}"
    code = SPAWNER + "sys.exit(3)\n"
    command = process_tree.keeper_command([sys.executable, "-c", code, marker, "0"])
    done = subprocess.run(command, capture_output=True, timeout=30)
    assert done.stdout == b"ready\n"
    assert done.returncode == 3
    assert wait_for(lambda: not tagged(marker))


def test_the_keeper_ends_as_the_signal_that_ended_its_command() -> None:
    code = "import os, signal; os.kill(os.getpid(), signal.SIGTERM)"
    command = process_tree.keeper_command([sys.executable, "-c", code])
    assert subprocess.run(command, timeout=30).returncode == -15


def test_kill_descendants_spares_the_caller() -> None:
    marker = f"skillkit-test-{uuid.uuid4().hex}"
    code = (
        "import subprocess, sys\n"
        "from skillkit_core import process_tree\n"
        "process_tree.become_subreaper()\n"
        + SPAWNER.replace("time.sleep(int(sys.argv[2]))", "")
        + "process_tree.kill_descendants()\n"
        "print('alive', flush=True)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, marker, "0"], capture_output=True, timeout=30
    )
    assert done.stdout == b"ready\nalive\n", done.stderr
    assert wait_for(lambda: not tagged(marker))
