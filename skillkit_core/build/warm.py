"""Warm processes of a built skill, copied into every pyz as ``_skillkit_warm.py``.

A cold call of ``scripts/run`` spends nearly all its time loading (the interpreter,
pydantic, skillkit's runtime, the skill's module) and a few milliseconds answering. So a
call that loaded everything leaves a copy of itself behind: a *warm process*, forked after
loading and before the call runs, detached from the agent's terminal and pipes, listening
on a Unix socket. A later call connects, hands over its arguments and its three standard
descriptors (the descriptors themselves, so the answer goes straight into the agent's
pipes), and the warm process forks a child that runs the call from the state right after
loading, as a cold process would: nothing one call does is seen by the next. The child
sends its exit code back; the calling process exits with it, and passes on the signals it
gets (Ctrl-C, a harness's ``SIGTERM``) to the child. The warm process watches its
children: it tells a caller how its child ended when the child could not (``os._exit``,
a signal: the caller then dies of the same signal), and kills the child of a caller that
went away (killed with ``SIGKILL``, which cannot be passed on), as the cold call would
have died with it.

A warm process serves only calls made in the circumstances of the call that left it: the
same bundle (its path, file and configuration), interpreter and its options, working
directory, environment variables and process context (user and groups, umask, resource
limits, capabilities, no-new-privileges and seccomp state, ignored and blocked signals,
priority, scheduling policy, CPUs and memory nodes, out-of-memory score adjustment,
cgroup, namespaces). All of them go into the socket's name, a hash, so a call made
elsewhere, for instance from inside a sandbox a warm process was not started in, never
reaches it: that call loads cold and leaves a warm process of its own (which inherits
that sandbox). Both ends check that the other is this user's (``SO_PEERCRED``) and that
they may look into each other (which a Landlock sandbox, invisible in ``/proc``, denies
across its wall: see :func:`kindred`); sockets live in a private folder
(``SKILLKIT_WARM_DIR``, else ``$XDG_RUNTIME_DIR/skillkit``, else
``$TMPDIR/skillkit-<uid>/warm``).

A warm process ends after ``SKILLKIT_WARM_IDLE`` seconds without a call (default
:data:`IDLE_SECONDS`), when its bundle (or its unpacked copy) changes or disappears, when
its socket is removed (removing the folder ends them all within :data:`CHECK_SECONDS`),
and when it is the one used least recently in a folder a new one would bring to more
than :data:`MAX_WARM`.
``SKILLKIT_WARM=0`` turns the mechanism off. It is Linux only (``SO_PEERCRED``,
``/proc``); elsewhere every call is cold. What a caller can tell: the skill's module runs
once per warm process, so what it prints while being imported shows on the call that
loaded it only.

The calling side (:func:`call`) imports nothing beyond a few built-in modules: it is the
whole cost of a warm call apart from the interpreter's start.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # no typing import on the calling side
    from collections.abc import Callable
    from typing import Any, NoReturn

IDLE_SECONDS = 600
"""How long a warm process waits for a call before it ends."""
MAGIC = b"skw1"
MAX_REQUEST = 32 << 20
"""Bytes of arguments accepted (Linux caps a command line well below this)."""
REQUEST_SECONDS = 2.0
"""How long a warm process waits for a connected caller's request, and its child for the
caller's go-ahead (a caller sends each at once)."""
ANSWER_SECONDS = 3.0
"""How long a caller waits to connect and for the child that will run its call (a warm
process that is stopped or swamped must not hold a call up: the call goes cold)."""
MAX_CALLS = 64
"""Calls a warm process runs at once; later callers wait (``ANSWER_SECONDS``), then go
cold."""
MAX_WARM = 16
"""Warm processes alive at once in a socket folder (a new one ends the one used least
recently)."""
CHECK_SECONDS = 30.0
"""How often (at most) an idle warm process checks that its socket and bundle are still
there, and whether its idle time is over (a quarter of it when that is shorter)."""
STDIO = (0, 1, 2)
_NAMESPACES = ("cgroup", "ipc", "mnt", "net", "pid", "user", "uts")
# Lines of /proc/self/status that describe what a process may do, where it may run, and
# which signals reach it.
_STATUS_KEYS = (
    b"Umask:",
    b"Uid:",
    b"Gid:",
    b"Groups:",
    b"NoNewPrivs:",
    b"Seccomp:",
    b"Seccomp_filters:",
    b"CapInh:",
    b"CapPrm:",
    b"CapEff:",
    b"CapBnd:",
    b"CapAmb:",
    b"Cpus_allowed_list:",
    b"Mems_allowed_list:",
    b"SigBlk:",  # signals blocked or ignored since the caller's start (nohup, a
    b"SigIgn:",  # shell's background job): a warm process must treat them alike
)
_MAX_SOCKET_PATH = 100  # sockaddr_un holds 108 bytes on Linux, 104 elsewhere
_FORWARDED = ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT")


