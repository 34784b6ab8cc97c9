"""What the command-line faces do when an output stream cannot be written.

A full disk or an I/O error on stdout is the user's to know about (a clear line on
stderr and a failing exit code), never a traceback; what the stream still buffers must
then not fail again, with another traceback, when the interpreter flushes it at exit.
"""

from __future__ import annotations

import contextlib
import io  # loaded at every interpreter's start (its standard streams are io's)
import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TextIO


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


def quiet_stderr(stream: TextIO) -> TextIO:
    """A text stream on ``stream``'s descriptor that drops what it cannot write (a full
    disk, an I/O error), for a process whose results go to stdout: a warning, a note or
    the author's ``print`` must never fail the call it comes from. ``stream`` itself
    when it has no descriptor."""
    try:
        fd = stream.fileno()
    except (AttributeError, ValueError, OSError):
        return stream
    raw = _DroppingFile(fd, "w", closefd=False)
    # Buffered as ``stream`` is: line by line, or not at all (``python -u``).
    buffered = isinstance(getattr(stream, "buffer", None), io.BufferedWriter)
    return io.TextIOWrapper(
        io.BufferedWriter(raw) if buffered else raw,
        encoding=getattr(stream, "encoding", None) or "utf-8",
        errors=getattr(stream, "errors", None) or "backslashreplace",
        line_buffering=True,
        write_through=not buffered,
    )


class _DroppingFile(io.FileIO):
    """A file whose failed writes count as done (see :func:`quiet_stderr`)."""

    def write(self, data: Any) -> int:
        try:
            return super().write(data)
        except OSError:  # a BrokenPipeError too: nobody reads stderr any more
            return len(data)
