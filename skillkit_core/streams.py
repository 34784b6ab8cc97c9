"""What the command-line faces do when an output stream cannot be written.

A full disk or an I/O error on stdout is the user's to know about (a clear line on
stderr and a failing exit code), never a traceback; what the stream still buffers must
then not fail again, with another traceback, when the interpreter flushes it at exit.
"""

from __future__ import annotations

import contextlib
import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO


def send_to_null(stream: TextIO | None) -> None:
    """Point ``stream``'s descriptor at the null device: what it still buffers is then
    written there (at exit, say) instead of failing again."""
    if stream is None:
        return
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)


def from_writing(error: OSError) -> bool:
    """Whether ``error`` is one that only writing gives: a full disk or quota, a file
    too large, an I/O error, a read-only file system (an error of the machine, not of
    skillkit)."""
    import errno

    names = ("ENOSPC", "EDQUOT", "EFBIG", "EIO", "EROFS")  # EDQUOT: not on Windows
    return error.errno in {getattr(errno, name) for name in names if hasattr(errno, name)}


def failed_on_stream(error: BaseException) -> bool:
    """Whether ``error`` is one that only writing gives, met on an open stream: it names
    no file, as opening one does. Escaping a command, that is its stdout failing (files
    the command writes are answered where they are written)."""
    return isinstance(error, OSError) and error.filename is None and from_writing(error)


def cannot_write(error: OSError) -> str:
    """The message for output that ``error`` stopped."""
    return f"the output could not be written: {error.strerror or error}"