class Identity:
    """What a call must share with a warm process for it to serve the call, and the
    descriptors this process was started with beyond the standard three (``inherited``:
    number → device and inode), which a warm process left by it must not keep open (an
    agent may wait for the end of one of them). ``folder``: the socket folder's inode
    when the call began (``None``: there was none), so that a warm process still loading
    when the folder was removed does not make it again and serve."""

    __slots__ = ("digest", "folder", "inherited", "socket_path")

    def __init__(
        self,
        digest: bytes,
        socket_path: str,
        inherited: dict[int, tuple[int, int]],
        folder: int | None = None,
    ) -> None:
        self.digest = digest
        self.socket_path = socket_path
        self.inherited = inherited
        self.folder = folder


def identity(config: dict[str, Any], archive: str, argv: list[str]) -> Identity | None:
    """This call's identity, or ``None`` when it may neither use nor leave a warm process
    (turned off, not Linux, an MCP server, no usable runtime folder, or a process started
    without one of the standard streams: Python sets such a process up otherwise)."""
    if os.environ.get("SKILLKIT_WARM", "1") == "0" or not sys.platform.startswith("linux"):
        return None
    if None in (sys.__stdin__, sys.__stdout__, sys.__stderr__):
        return None
    if "mcp" in argv:  # a long-lived server of its own (flags may come before the word)
        return None
    folder = runtime_folder()
    try:
        cwd = os.getcwd()
        info = os.stat(archive)
        parts = [
            MAGIC,
            os.fsencode(archive),
            b"%d:%d:%d" % (info.st_ino, info.st_size, info.st_mtime_ns),
            repr(config).encode("utf-8", "surrogateescape"),
            os.fsencode(sys.executable or ""),
            sys.version.encode(),
            repr((sys.flags, sys._xoptions, sys.warnoptions)).encode(),
            os.fsencode(cwd),
            _process_context(),
            *(key + b"=" + value for key, value in sorted(os.environb.items())),
        ]
    except (OSError, ValueError):
        return None
    digest = _hash(b"\0".join(parts))
    socket_path = os.path.join(folder, digest.hex() + ".sock")
    if len(os.fsencode(socket_path)) > _MAX_SOCKET_PATH:
        return None
    return Identity(digest, socket_path, _open_descriptors(), _inode(folder))


def _open_descriptors() -> dict[int, tuple[int, int]]:
    """This process's open descriptors past the standard three, with what they lead to
    (the listing's own descriptor is closed again by the time they are looked at)."""
    found = {}
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd > 2:
            try:
                info = os.fstat(fd)
            except OSError:
                continue
            found[fd] = (info.st_dev, info.st_ino)
    return found


def inherited_descriptors(me: Identity) -> tuple[int, ...]:
    """Those of ``me.inherited`` that still lead where they did (a descriptor closed and
    its number reused since is not the caller's any more)."""
    still = []
    for fd, place in me.inherited.items():
        try:
            info = os.fstat(fd)
        except OSError:
            continue
        if (info.st_dev, info.st_ino) == place:
            still.append(fd)
    return tuple(still)


