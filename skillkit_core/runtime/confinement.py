"""Resource limits and a kill switch for one script run of ``skillkit serve``.

A script (and whatever it starts) runs under:

- resource limits set in the child before ``exec`` and inherited by its descendants:
  CPU seconds (``RLIMIT_CPU``, per process), address space (``RLIMIT_AS``, per process)
  and, where the kernel enforces it for the server's user, the number of processes
  (``RLIMIT_NPROC``, counted per user, so it is set to what the user already runs plus
  the limit);
- where a ``pids`` cgroup can be created (cgroup v1 ``pids`` hierarchy, or v2 with the
  ``pids`` controller delegated, as for root on most Linux systems), a cgroup of its own
  with ``pids.max`` set to the process limit. That limit holds for root too, and the
  cgroup's member list reaches every descendant, whatever session or parent it has;
- the keeper of :mod:`skillkit_core.process_tree` (a subreaper), so orphans of
  double-forked children stay in the tree that is killed when the call ends.

Where neither the cgroup nor ``RLIMIT_NPROC`` applies (root without a writable cgroup
file system, or a system without ``/proc``), the process count is not capped; the tree is
still killed at the end.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import resource
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path

_counter = itertools.count()
_PREFIX = "skillkit-run-"
# How long to keep trying to kill a cgroup's members and remove it.
_CGROUP_DRAIN_SECONDS = 2.0


@dataclass(frozen=True)
class ProcessLimits:
    """Per-run resource limits; ``None`` leaves that resource unlimited."""

    cpu_seconds: int | None = None
    memory_bytes: int | None = None
    processes: int | None = None


class Confinement:
    """The limits and member tracking of one run: create, start the child, then close."""

    def __init__(self, limits: ProcessLimits) -> None:
        self.limits = limits
        self.cgroup: Path | None = None
        self._nproc: int | None = None
        if limits.processes is not None:
            self.cgroup = _new_pids_cgroup(limits.processes)
            if self.cgroup is None:
                self._nproc = _user_process_limit(limits.processes)
        # Worked out before the fork: preexec does no more than system calls.
        self._procs = str(self.cgroup / "cgroup.procs") if self.cgroup is not None else None

    @property
    def caps_processes(self) -> bool:
        """Whether the process limit is enforced for this run."""
        return self.cgroup is not None or self._nproc is not None

    def preexec(self) -> None:
        """Run in the child between fork and exec: join the cgroup and set the limits.

        Only system calls and small writes happen here (no imports, no locks), as is safe
        between fork and exec.
        """
        if self._procs is not None:
            fd = os.open(self._procs, os.O_WRONLY)
            try:
                os.write(fd, b"0")
            finally:
                os.close(fd)
        if self.limits.cpu_seconds is not None:
            # The hard limit a little above the soft one: SIGXCPU first, then SIGKILL.
            soft = self.limits.cpu_seconds
            resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 1))
        if self.limits.memory_bytes is not None:
            size = self.limits.memory_bytes
            resource.setrlimit(resource.RLIMIT_AS, (size, size))
        if self._nproc is not None:
            resource.setrlimit(resource.RLIMIT_NPROC, (self._nproc, self._nproc))

    def members(self) -> list[int]:
        """Processes in the run's cgroup (empty without one)."""
        if self.cgroup is None:
            return []
        try:
            text = (self.cgroup / "cgroup.procs").read_text()
        except OSError:
            return []
        return [int(line) for line in text.split()]

    def hit_process_limit(self) -> bool:
        """Whether a fork was refused because of the cgroup's ``pids.max``."""
        if self.cgroup is None:
            return False
        with contextlib.suppress(OSError, ValueError):
            for line in (self.cgroup / "pids.events").read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "max":
                    return int(value) > 0
        return False

    def kill_members(self) -> None:
        """SIGKILL every member of the cgroup until it is empty (or time runs out)."""
        if self.cgroup is None:
            return
        deadline = time.monotonic() + _CGROUP_DRAIN_SECONDS
        while time.monotonic() < deadline:
            members = self.members()
            if not members:
                return
            for pid in members:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.01)

    def close(self) -> None:
        """Kill what is left in the cgroup and remove it."""
        if self.cgroup is None:
            return
        self.kill_members()
        deadline = time.monotonic() + _CGROUP_DRAIN_SECONDS
        while True:
            try:
                self.cgroup.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                # Killed members still count until they are reaped.
                if time.monotonic() >= deadline:
                    print(f"skillkit: could not remove cgroup {self.cgroup}", file=sys.stderr)
                    return
                time.sleep(0.02)


