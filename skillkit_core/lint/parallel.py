"""Checking many targets in forked processes: the same results as a loop, sooner.

``skillkit check`` on a few hundred SKILL.md folders spends most of its time in per-folder
Python work that one process runs on one CPU. :class:`Helpers` are ``os.fork`` children
that share such a list with the calling process: the caller puts one ticket per chunk of
items in a pipe, every process (helpers and caller) takes the next ticket when it is free,
so a process that starts late or meets slow items simply takes fewer. Results come back
in the order of the items, exactly as a loop would give them.

Helpers can be started before the work is known (:meth:`Helpers.start` with a ``load``
that imports what the work needs): ``skillkit check`` starts one first thing, and it
imports the rules while the caller parses the command line and walks the folders.
:func:`map_forked` starts them once the items are known.

Work and results cross pipes in ``marshal`` form (built into the interpreter: nothing to
import, and faster than pickle for plain data), so they must be made of built-in types:
:class:`Codec` turns results into such values and back when they are not.

Forking is only used where it is safe and pays: on a platform with ``fork``, in a
process without other threads (a language server must not fork mid-request), with more
than one usable CPU and enough items to outweigh the cost of a fork. Whatever a helper
does not deliver (it failed, was killed, or met an error in an item) is done again in the
calling process, so an error surfaces exactly as it would without forking.
"""

from __future__ import annotations

import marshal
import os
import sys

from skillkit_core.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any, TypeVar

    Item = TypeVar("Item")
    Result = TypeVar("Result")

    Work = Callable[[Any, int], Any]
    """What a helper does with one item: ``work(payload, index)`` returns the plain result
    for item ``index`` of the job whose ``payload`` the caller sent."""

# Fewer items than this are checked in one process: a fork and the transfer of results
# cost more than checking a handful of folders.
MIN_ITEMS = 32
# Each process gets at least this many items.
MIN_SHARE = 16
# Helpers started before the work is known: more would each import everything again,
# which a few hundred folders do not repay.
MAX_EARLY_HELPERS = 3
# About this many tickets per process: small chunks even out the ends of the shares.
TICKETS_PER_PROCESS = 64
_TICKET_BYTES = 2
# Every ticket must fit in the pipe before anyone reads: a pipe holds at least a page.
_MAX_TICKETS = 4096 // _TICKET_BYTES
_NOT_DONE = object()
# Helpers done with their work but not yet exited when last looked at (freeing a helper's
# memory takes it about a millisecond, which the caller need not wait for): reaped when
# helpers are next started, or by init once the caller exits.
_exiting: list[int] = []