def _process_context() -> bytes:
    """What this process may do and how it is scheduled, as the kernel reports it
    (limits, credentials, seccomp, signals, CPUs, priority, cgroup, namespaces)."""
    with open("/proc/self/status", "rb") as handle:
        status = [line for line in handle.read().splitlines() if line.startswith(_STATUS_KEYS)]
    with open("/proc/self/limits", "rb") as handle:
        limits = handle.read()
    with open("/proc/self/cgroup", "rb") as handle:
        cgroup = handle.read()
    with open("/proc/self/oom_score_adj", "rb") as handle:
        oom = handle.read()
    spaces = [os.fsencode(os.readlink(f"/proc/self/ns/{name}")) for name in _NAMESPACES]
    policy = os.sched_getscheduler(0), os.sched_getparam(0).sched_priority
    scheduling = b"%d %d %d" % (os.getpriority(os.PRIO_PROCESS, 0), *policy)
    return b"\n".join([*status, limits, cgroup, oom, scheduling, *spaces])


def _hash(data: bytes) -> bytes:
    try:
        from _blake2 import blake2b  # the C module itself: hashlib would load OpenSSL
    except ImportError:
        from hashlib import blake2b
    return blake2b(data, digest_size=16).digest()


def runtime_folder() -> str:
    """Where this user's warm sockets live (made and checked by :func:`private_folder`):
    ``SKILLKIT_WARM_DIR`` when set, else ``$XDG_RUNTIME_DIR/skillkit``, else
    ``$TMPDIR/skillkit-<uid>/warm``."""
    chosen = os.environ.get("SKILLKIT_WARM_DIR", "")
    if os.path.isabs(chosen):
        return chosen
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    if os.path.isabs(runtime):
        return os.path.join(runtime, "skillkit")
    temp = os.environ.get("TMPDIR", "")
    temp = temp if os.path.isabs(temp) else "/tmp"
    return os.path.join(temp, f"skillkit-{os.getuid()}", "warm")


def private_folder(folder: str) -> None:
    """Make ``folder`` (mode 0700) and check that nobody else could have planted a socket
    there: it is a folder of this user's that only the user may enter, and its parent is
    this user's or root's, where others may not rename it (not writable by others, or
    sticky like ``/tmp``). Neither may be a symlink."""
    import contextlib
    import stat

    uid = os.getuid()
    parent = os.path.dirname(folder)
    with contextlib.suppress(FileExistsError):
        os.mkdir(parent, 0o700)
    info = os.lstat(parent)  # before making anything in it
    shared = info.st_mode & 0o022 and not info.st_mode & stat.S_ISVTX
    if not stat.S_ISDIR(info.st_mode) or info.st_uid not in (uid, 0) or shared:
        raise PermissionError(f"{parent} could let another user replace {folder}")
    with contextlib.suppress(FileExistsError):
        os.mkdir(folder, 0o700)
    info = os.lstat(folder)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != uid or info.st_mode & 0o077:
        raise PermissionError(f"{folder} is not a private folder of this user")


# --- the calling side ------------------------------------------------------------------


def call(me: Identity, argv: list[str]) -> int | None:
    """Have a warm process run this call and return its exit code, or ``None`` when none
    took it (nothing ran: the caller goes on cold)."""
    import _socket

    try:
        for fd in STDIO:
            os.fstat(fd)  # a closed standard descriptor cannot be handed over
        sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    except OSError:
        return None
    try:
        return _call(sock, me, argv)
    finally:
        sock.close()


