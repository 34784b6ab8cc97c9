"""Cache files in ``marshal`` form, sealed with a checksum of their content.

``marshal`` is fast, but it trusts its input: a few wrong bytes can make it build a
different value without complaint (a number shared by many entries, changed once,
changes them all) or allocate gigabytes for a list that a damaged length announces. So
every cache file skillkit writes in this form (compiled patterns, ``check``'s results, a
built skill's generated code) carries a CRC-32 of its content after its header, checked
before ``marshal`` reads a byte of it: a damaged file is ignored, as a missing one is.

This guards against damage, not against someone who may write the file: the caches are
read only from folders and files of the user's own (see each cache), and such a person
could change skillkit itself.
"""

from __future__ import annotations

import marshal
import os
from binascii import crc32

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_CHECK_BYTES = 4


def seal(header: bytes, value: Any) -> bytes:
    """``header``, the checksum of ``value`` in ``marshal`` form, then that form."""
    data = marshal.dumps(value)
    return header + crc32(data).to_bytes(_CHECK_BYTES, "little") + data


def unseal(header: bytes, sealed: bytes | None) -> Any:
    """The value :func:`seal` sealed with ``header``; ``None`` when ``sealed`` is missing,
    has another header, does not match its checksum, or cannot be read."""
    start = len(header) + _CHECK_BYTES
    if not sealed or len(sealed) < start or not sealed.startswith(header):
        return None
    data = memoryview(sealed)[start:]
    if crc32(data) != int.from_bytes(sealed[len(header) : start], "little"):
        return None
    try:
        return marshal.loads(data)
    except (EOFError, ValueError, TypeError, MemoryError):
        return None


def write_sealed(path: str, header: bytes, value: Any) -> bool:
    """Replace the file ``path`` by ``value`` sealed with ``header``, atomically (written
    beside it, then renamed: a reader sees the old file or the new one, and of two
    processes writing at once the last one wins). False when it cannot be written (a
    read-only folder, a full disk, a folder in the file's place, a value ``marshal``
    cannot write); no temporary file is left then."""
    temporary = f"{path}.{os.getpid()}.tmp"
    try:
        data = seal(header, value)
        with os.fdopen(_create(temporary), "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    except (OSError, ValueError):
        import contextlib  # only here: a built skill's every call imports this module

        with contextlib.suppress(OSError):
            os.remove(temporary)
        return False
    return True


def _create(path: str) -> int:
    """A new file at ``path``, this user's alone, opened for writing: never an existing
    one, and never through a symbolic link (whatever a link there names would be
    overwritten). One left by a process that died with this process id is replaced."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    # O_BINARY: Windows would write each \n of the data as \r\n (the checksum then fails).
    flags |= getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    try:
        return os.open(path, flags, 0o600)
    except FileExistsError:
        os.remove(path)  # a link itself, never what it names
        return os.open(path, flags, 0o600)


LOCK_WAIT = 0.5
"""Seconds a process waits for its turn before it updates without one: a stopped
process holding the lock must not hold up a check or the language server."""


def update_turn(folder: str) -> _Turn:
    """A context in which this process alone (among those that ask) reads, merges and
    writes cache files in ``folder``, so that of two saves at once neither loses the
    other's entries. The lock is on the folder itself (no file is added to it). Best
    effort: where it cannot be had (no ``fcntl``, :data:`LOCK_WAIT` passed) the update
    goes on without it."""
    return _Turn(folder)


class _Turn:
    def __init__(self, path: str) -> None:
        self.path = path
        self.fd: int | None = None

    def __enter__(self) -> bool:
        try:
            import fcntl
        except ImportError:  # not POSIX
            return False
        flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
        try:
            self.fd = os.open(self.path, flags)
        except OSError:
            return False
        import time

        deadline = time.monotonic() + LOCK_WAIT
        while True:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    return False
                time.sleep(0.005)
                continue
            except OSError:
                return False
            return True

    def __exit__(self, *_exc: object) -> None:
        if self.fd is not None:
            os.close(self.fd)  # releases the lock
            self.fd = None
