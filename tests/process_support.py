"""Author code that leaves processes behind, and how a test finds them (Linux ``/proc``).

``SPAWNS`` is Python source that starts two sleepers tagged with a marker: one child in a
session of its own (out of reach of ``killpg``) and one double-forked grandchild (the
middle process exits at once, so it is nobody's child). A test runs it as author code,
then checks with :func:`sleepers` that nothing is left.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

LINUX = sys.platform.startswith("linux")


def new_marker() -> str:
    """A tag no other process carries."""
    return f"skillkit-test-{uuid.uuid4().hex}"


def spawns(marker: str) -> str:
    """Source that starts the two sleepers tagged with ``marker``."""
    return f"""import os as _os, subprocess as _subprocess, sys as _sys
_tag = "{marker}" + "-sleeper"  # spelled apart: the source itself must not match
_sleeper = [_sys.executable, "-c", "import time; time.sleep(300)", _tag]
_subprocess.Popen(_sleeper, start_new_session=True, stdout=_subprocess.DEVNULL)
if _os.fork() == 0:
    _os.setsid()
    if _os.fork() == 0:
        _os.execv(_sleeper[0], _sleeper)
    _os._exit(0)
_os.wait()
"""


def wait_until(condition: Callable[[], object], within: float, step: float = 0.02) -> bool:
    """Whether ``condition()`` holds within ``within`` seconds, asked every ``step``."""
    deadline = time.monotonic() + within
    while not condition():
        if time.monotonic() >= deadline:
            return bool(condition())
        time.sleep(step)
    return True


def gone(pid: int, within: float = 10.0) -> None:
    """Assert that process ``pid`` ends within ``within`` seconds."""
    running = Path(f"/proc/{pid}").exists
    assert wait_until(lambda: not running(), within), f"process {pid} is still running"


def started_sleepers(marker: str, count: int = 2, within: float = 5.0) -> list[int]:
    """The sleepers once ``count`` of them run: a double-forked grandchild may still be
    on its way to ``exec`` when its starter says ready."""
    deadline = time.monotonic() + within
    while len(found := sleepers(marker)) < count and time.monotonic() < deadline:
        time.sleep(0.01)
    return found


def sleepers(marker: str) -> list[int]:
    """Live (non-zombie) sleepers started with ``marker``."""
    tag = f"{marker}-sleeper".encode()
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as stream:
                if tag not in stream.read():
                    continue
        except OSError:
            continue
        state = _stat_fields(name)
        if state and state[0] != b"Z":
            found.append(int(name))
    return found


def _stat_fields(pid: str) -> list[bytes]:
    """The fields of ``/proc/<pid>/stat`` after the program's name (state, parent, ...);
    none when the process is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stream:
            stat = stream.read()
    except OSError:
        return []
    return stat[stat.rfind(b")") + 2 :].split()


def children_of(pid: int) -> list[int]:
    """The processes whose parent is ``pid``."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            fields = _stat_fields(name)
            if fields and int(fields[1]) == pid:
                found.append(int(name))
    return found


def none_left(marker: str, seconds: float = 10.0) -> bool:
    """Whether every sleeper of ``marker`` is gone within ``seconds`` (the survivors are
    killed either way, so a failing test leaves nothing behind)."""
    if wait_until(lambda: not sleepers(marker), seconds, step=0.05):
        return True
    left = sleepers(marker)
    for pid in left:
        with contextlib.suppress(OSError):
            os.kill(pid, 9)
    return not left


def warm_pids(folder: str | os.PathLike[str]) -> list[int]:
    """The live warm processes whose sockets are in ``folder`` (each writes its pid into
    its ``.lock`` file; a pid reused since by another program is left out)."""
    found = []
    for entry in os.scandir(folder) if os.path.isdir(folder) else ():
        if not entry.name.endswith(".lock"):
            continue
        try:
            with open(entry.path, "rb") as stream:
                pid = int(stream.read().strip() or 0)
            with open(f"/proc/{pid}/cmdline", "rb") as stream:
                if b".pyz" not in stream.read():
                    continue
        except (OSError, ValueError):
            continue
        found.append(pid)
    return found


def end_warm_processes(folder: str | os.PathLike[str]) -> None:
    """End the warm processes of built skills whose sockets are in ``folder``, and remove
    the folder (which keeps one still loading from serving there: killing first would
    leave it a moment to take the place of those killed)."""
    import shutil

    pids = warm_pids(folder)
    shutil.rmtree(folder, ignore_errors=True)
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, 15)


def warm_ready(folder: Path, count: int = 1, within: float = 20.0) -> list[int]:
    """The warm processes of ``folder`` once ``count`` of them listen."""
    deadline = time.monotonic() + within
    pids: list[int] = []
    while time.monotonic() < deadline:
        pids = warm_pids(folder)
        if len(pids) >= count and len(list(folder.glob("*.sock"))) >= count:
            return pids
        time.sleep(0.02)
    raise AssertionError(f"{count} warm process(es) expected in {folder}, found {pids}")


def in_a_deleted_folder(parent: Path) -> Callable[[], None]:
    """A ``preexec_fn`` that starts the process in a folder deleted under it (made in
    ``parent``), as an agent's shell may be."""
    gone = parent / "gone"
    gone.mkdir()

    def enter_then_delete() -> None:
        os.chdir(gone)
        os.rmdir(gone)

    return enter_then_delete