def _call(sock: Any, me: Identity, argv: list[str]) -> int | None:
    import _socket

    try:
        sock.settimeout(ANSWER_SECONDS)
        sock.connect(me.socket_path)
        if not kindred(sock):
            return None
        sock.sendall(encode_request(me.digest, argv))
        accepted = _receive(sock, 5)
        if len(accepted) != 5 or accepted[:1] != b"Y":
            return None  # refused, or it went away before starting the call
        # The child runs the call only once it has the go-ahead, which carries the
        # standard descriptors: a caller that gave up waiting (and runs the call cold)
        # never has it run twice, nor leaves its pipes queued in a socket.
        rights = [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, _fd_bytes(STDIO))]
        sock.sendmsg([b"G"], rights)
        sock.settimeout(None)
    except OSError:
        return None
    forwarded, previous = _forward_signals(int.from_bytes(accepted[1:], "little"))
    try:
        ended = _receive(sock, 2)  # from the child, else from the warm process
    except OSError:
        ended = b""
    if ended[:1] == b"N" and not forwarded:
        # Nothing ran (the child could not enter the call's folder, say): run it cold.
        _restore_signals(previous)
        return None
    if len(ended) == 2 and ended[:1] == b"X":
        return ended[1]
    if len(ended) == 2 and ended[:1] == b"K":  # the child died of a signal
        return _die_of(ended[1])
    if forwarded:  # it died of a signal we passed on (the warm process is gone)
        return _die_of(forwarded[-1])
    _lost()
    return 1


def _die_of(signum: int) -> int:
    """End this process by ``signum``, as the child running its call ended (a shell or
    an agent's harness tells a death by a signal from an exit code)."""
    import _signal

    try:  # noqa: SIM105 (no contextlib on the calling side)
        _signal.signal(signum, _signal.SIG_DFL)
    except (OSError, ValueError):
        pass  # SIGKILL's cannot be set, nor need be
    os.kill(os.getpid(), signum)
    return 128 + signum  # not reached


def _receive(sock: Any, size: int) -> bytes:
    """``size`` bytes from ``sock``, or fewer when the other end closed first."""
    data = bytearray()
    while len(data) < size:
        chunk = sock.recv(min(1 << 20, size - len(data)))
        if not chunk:
            break
        data += chunk
    return bytes(data)


def _forward_signals(pid: int) -> tuple[list[int], dict[int, Any]]:
    """Pass the signals that would end this process on to the warm child ``pid``; the
    list fills with those received. Also returns the handlers they replace."""
    import _signal

    received: list[int] = []
    previous: dict[int, Any] = {}

    def forward(signum: int, _frame: object) -> None:
        received.append(signum)
        try:  # noqa: SIM105 (no contextlib on the calling side)
            os.kill(pid, signum)
        except OSError:
            pass

    for name in _FORWARDED:
        signum = getattr(_signal, name)
        previous[signum] = _signal.signal(signum, forward)
    return received, previous


def _restore_signals(previous: dict[int, Any]) -> None:
    import _signal

    for signum, handler in previous.items():
        if handler is not None:  # None: set outside Python, left as the forwarder
            _signal.signal(signum, handler)


def _lost() -> None:
    """Report a call whose end nobody could tell (never raising: the call may have run,
    so it must not go on to run cold)."""
    message = "the warm process running this call ended without an exit code"
    result = f'"kind":"error","error":"runtime","step":null,"message":"{message}"'
    try:
        sys.stdout.write(f'{{{result},"retry":false}}\n')
        sys.stdout.flush()
        sys.stderr.write(f"skillkit: error[runtime]: {message}\n")
    except (OSError, ValueError):  # nobody reads them any more
        pass


def kindred(sock: Any) -> bool:
    """Whether the process at the other end of a Unix socket is this user's and one this
    process may look into, in the same pid namespace. A sandbox that leaves no trace in
    ``/proc`` to compare (Landlock), or a security module's domain, denies a process a
    look into one outside it: asked at both ends, this keeps a call and a warm process on
    the same side of such a wall."""
    import _socket

    credentials = sock.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, 12)
    pid, uid = (int.from_bytes(credentials[i : i + 4], sys.byteorder) for i in (0, 4))
    if uid != os.getuid():
        return False
    try:
        return os.readlink(f"/proc/{pid}/ns/pid") == os.readlink("/proc/self/ns/pid")
    except OSError:
        return False