def _new_pids_cgroup(limit: int) -> Path | None:
    """A fresh cgroup with ``pids.max = limit`` below this process's own, or None."""
    parent = _own_pids_cgroup()
    if parent is None:
        return None
    _remove_stale(parent)
    path = parent / f"{_PREFIX}{os.getpid()}-{next(_counter)}"
    try:
        path.mkdir()
    except OSError:
        return None
    try:
        (path / "pids.max").write_text(str(limit))
        return path
    except OSError:
        with contextlib.suppress(OSError):
            path.rmdir()
        return None


def _remove_stale(parent: Path) -> None:
    """Remove the run cgroups of servers that are gone (one killed before its cleanup
    left an empty folder behind). Only empty ones can be removed; others stay."""
    try:
        names = os.listdir(parent)
    except OSError:
        return
    for name in names:
        if not name.startswith(_PREFIX):
            continue
        owner = name[len(_PREFIX) :].partition("-")[0]
        if owner.isdigit() and not os.path.exists(f"/proc/{owner}"):
            with contextlib.suppress(OSError):
                (parent / name).rmdir()


@functools.cache
def _own_pids_cgroup() -> Path | None:
    """The folder of this process's cgroup in a hierarchy with the ``pids`` controller."""
    try:
        memberships = Path("/proc/self/cgroup").read_text().splitlines()
        mounts = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return None
    for membership in memberships:
        _, controllers, path = membership.split(":", 2)
        version = 2 if controllers == "" else 1
        if version == 1 and "pids" not in controllers.split(","):
            continue
        mount = _mount_point(mounts, version)
        if mount is None:
            continue
        root, point = mount
        relative = os.path.relpath(path, root) if path.startswith(root) else None
        if relative is None:
            continue
        folder = Path(point) / relative if relative != "." else Path(point)
        if version == 2 and not _v2_delegates_pids(folder):
            continue
        if os.access(folder, os.W_OK):
            return folder
    return None


def _mount_point(mounts: list[str], version: int) -> tuple[str, str] | None:
    """(root inside the hierarchy, mount point) of the pids v1 or the v2 hierarchy."""
    for line in mounts:
        left, _, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if len(fields) < 5 or len(tail) < 3:
            continue
        fstype, options = tail[0], tail[2].split(",")
        if version == 1 and fstype == "cgroup" and "pids" in options:
            return fields[3], fields[4]
        if version == 2 and fstype == "cgroup2":
            return fields[3], fields[4]
    return None


def _v2_delegates_pids(folder: Path) -> bool:
    try:
        return "pids" in (folder / "cgroup.subtree_control").read_text().split()
    except OSError:
        return False


def _user_process_limit(extra: int) -> int | None:
    """``RLIMIT_NPROC`` for a child that may start ``extra`` more processes, or None.

    The kernel counts every process of the real user and ignores the limit for root (and
    where it cannot be read the count is unknown), so it is used only where it means what
    it says.
    """
    uid = os.getuid()
    if uid == 0 or not os.path.isdir("/proc"):
        return None
    running = 0
    for name in os.listdir("/proc"):
        if name.isdigit():
            with contextlib.suppress(OSError):
                if os.stat(f"/proc/{name}").st_uid == uid:
                    running += 1
    return running + extra
