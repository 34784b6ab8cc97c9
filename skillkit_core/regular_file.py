"""Reading one regular file without ever waiting: a FIFO or device put where a file was
expected is refused, not opened for reading until a writer comes.

A module of its own (standard library only) because a built skill's start-up reads with
it too (:mod:`skillkit_core.pattern_cache`), and must not bring the linter's packages
into the bundle.
"""

from __future__ import annotations

import errno
import os
import stat

_NOT_THERE = (errno.ENOENT, errno.ENOTDIR, errno.EISDIR)
# Non-blocking: opening a FIFO named SKILL.md must not wait for a writer (it is then
# refused as no regular file); reads of regular files are not affected.
_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


def read_regular_file(
    path: str, limit: int, *, own: bool = False, follow: bool = True
) -> bytes | None:
    """Up to ``limit`` bytes of the regular file at ``path``; ``None`` when there is none
    there (no such file, or a folder, FIFO or device), or with ``own`` when another user
    owns it. Other errors are raised, with ``path`` as the error's ``filename``; without
    ``follow``, a symbolic link at ``path`` raises ``ELOOP`` (``EMLINK`` on FreeBSD; its
    folders are followed)."""
    flags = _OPEN_FLAGS if follow else _OPEN_FLAGS | getattr(os, "O_NOFOLLOW", 0)
    if not follow and not hasattr(os, "O_NOFOLLOW") and os.path.islink(path):  # Windows
        raise OSError(errno.ELOOP, "a symbolic link", path)
    try:
        fd = os.open(path, flags)
    except OSError as error:
        if error.errno in _NOT_THERE:
            return None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None
        if own and hasattr(os, "getuid") and info.st_uid != os.getuid():
            return None
        return _read_at_most(fd, info.st_size, limit)
    except OSError as error:
        error.filename = path
        raise
    finally:
        os.close(fd)


def read_whole_file(path: str, limit: int) -> bytes | None:
    """The bytes of the regular file at ``path`` when it holds at most ``limit``; ``None``
    when it holds more, or there is none there (as :func:`read_regular_file`)."""
    data = read_regular_file(path, limit + 1)
    return None if data is None or len(data) > limit else data


def _read_at_most(fd: int, size: int, limit: int) -> bytes:
    """Up to ``limit`` bytes of the open file ``fd`` whose size was ``size``. Asks for one
    byte more than that size: a shorter read is the end of the file (``os.read(limit)``
    would allocate ``limit`` bytes up front, which costs more than reading a small file);
    a file that grew is read on to the limit."""
    want = min(size + 1, limit)
    data = os.read(fd, want)
    if len(data) < want or len(data) >= limit:
        return data
    chunks, total = [data], len(data)
    while total < limit:
        chunk = os.read(fd, min(limit - total, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return b"".join(chunks)