def _fd_bytes(fds: tuple[int, ...]) -> bytes:
    return b"".join(fd.to_bytes(4, sys.byteorder, signed=True) for fd in fds)


def encode_request(digest: bytes, argv: list[str]) -> bytes:
    """``MAGIC``, the payload's length, the identity's digest, then the argument count
    and the arguments, NUL-separated (no argument can hold a NUL)."""
    payload = digest + b"\0".join([b"%d" % len(argv), *map(os.fsencode, argv)])
    return MAGIC + len(payload).to_bytes(4, "little") + payload


def decode_request(payload: bytes, digest: bytes) -> list[str]:
    """The arguments of a request for the warm process of ``digest``; ``ValueError`` for
    anything else."""
    if payload[: len(digest)] != digest:
        raise ValueError("a request for another warm process")
    count, *words = payload[len(digest) :].split(b"\0")
    if not count.isdigit() or int(count) != len(words):
        raise ValueError("a malformed request")
    return [os.fsdecode(word) for word in words]


# --- the warm side ---------------------------------------------------------------------


def detach(become: Callable[[], object], descriptors: tuple[int, ...] = ()) -> None:
    """Run ``become`` in a new process that nothing waits for: a grandchild in a session
    of its own, whose standard descriptors and ``descriptors`` lead to ``/dev/null`` (so
    an agent waiting for the end of this call's output never waits for it). Returns at
    once in this process; failures to fork are ignored (the next call is cold again)."""
    try:
        middle = os.fork()
    except OSError:
        return
    if middle:  # it exits at once: reaped here, it is no child the call's code could see
        import contextlib

        with contextlib.suppress(OSError):
            os.waitpid(middle, 0)
        return
    try:
        os.setsid()
        if os.fork():
            os._exit(0)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (*STDIO, *descriptors):
            os.dup2(null, fd)
        os.close(null)
        become()
    except BaseException:  # nobody to tell: the next call finds no warm process
        pass
    os._exit(0)


