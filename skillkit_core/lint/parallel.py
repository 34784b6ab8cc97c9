"""Checking many targets in forked processes: the same results as a loop, sooner.

``skillkit check`` on a few hundred SKILL.md folders spends most of its time in per-folder
Python work that one process runs on one CPU. :func:`map_forked` splits such a list
across ``os.fork`` children (each inherits the imported modules and checks its share) and
the calling process, and returns the results in the order of the items, exactly as a
loop would. Results travel back through a pipe in ``marshal`` form (built into the
interpreter: nothing to import, and faster than pickle for plain data), so a child's
results must be made of built-in types: :class:`Codec` turns them into such values and
back when they are not.

Forking is only used where it is safe and pays: on a platform with ``fork``, in a
process without other threads (a language server must not fork mid-request), with more
than one usable CPU and enough items to outweigh the cost of a fork. A child that fails
in any way (an exception, a signal, a short pipe) has its share done again in the
calling process, so an error surfaces exactly as it would without forking.
"""

from __future__ import annotations

import marshal
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, Generic, NamedTuple, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")

# Fewer items than this are checked in one process: a fork and the transfer of results
# cost more than checking a handful of folders.
MIN_ITEMS = 32
# Each process gets at least this many items.
MIN_SHARE = 16


def worker_count(items: int) -> int:
    """How many processes should share ``items`` items here (1: do not fork)."""
    if items < MIN_ITEMS or not hasattr(os, "fork") or _has_threads():
        return 1
    return max(1, min(usable_cpus(), items // MIN_SHARE))


def usable_cpus() -> int:
    """CPUs this process may run on (its affinity mask where the platform has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _has_threads() -> bool:
    threading = sys.modules.get("threading")
    return threading is not None and threading.active_count() > 1


class Codec(NamedTuple, Generic[Item, Result]):
    """How a result crosses the pipe: ``encode`` makes it plain data for ``marshal``
    (tuples, lists, dicts, strings, numbers, ``None``); ``decode`` rebuilds it from that
    data and the item it belongs to."""

    encode: Callable[[Result], Any]
    decode: Callable[[Item, Any], Result]


def _as_is(result: Any) -> Any:
    return result


def _decoded_as_is(item: Any, plain: Any) -> Any:
    return plain


PLAIN: Codec[Any, Any] = Codec(_as_is, _decoded_as_is)
"""For results that are plain data already."""


def map_forked(
    function: Callable[[Item], Result],
    items: Sequence[Item],
    workers: int,
    codec: Codec[Item, Result] = PLAIN,
) -> list[Result]:
    """``[function(item) for item in items]``, computed by ``workers`` processes.

    Items are dealt round-robin (neighbouring folders often cost alike); the calling
    process takes the first share itself. The children's results cross the pipe through
    ``codec``. Falls back to a plain loop when forking is unavailable or fails.
    """
    if workers <= 1 or len(items) < 2 or not hasattr(os, "fork"):
        return [function(item) for item in items]
    shares = [range(start, len(items), workers) for start in range(workers)]
    children = _start_children(function, items, shares[1:], codec.encode)
    results: list[Result | None] = [None] * len(items)
    try:
        for share in shares[: len(shares) - len(children)]:
            for index in share:
                results[index] = function(items[index])
    finally:
        done = [(share, _collect(pid, read_fd)) for pid, read_fd, share in children]
    for share, values in done:
        if values is None or len(values) != len(share):
            for index in share:
                results[index] = function(items[index])
            continue
        for index, value in zip(share, values, strict=True):
            results[index] = codec.decode(items[index], value)
    return results  # type: ignore[return-value]


def _start_children(
    function: Callable[[Item], Result],
    items: Sequence[Item],
    shares: list[range],
    encode: Callable[[Result], Any],
) -> list[tuple[int, int, range]]:
    """Fork one child per share, from the last share down; a share whose fork fails is
    left to the caller (the shares without a child are the first ones)."""
    children: list[tuple[int, int, range]] = []
    # Output buffered now would otherwise be written again by each child.
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            stream.flush()
    for share in reversed(shares):
        try:
            read_fd, write_fd = os.pipe()
        except OSError:
            break
        try:
            pid = os.fork()
        except OSError:
            os.close(read_fd)
            os.close(write_fd)
            break
        if pid == 0:  # pragma: no cover - runs in the child, which never returns
            os.close(read_fd)
            _child(function, items, share, encode, write_fd)
        os.close(write_fd)
        children.append((pid, read_fd, share))
    children.reverse()
    return children


def _child(
    function: Callable[[Item], Result],
    items: Sequence[Item],
    share: range,
    encode: Callable[[Result], Any],
    write_fd: int,
) -> None:  # pragma: no cover - runs in a forked child
    # Any failure (a result marshal cannot write included) leaves ``status`` at 1 and the
    # parent redoes the share; ``os._exit`` skips the parent's exit handlers and buffered
    # output, which are not the child's.
    status = 1
    try:
        data = marshal.dumps([encode(function(items[index])) for index in share])
        with os.fdopen(write_fd, "wb") as pipe:
            pipe.write(data)
        status = 0
    finally:
        os._exit(status)


def _collect(pid: int, read_fd: int) -> list | None:
    """A child's results (still encoded), or ``None`` when it did not finish cleanly."""
    try:
        with os.fdopen(read_fd, "rb") as pipe:
            data = pipe.read()
    except OSError:
        data = b""
    try:
        _, status = os.waitpid(pid, 0)
    except ChildProcessError:
        return None
    if status != 0 or not data:
        return None
    # Exit status 0 means the child wrote all its data before closing the pipe.
    values = marshal.loads(data)
    return values if isinstance(values, list) else None