def worker_count(items: int) -> int:
    """How many processes should share ``items`` items here (1: do not fork)."""
    if items < MIN_ITEMS or not can_fork():
        return 1
    return max(1, min(usable_cpus(), items // MIN_SHARE))


def can_fork() -> bool:
    """True when this process may fork helpers: the platform has ``fork`` and no other
    thread is running (a fork copies only the calling thread, and any lock another
    thread holds stays locked in the child)."""
    if not hasattr(os, "fork"):
        return False
    threading = sys.modules.get("threading")
    return threading is None or threading.active_count() <= 1


def usable_cpus() -> int:
    """CPUs this process may run on (its affinity mask where the platform has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


class Codec(NamedTuple):
    """How a result crosses the pipe: ``encode`` makes it plain data for ``marshal``
    (tuples, lists, dicts, strings, numbers, ``None``); ``decode`` rebuilds it from that
    data and the item it belongs to."""

    encode: Callable[[Any], Any]
    decode: Callable[[Any, Any], Any]


def _as_is(result: Any) -> Any:
    return result


def _decoded_as_is(item: Any, plain: Any) -> Any:
    return plain


PLAIN = Codec(_as_is, _decoded_as_is)
"""For results that are plain data already."""


def map_forked(
    function: Callable[[Item], Result],
    items: Sequence[Item],
    workers: int,
    codec: Codec = PLAIN,
) -> list[Result]:
    """``[function(item) for item in items]``, computed by ``workers`` processes.

    The helpers are forked now, so they hold ``items`` and ``function`` already; only
    tickets and results cross the pipes. Falls back to a plain loop when forking is
    unavailable or fails.
    """
    if workers <= 1 or len(items) < 2 or not hasattr(os, "fork"):
        return [function(item) for item in items]

    def load() -> Work:
        return lambda _payload, index: codec.encode(function(items[index]))

    helpers = Helpers.start(load, workers - 1)
    return helpers.share(
        len(items),
        None,
        lambda index: function(items[index]),
        lambda index, plain: codec.decode(items[index], plain),
    )


class _Helper(NamedTuple):
    pid: int
    job_fd: int  # the caller writes the job here, then closes it
    result_fd: int  # the helper writes its results here when the tickets run out


class Helpers:
    """Forked processes that wait for one job and share it with the caller.

    Start them with :meth:`start`; then either :meth:`share` a job (once) or
    :meth:`dismiss` them. A pool may hold no helper at all (the platform cannot fork, or
    forking failed): :meth:`share` then does the whole job in the calling process.
    """

    def __init__(self, helpers: list[_Helper], tickets: tuple[int, int] | None) -> None:
        self._helpers = helpers
        self._tickets = tickets

    @classmethod
    def start(cls, load: Callable[[], Work], count: int) -> Helpers:
        """Fork up to ``count`` helpers; each calls ``load`` at once to get its work
        function, then waits for a job."""
        _reap_exited()
        if count < 1 or not can_fork():
            return cls([], None)
        try:
            tickets = os.pipe()
        except OSError:
            return cls([], None)
        # Output buffered now would otherwise be written again by each helper.
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
        helpers: list[_Helper] = []
        for _ in range(count):
            helper = _fork_helper(load, tickets, helpers)
            if helper is None:
                break
            helpers.append(helper)
        return cls(helpers, tickets)

    def share(
        self,
        count: int,
        payload: Any,
        run_here: Callable[[int], Result],
        decode: Callable[[int, Any], Result],
    ) -> list[Result]:
        """The results for items ``0 .. count - 1``, in order.

        Helpers receive ``payload`` (plain data) and compute their items with their work
        function; the caller computes its own with ``run_here(index)`` and rebuilds the
        helpers' results with ``decode(index, plain)``.
        """
        if not self._helpers or self._tickets is None:
            return [run_here(index) for index in range(count)]
        results: list[Any] = [_NOT_DONE] * count
        size = max(1, -(-count // (TICKETS_PER_PROCESS * (len(self._helpers) + 1))))
        size = max(size, -(-count // _MAX_TICKETS))
        tickets_read, tickets_write = self._tickets
        job = marshal.dumps((payload, size, count))
        helpers = []
        for helper in self._helpers:
            if _send(helper.job_fd, job):
                helpers.append(helper)
            else:  # it is gone already
                os.close(helper.result_fd)
                _reap(helper.pid, 0)
        tickets = -(-count // size)
        _send(tickets_write, b"".join(_ticket(k) for k in range(tickets)))
        self._helpers, self._tickets = [], None
        taken_here = 0
        try:
            while (ticket := _take(tickets_read)) is not None:
                taken_here += 1
                for index in range(ticket * size, min(count, (ticket + 1) * size)):
                    results[index] = run_here(index)
        except BaseException:
            _stop(helpers)
            raise
        finally:
            os.close(tickets_read)
        if taken_here == tickets:
            # Every item is done here (quick ones: results read from a cache) while the
            # helpers were still loading: none holds a ticket, none is waited for.
            _stop(helpers)
            return results
        for helper in helpers:
            for ticket, values in _collect(helper):
                start = ticket * size
                for index, plain in enumerate(values, start):
                    if index < count:
                        results[index] = decode(index, plain)
        for index, result in enumerate(results):
            if result is _NOT_DONE:
                results[index] = run_here(index)
        return results

    def dismiss(self) -> None:
        """Send the helpers away without work (each exits as soon as it sees that)."""
        for helper in self._helpers:
            os.close(helper.job_fd)
            os.close(helper.result_fd)
        if self._tickets is not None:
            for fd in self._tickets:
                os.close(fd)
        for helper in self._helpers:
            _reap(helper.pid, os.WNOHANG)
        self._helpers, self._tickets = [], None


def _fork_helper(
    load: Callable[[], Work], tickets: tuple[int, int], siblings: list[_Helper]
) -> _Helper | None:
    try:
        job_read, job_write = os.pipe()
    except OSError:
        return None
    try:
        result_read, result_write = os.pipe()
    except OSError:
        os.close(job_read)
        os.close(job_write)
        return None
    try:
        pid = os.fork()
    except OSError:
        for fd in (job_read, job_write, result_read, result_write):
            os.close(fd)
        return None
    if pid == 0:  # pragma: no cover - runs in the helper, which never returns
        # The caller's ends, its own and its siblings': a helper must see the end of its
        # job pipe and of the ticket pipe when the caller closes them.
        for fd in (job_write, result_read, tickets[1]):
            os.close(fd)
        for sibling in siblings:
            os.close(sibling.job_fd)
            os.close(sibling.result_fd)
        _serve(load, job_read, tickets[0], result_write)
    os.close(job_read)
    os.close(result_write)
    return _Helper(pid, job_write, result_read)


def _serve(
    load: Callable[[], Work], job_fd: int, tickets_fd: int, result_fd: int
) -> None:  # pragma: no cover - runs in a forked helper
    # The helper holds no output of its own: a dismissed helper that still holds the
    # caller's stdout would keep the caller's reader waiting after the caller exits.
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (1, 2):
        os.dup2(devnull, fd)
    status = 1
    done: list[tuple[int, list[Any]]] = []
    try:
        work = load()
        job = _read_all(job_fd)
        if job:
            payload, size, count = marshal.loads(job)
            while (ticket := _take(tickets_fd)) is not None:
                indexes = range(ticket * size, min(count, (ticket + 1) * size))
                try:
                    done.append((ticket, [work(payload, index) for index in indexes]))
                except Exception:
                    break  # the caller redoes this chunk and meets the error itself
            _send(result_fd, marshal.dumps(done))
        status = 0
    finally:
        # ``os._exit`` skips the caller's exit handlers and buffered output, which are
        # not the helper's.
        os._exit(status)


def _ticket(number: int) -> bytes:
    return number.to_bytes(_TICKET_BYTES, "little")


def _take(tickets_fd: int) -> int | None:
    """The next ticket, or ``None`` when none is left. Every ticket was written at once
    and every reader takes exactly one, so a read never splits a ticket."""
    data = os.read(tickets_fd, _TICKET_BYTES)
    if len(data) != _TICKET_BYTES:
        return None
    return int.from_bytes(data, "little")


def _send(fd: int, data: bytes) -> bool:
    """Write ``data`` to the pipe ``fd`` and close it; False if the reader is gone."""
    view = memoryview(data)
    try:
        while view:
            view = view[os.write(fd, view) :]
    except OSError:
        return False
    finally:
        os.close(fd)
    return True


def _read_all(fd: int) -> bytes:
    with os.fdopen(fd, "rb") as pipe:
        return pipe.read()


def _collect(helper: _Helper) -> list[tuple[int, list[Any]]]:
    """A helper's finished chunks (``[]`` when it delivered nothing readable)."""
    try:
        data = _read_all(helper.result_fd)
    except OSError:
        data = b""
    _reap(helper.pid, os.WNOHANG)  # its results are in: its exit need not be waited for
    try:
        chunks = marshal.loads(data) if data else []
    except (EOFError, ValueError, TypeError):
        return []
    if not isinstance(chunks, list):
        return []
    return [
        chunk
        for chunk in chunks
        if isinstance(chunk, tuple)
        and len(chunk) == 2
        and isinstance(chunk[0], int)
        and isinstance(chunk[1], list)
    ]


def _stop(helpers: list[_Helper]) -> None:
    """Stop helpers whose work is no longer wanted (the caller met an error)."""
    import contextlib
    import signal

    for helper in helpers:
        with contextlib.suppress(OSError):
            os.kill(helper.pid, signal.SIGKILL)
        os.close(helper.result_fd)
        _reap(helper.pid, 0)


def _reap(pid: int, options: int) -> None:
    try:
        reaped, _ = os.waitpid(pid, options)
    except ChildProcessError:
        return  # reaped already
    if reaped == 0:  # not exited yet (os.WNOHANG)
        _exiting.append(pid)


def _reap_exited() -> None:
    """Reap the helpers that had not exited when last looked at, as far as they have."""
    for pid in list(_exiting):
        try:
            reaped, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            reaped = pid
        if reaped:
            _exiting.remove(pid)