class Server:
    """The warm process's loop: accept a call, fork a child to run it, wait for the next.

    ``run(argv)`` runs one call in a child and returns its exit code; ``stdout_fd`` is the
    descriptor the protocol's results are written to (which gets the caller's stdout;
    descriptor 1 then gets the caller's stderr, as the protocol's own claim on stdout
    arranged); ``settle(code)`` lets a finished child's threads, ``atexit`` handlers and
    buffered output finish before its exit code is sent; ``folders`` are those the bundle
    was unpacked to, which calls import from."""

    def __init__(
        self,
        me: Identity,
        archive: str,
        run: Callable[[list[str]], int],
        settle: Callable[[int], None],
        stdout_fd: int,
        folders: list[str] | tuple[str, ...] = (),
    ) -> None:
        self.me, self.archive, self.run, self.settle = me, archive, run, settle
        self.stdout_fd = stdout_fd
        self.folders = tuple(folders)
        self.bundle = self._bundle()
        self.cwd = os.getcwd()  # where loading left it (the module may have moved)
        self.sigchld: Any = None

    def serve(self) -> None:
        """Listen until idle for ``SKILLKIT_WARM_IDLE`` seconds, or until the bundle
        changes; returns at once when another warm process serves this identity."""
        import contextlib
        import fcntl
        import select
        import signal
        import socket
        import time

        try:  # a warm process watches its children through pidfds (Linux 5.3)
            os.close(os.pidfd_open(os.getpid()))
        except (AttributeError, OSError):
            return
        folder = os.path.dirname(self.me.socket_path)
        if self.me.folder is not None and _inode(folder) != self.me.folder:
            return  # removed since this call began: every warm process there was to end
        private_folder(folder)
        lock_path = self.me.socket_path[: -len(".sock")] + ".lock"
        lock = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return  # another one serves this identity
        os.ftruncate(lock, 0)
        os.write(lock, b"%d\n" % os.getpid())
        _make_room(os.path.dirname(lock_path), lock_path)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.me.socket_path)  # left by one that was killed
        listener.bind(self.me.socket_path)
        own = os.stat(self.me.socket_path).st_ino
        listener.listen(64)
        listener.setblocking(False)
        idle = idle_seconds()
        wait = int(min(idle / 4, CHECK_SECONDS) * 1000) + 1  # milliseconds
        # Children are reaped here, for their exit status (the skill's module may have
        # SIGCHLD ignored, which would leave none to wait for); each child restores it.
        self.sigchld = signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        poller = select.poll()
        calls = _Calls(poller)
        listening = False
        deadline = time.monotonic() + idle
        try:
            while True:
                if listening != (len(calls) < MAX_CALLS):  # busy: callers wait, then go cold
                    listening = not listening
                    if listening:
                        poller.register(listener, select.POLLIN)
                    else:
                        poller.unregister(listener)
                calling = False
                for fd, _event in poller.poll(wait):
                    if fd == listener.fileno():
                        calling = True  # taken last: it may reuse a number freed here
                    else:
                        calls.handle(fd)
                served = self._next(listener, lock, calls) if calling else None
                if served:
                    deadline = time.monotonic() + idle
                if served is False or time.monotonic() >= deadline or not self._still_there(own):
                    break
        finally:
            if listening:
                poller.unregister(listener)
            listener.close()
            _remove_if_same(self.me.socket_path, own)
            _remove_if_same(lock_path, os.fstat(lock).st_ino)
            while calls:  # the calls under way still report to their callers
                for fd, _event in poller.poll():
                    calls.handle(fd)

    def _still_there(self, own: int) -> bool:
        """Whether this process's socket (someone may remove it, or the whole folder, to
        end it) and bundle are as they were."""
        return _inode(self.me.socket_path) == own and self._bundle() == self.bundle

    def _bundle(self) -> tuple[object, ...]:
        """The bundle file's stamp and its unpacked folders' inodes: a rebuilt bundle, or
        a cleared cache (calls would fail to import from the folders; a cold call unpacks
        them again), ends this warm process."""
        return (_stamp(self.archive), *(_inode(folder) for folder in self.folders))

    def _next(self, listener: Any, lock: int, calls: _Calls) -> bool | None:
        """Serve one connection: ``True`` when served (or refused), ``False`` when the loop
        should end, ``None`` when none was there after all."""
        import contextlib

        try:
            conn, _address = listener.accept()
        except OSError:  # the caller gave up meanwhile, or no descriptor is left
            return None
        if self._bundle() != self.bundle:
            conn.close()
            return False  # rebuilt or removed: the caller goes cold and leaves a new one
        with contextlib.suppress(OSError):
            os.utime(lock)  # used now (see _make_room)
        try:
            conn.settimeout(REQUEST_SECONDS)
            if not kindred(conn):
                raise ValueError("a call from another user or sandbox")
            argv = self._request(conn)
            pid = os.fork()
        except (OSError, ValueError):
            conn.close()
            return True
        if pid == 0:
            self._child(conn, listener, lock, calls, argv)
        calls.add(pid, conn)
        return True

    def _request(self, conn: Any) -> list[str]:
        """The arguments of a connected caller's request; ``ValueError`` for anything
        else."""
        header = _receive(conn, 8)
        if header[:4] != MAGIC or len(header) < 8:
            raise ValueError("not a warm request")
        size = int.from_bytes(header[4:8], "little")
        if size > MAX_REQUEST:
            raise ValueError("a request too large")
        payload = _receive(conn, size)
        if len(payload) < size:
            raise ValueError("a truncated request")
        return decode_request(payload, self.me.digest)

    def _child(
        self, conn: Any, listener: Any, lock: int, calls: _Calls, argv: list[str]
    ) -> NoReturn:
        """Become the process that runs one call (never returns)."""
        import contextlib
        import signal

        try:
            listener.close()
            os.close(lock)
            calls.forget()
            os.setpgid(0, 0)  # a group of its own: the call's code may signal its group
            if self.sigchld is not None:  # None: set outside Python, cannot be restored
                signal.signal(signal.SIGCHLD, self.sigchld)
            os.chdir(self.cwd)  # the same path, even if the folder was made anew
            self._take_streams(conn)
            conn.settimeout(None)
        except BaseException:
            with contextlib.suppress(OSError):  # nothing ran: not an exit code of the call's
                conn.sendall(b"N\0")
            os._exit(70)
        code = self._run(argv)
        self.settle(code)
        with contextlib.suppress(OSError):
            conn.sendall(b"X" + bytes([code & 0xFF]))
        os._exit(code & 0xFF)

    def _take_streams(self, conn: Any) -> None:
        """Receive the caller's go-ahead with its standard descriptors, and put them where
        this process's reads and writes go (raises when they do not come)."""
        import socket

        data, ancillary, flags, _address = conn.recvmsg(1, socket.CMSG_SPACE(4 * len(STDIO)))
        fds: list[int] = []
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                usable = len(payload) - len(payload) % 4
                fds += [
                    int.from_bytes(payload[i : i + 4], sys.byteorder, signed=True)
                    for i in range(0, usable, 4)
                ]
        if data != b"G" or len(fds) != len(STDIO) or flags & socket.MSG_CTRUNC:
            raise ConnectionError("no go-ahead with three descriptors")
        stdin, stdout, stderr = fds
        os.dup2(stdin, 0)
        os.dup2(stderr, 2)
        if self.stdout_fd != 1:
            os.dup2(stderr, 1)  # as the protocol's claim on stdout left descriptor 1
        os.dup2(stdout, self.stdout_fd, inheritable=False)  # as private as a cold call's
        for fd in fds:
            if fd not in (0, 1, 2, self.stdout_fd):
                os.close(fd)

    def _run(self, argv: list[str]) -> int:
        """One call's exit code, as the interpreter would end a cold call."""
        try:
            return self.run(argv)
        except SystemExit as stop:
            return _exit_status(stop.code)
        except KeyboardInterrupt:
            import signal

            # An uncaught Ctrl-C ends the interpreter by the signal itself.
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)
            return 130
        except BaseException:
            import traceback

            traceback.print_exc()
            return 1


