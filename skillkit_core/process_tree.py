"""Find and stop a whole process tree, children that called ``setsid`` or double-forked
included.

Author code (a skill module imported by a worker, a script that ``serve`` runs) may start
processes that outlive it: a child in its own session escapes ``killpg``, and a
double-forked daemon is re-parented away from its starter. Three tools keep them in
reach:

- :func:`descendants` walks the parent links of the live processes (``/proc`` on Linux,
  ``ps`` elsewhere), so children in their own session or process group are found;
- :func:`become_subreaper` (Linux) makes the caller adopt the orphans of its subtree
  instead of init, so a double-forked grandchild stays a descendant;
- :func:`kill_tree` freezes the tree (``SIGSTOP``, repeated until no new process appears,
  so nothing forks away while it is being collected), then kills every member and reaps
  the ones that are the caller's children.

:func:`keeper_command` wraps a command in a small keeper process (``python
process_tree.py -- command...``): a subreaper that runs the command with the same stdin,
stdout and stderr, and when the command exits kills whatever it left behind before
exiting the same way. Stop a kept command with :func:`kill_tree` on the keeper's pid.

Standard library only, and nothing imported at module level beyond it: the keeper runs
this file directly with ``python -I -S``.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Sequence

_PR_SET_CHILD_SUBREAPER = 36
# Rounds of "collect, freeze" before giving up on a tree that keeps forking.
_FREEZE_ROUNDS = 50
_REAP_SECONDS = 2.0
# How often a keeper looks whether its parent still lives.
_PARENT_CHECK = 1.0


# ---------------------------------------------------------------- finding descendants


def how_it_ended(code: int | None) -> str:
    """``exit status N`` or ``killed by signal NAME`` for a process's return code: a
    negative one (``Popen``, ``waitpid``) or one past 128 (a keeper passing its child's
    death on, as a shell does) is a signal."""
    number = -code if code is not None and code < 0 else (code - 128 if code and code > 128 else 0)
    if number:
        with contextlib.suppress(ValueError):
            return f"killed by signal {signal.Signals(number).name}"
    return f"exit status {code}"


def _proc_children_map() -> dict[int, list[int]] | None:
    """Parent pid → child pids of every live process, from ``/proc`` (None without it)."""
    try:
        names = os.listdir("/proc")
    except OSError:
        return None
    children: dict[int, list[int]] = {}
    found = False
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as stream:
                stat = stream.read()
        except OSError:
            continue  # it ended while we looked
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses.
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) < 2:
            continue
        found = True
        if fields[0] == b"Z":
            continue  # a zombie runs nothing; its parent reaps it
        children.setdefault(int(fields[1]), []).append(int(name))
    return children if found else None


def _ps_children_map() -> dict[int, list[int]]:
    """The same from ``ps`` (macOS, BSD); empty when ``ps`` cannot be run."""
    try:
        done = subprocess.run(
            ["ps", "-A", "-o", "pid=", "-o", "ppid=", "-o", "stat="],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return {}
    children: dict[int, list[int]] = {}
    for line in done.stdout.splitlines():
        parts = line.split()
        if len(parts) < 2 or not parts[0].isdigit() or not parts[1].isdigit():
            continue
        if len(parts) > 2 and parts[2].startswith("Z"):
            continue
        children.setdefault(int(parts[1]), []).append(int(parts[0]))
    return children


def _children_map() -> dict[int, list[int]]:
    found = _proc_children_map()
    return found if found is not None else _ps_children_map()


def _childless(pid: int) -> bool:
    """True when ``pid`` surely has no child (read cheaply from ``/proc/PID/task/*/
    children`` where the kernel offers it); False when it has one or nobody can tell."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
        for task in tasks:
            with open(f"/proc/{pid}/task/{task}/children", "rb") as stream:
                if stream.read().strip():
                    return False
    except OSError:
        return False
    return bool(tasks)


def descendants(pid: int) -> list[int]:
    """Every live descendant of ``pid`` (not ``pid`` itself), parents before children.

    Found through parent links, so children that moved to their own session or process
    group are included; zombies are not (they run nothing).
    """
    if _childless(pid):
        return []
    return _walk(_children_map(), [pid])


def _walk(children: dict[int, list[int]], roots: Iterable[int]) -> list[int]:
    found: list[int] = []
    seen = set(roots)
    queue = list(seen)
    while queue:
        current = queue.pop(0)
        for child in children.get(current, ()):
            if child not in seen:
                seen.add(child)
                found.append(child)
                queue.append(child)
    return found


# ---------------------------------------------------------------- stopping a tree


def _signal(pid: int, number: int) -> bool:
    try:
        os.kill(pid, number)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def _group_members(pgid: int, children: dict[int, list[int]]) -> list[int]:
    """Live processes whose process group is ``pgid`` (a portable extra net)."""
    members = []
    for pid in {p for kids in children.values() for p in kids}:
        with contextlib.suppress(OSError):
            if os.getpgid(pid) == pgid:
                members.append(pid)
    return members


def kill_tree(pid: int, *, include_root: bool = True) -> list[int]:
    """Kill ``pid``'s descendants (and ``pid`` itself unless ``include_root`` is false).

    The tree is frozen first: the root and every descendant found get ``SIGSTOP``, and
    the walk repeats until a round finds nobody new, so no member can fork a process
    that escapes the count. Then every member gets ``SIGKILL``. When the root leads its
    own process group, the rest of that group goes too. Members that are the caller's
    children (adopted orphans) are reaped, except the root: whoever started it waits for
    it. Returns the pids that were signalled.
    Never raises for processes that are already gone.
    """
    group = _own_group(pid)
    if not include_root and group is None and _childless(pid):
        return []  # the common case after an analysis: nothing was started
    frozen: list[int] = []
    if include_root and pid != os.getpid() and _signal(pid, signal.SIGSTOP):
        frozen.append(pid)
    seen = set(frozen) | {pid, os.getpid()}
    for _ in range(_FREEZE_ROUNDS):
        children = _children_map()
        new = [p for p in _walk(children, [pid, *frozen]) if p not in seen]
        if group is not None:
            new += [p for p in _group_members(group, children) if p not in seen]
        new = list(dict.fromkeys(new))
        if not new:
            break
        for member in new:
            seen.add(member)
            if _signal(member, signal.SIGSTOP):
                frozen.append(member)
    for member in frozen:
        _signal(member, signal.SIGKILL)  # a stopped process dies of it at once
    # The root is left to its owner to wait for (a Popen keeps its exit status).
    _reap([member for member in frozen if member != pid])
    return frozen


def kill_descendants(pid: int | None = None) -> list[int]:
    """:func:`kill_tree` without the root (default: this process's own descendants)."""
    return kill_tree(os.getpid() if pid is None else pid, include_root=False)


def _own_group(pid: int) -> int | None:
    """``pid``'s process group when ``pid`` leads it (and it is not the caller's)."""
    try:
        group = os.getpgid(pid)
    except OSError:
        return None
    if group != pid or group == os.getpgrp():
        return None
    return group


def _reap(pids: Sequence[int]) -> None:
    """Wait for the killed processes that are our children (adopted orphans included)."""
    pending = set(pids)
    deadline = time.monotonic() + _REAP_SECONDS
    while pending and time.monotonic() < deadline:
        for pid in list(pending):
            try:
                done, _ = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                if not _alive(pid):
                    pending.discard(pid)
                continue
            if done:
                pending.discard(pid)
        if pending:
            time.sleep(0.01)


def _alive(pid: int) -> bool:
    """Whether ``pid`` still runs (a zombie does not)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stream:
            stat = stream.read()
    except FileNotFoundError:
        return False
    except OSError:
        return _signal(pid, 0)
    fields = stat[stat.rfind(b")") + 2 :].split()
    return bool(fields) and fields[0] != b"Z"


def reap_orphans() -> None:
    """Reap every finished child of this process without blocking (a subreaper adopts
    orphans whose exit nobody else would collect)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


# ---------------------------------------------------------------- subreaper and keeper


def become_subreaper() -> bool:
    """Adopt the orphans of this process's subtree (Linux ``PR_SET_CHILD_SUBREAPER``).

    Returns False where the system has no such thing; callers then rely on process
    groups and :func:`descendants` alone.
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def keeper_command(command: Sequence[str]) -> list[str]:
    """``command`` run under a keeper that leaves no process of it behind (Linux), or
    ``command`` itself where a keeper cannot adopt orphans."""
    if not sys.platform.startswith("linux"):
        return list(command)
    # This process is the parent the keeper watches: it may die before the keeper starts.
    keeper = [sys.executable, "-I", "-S", os.path.abspath(__file__)]
    return [*keeper, "--parent", str(os.getpid()), "--", *command]


def keep(command: Sequence[str], parent: int | None = None) -> int:
    """Run ``command`` as a subreaper's child; when it exits, kill what it left behind,
    then exit as it did (its status, or the signal that ended it). When the keeper's own
    parent (``parent``, by default the one it has) dies first (killed, or gone without
    stopping it), the command is killed with all it started: nobody is left to read it,
    or to stop it; a parent gone before the keeper started runs nothing."""
    parent = parent or os.getppid()
    if os.getppid() != parent:
        return 1
    become_subreaper()
    # An ignored SIGCHLD (a disposition exec keeps) would reap the child unseen.
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    try:
        child = subprocess.Popen(list(command))
    except OSError as error:
        print(f"cannot run {command[0]}: {error}", file=sys.stderr)
        return 127
    # The caller reads the command's stdout to its end: the keeper must not hold it open.
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)

    _stop_on_signals(child.pid)
    status = child.returncode = _wait_while_parent_lives(child.pid, parent)
    kill_descendants()
    reap_orphans()
    if status < 0:
        if -status not in (signal.SIGKILL, signal.SIGSTOP):  # these cannot be handled
            signal.signal(-status, signal.SIG_DFL)
        os.kill(os.getpid(), -status)
        return 128 - status
    return status


def _stop_on_signals(child: int) -> None:
    """A keeper asked to stop (SIGTERM, SIGINT, SIGHUP) kills ``child``'s tree first."""

    def stop(number: int, _frame: object) -> None:
        kill_tree(child)
        os._exit(128 + number)

    for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(number, stop)


def _wait_while_parent_lives(child: int, parent: int) -> int:
    """``child``'s exit code (minus the signal that ended it); it is killed first if
    ``parent`` dies while it runs.

    SIGCHLD is blocked and waited for, with a timeout to look at the parent: a child that
    ends is seen at once, and a parent that died within :data:`_PARENT_CHECK` seconds (a
    keeper is re-parented to init or a subreaper then). Blocked only here, after the
    child started, which must not inherit the mask."""
    if not hasattr(signal, "sigtimedwait"):  # macOS: no parent check
        return os.waitstatus_to_exitcode(os.waitpid(child, 0)[1])
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})
    while True:
        pid, raw = os.waitpid(child, os.WNOHANG)
        if pid:
            return os.waitstatus_to_exitcode(raw)
        if os.getppid() != parent:
            kill_tree(child)
            return os.waitstatus_to_exitcode(os.waitpid(child, 0)[1])
        signal.sigtimedwait({signal.SIGCHLD}, _PARENT_CHECK)


def fork_kept(work: Callable[[], None]) -> int:
    """Fork a keeper that runs ``work`` in a child of its own, and return the keeper's
    pid (in the caller only).

    What :func:`keep` does for a command, for a function of this process, without
    starting another interpreter: the keeper leads a session of its own (a terminal's
    Ctrl-C reaches the caller only) and adopts its subtree's orphans; when the child
    ends, it kills whatever the child left behind and exits as the child did. An
    exception escaping ``work`` is printed to stderr and the child exits with status 70.
    Stop the whole of it with :func:`kill_tree` on the returned pid. POSIX only.
    """
    caller = os.getpid()
    keeper = os.fork()
    if keeper:
        return keeper
    status = 70
    try:
        if os.getppid() != caller:  # the caller died at once: nobody waits for the work
            os._exit(1)
        os.setsid()
        become_subreaper()
        child = os.fork()
        if child == 0:
            _run_child(work)

        _stop_on_signals(child)
        # The caller killed (SIGTERM, a closed terminal) takes the work with it.
        code = _wait_while_parent_lives(child, caller)
        kill_descendants()
        reap_orphans()
        status = code if code >= 0 else 128 - code
    finally:
        os._exit(status)


def _run_child(work: Callable[[], None]) -> None:
    status = 0
    try:
        work()
    except BaseException:  # the child must never return into the caller's code
        import traceback

        with contextlib.suppress(Exception):
            traceback.print_exc()
        status = 70
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(status)


def main(argv: Sequence[str] | None = None) -> int:
    """``python process_tree.py -- command...``: :func:`keep` the command."""
    args = list(sys.argv[1:] if argv is None else argv)
    parent = None
    if args[:1] == ["--parent"] and len(args) > 1 and args[1].isdigit():
        parent, args = int(args[1]), args[2:]
    if args[:1] == ["--"]:
        args = args[1:]
    if not args:
        print(
            "usage: python process_tree.py [--parent PID] -- command [arguments...]",
            file=sys.stderr,
        )
        return 2
    return keep(args, parent)


if __name__ == "__main__":
    raise SystemExit(main())