class _Calls:
    """The calls a warm process's children are running, each watched through two
    descriptors: the child's pidfd (readable once it ended) and its caller's connection
    (hung up when the caller ends). The warm process tells each caller how its child
    ended (an exit code, or the signal it died of, even when it never got to say so
    itself), and kills the child of a caller that went away: killing a cold call ends
    it, and a harness that kills a call waits for the end of its output."""

    def __init__(self, poller: Any) -> None:
        self.poller = poller
        self.children: dict[int, tuple[int, Any]] = {}  # pidfd → pid, connection
        self.callers: dict[int, int] = {}  # connection's descriptor → pidfd

    def __len__(self) -> int:
        return len(self.children)

    def add(self, pid: int, conn: Any) -> None:
        """Watch the child ``pid`` forked for ``conn``'s call, then send the caller its pid
        (the caller's go-ahead, without which the child runs nothing, waits for it)."""
        import contextlib
        import select
        import signal

        try:
            pidfd = os.pidfd_open(pid)
        except OSError:  # it cannot be watched: it goes before it gets the go-ahead
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            conn.close()
            return
        self.children[pidfd] = (pid, conn)
        self.callers[conn.fileno()] = pidfd
        self.poller.register(pidfd, select.POLLIN)
        self.poller.register(conn, select.POLLRDHUP)
        with contextlib.suppress(OSError):
            conn.sendall(b"Y" + pid.to_bytes(4, "little"))

    def handle(self, fd: int) -> None:
        """A child ended, or a caller hung up."""
        import contextlib
        import signal

        if fd in self.children:
            self._ended(fd)
        elif fd in self.callers:
            self.poller.unregister(fd)
            pidfd = self.callers.pop(fd)
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(pidfd, signal.SIGKILL)
            # And what the call started: a cold call's children are in the caller's
            # process group, which a harness giving up kills; a warm call's are in the
            # group the child leads (its pid stays reserved until it is reaped).
            with contextlib.suppress(OSError):
                os.killpg(self.children[pidfd][0], signal.SIGKILL)

    def _ended(self, pidfd: int) -> None:
        import contextlib
        import socket

        pid, conn = self.children.pop(pidfd)
        self.poller.unregister(pidfd)
        os.close(pidfd)
        if self.callers.pop(conn.fileno(), None) is not None:
            self.poller.unregister(conn)
        _pid, status = os.waitpid(pid, 0)
        code = os.waitstatus_to_exitcode(status)
        report = b"X" + bytes([code]) if code >= 0 else b"K" + bytes([-code])
        with contextlib.suppress(OSError):  # after the child's own, if it sent one
            conn.send(report, socket.MSG_DONTWAIT)
        conn.close()

    def forget(self) -> None:
        """Close these descriptors (in a child, which has copies it must not hold)."""
        for pidfd, (_pid, conn) in self.children.items():
            os.close(pidfd)
            conn.close()


def _exit_status(code: object) -> int:
    """The status ``sys.exit(code)`` gives a process (a message is printed, as there)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    sys.stderr.write(f"{code}\n")
    return 1


def _make_room(folder: str, own: str) -> None:
    """Remove the files of warm processes that are gone (killed ones leave theirs), and
    when ``MAX_WARM`` others are alive in ``folder``, have those used least recently end
    (a warm process whose socket is removed ends within ``CHECK_SECONDS``). A warm process
    holds a lock on its lock file while it lives, and touches the file on every call."""
    import contextlib
    import fcntl

    alive = []
    for entry in os.scandir(folder):
        if not entry.name.endswith(".lock") or entry.path == own:
            continue
        try:
            lock = os.open(entry.path, os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            continue
        socket_path = entry.path[: -len(".lock")] + ".sock"
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # held: that warm process lives (ending, if its socket is gone)
            if os.path.lexists(socket_path):
                alive.append((os.fstat(lock).st_mtime_ns, socket_path))
        else:  # nobody's: its warm process is gone (and none can bind while this holds it)
            for path in (socket_path, entry.path):
                with contextlib.suppress(OSError):
                    os.unlink(path)
        finally:
            os.close(lock)
    alive.sort()
    for _used, socket_path in alive[: max(len(alive) - MAX_WARM + 1, 0)]:
        with contextlib.suppress(OSError):
            os.unlink(socket_path)


def _remove_if_same(path: str, inode: int) -> None:
    """Remove ``path`` unless another process has put a file of its own there."""
    import contextlib

    if _inode(path) == inode:
        with contextlib.suppress(OSError):
            os.unlink(path)


def _inode(path: str) -> int | None:
    try:
        return os.stat(path).st_ino
    except OSError:
        return None


def _stamp(path: str) -> tuple[int, int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_ino, info.st_size, info.st_mtime_ns


def idle_seconds() -> float:
    """``SKILLKIT_WARM_IDLE`` (seconds, positive), else :data:`IDLE_SECONDS`."""
    try:
        seconds = float(os.environ.get("SKILLKIT_WARM_IDLE", IDLE_SECONDS))
    except ValueError:
        return IDLE_SECONDS
    return seconds if 0 < seconds < 1e7 else IDLE_SECONDS
