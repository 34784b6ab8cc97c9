"""What the command-line faces do when an output stream cannot be written.

A full disk or an I/O error on stdout is the user's to know about (a clear line on
stderr and a failing exit code), never a traceback; what the stream still buffers must
then not fail again, with another traceback, when the interpreter flushes it at exit.
"""

from __future__ import annotations

import contextlib
import io  # loaded at every interpreter's start (its standard streams are io's)
import os
import sys

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


# -- the protocol's stdout ----------------------------------------------------------------

_protocol_stdout: TextIO | None = None
_original_stdout: Any = None


def claim_stdout() -> TextIO:
    """Keep this process's stdout for its results; send every other write to stderr.

    Author code (a module printing at import, a prompt function, an action or ``save``
    calling ``print()``, a child process it starts) must never add a line to what the
    agent (or a ``preview --format json`` reader) parses. The real stdout is moved to a
    private descriptor and returned as the results' stream; descriptor 1 and
    ``sys.stdout`` then both lead to stderr. Called once by the process entry points (the
    built ``scripts/run``, ``skillkit run``, the CLI commands that run a skill's code)
    before any author code runs; later calls return the same stream.
    """
    global _protocol_stdout, _original_stdout
    if _protocol_stdout is None:
        # A standard descriptor the process was started without would be the number the
        # next file opened gets (a session file, the copy of stdout below), and what the
        # author's code writes to 1 or 2 would land there: they lead to the null device.
        _fill_closed_standard_descriptors()
        try:
            out_fd = sys.stdout.fileno()
        except (AttributeError, ValueError, OSError):
            return utf8(sys.stdout)  # no stdout (closed) or no descriptor (embedded)
        sys.stdout.flush()
        _protocol_stdout = open(os.dup(out_fd), "w", encoding="utf-8", closefd=True)  # noqa: SIM115
        _original_stdout = sys.stdout
        # Author output goes to stderr (the null device when the process had none).
        os.dup2(2, out_fd)
        if sys.stderr is not None:
            with contextlib.suppress(OSError, ValueError):
                sys.stderr.flush()
            sys.stdout = sys.stderr = quiet_stderr(sys.stderr)
    return _protocol_stdout


def _fill_closed_standard_descriptors() -> None:
    for fd, mode in ((0, os.O_RDONLY), (1, os.O_WRONLY), (2, os.O_WRONLY)):
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(os.devnull, mode)  # the lowest free number: ``fd`` itself
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
            os.set_inheritable(fd, True)  # children get it as they would the stream


def release_stdout() -> None:
    """Undo :func:`claim_stdout` (the MCP SDK's stdio transport claims descriptor 1 the
    same way itself while it serves, and needs it pointing at the real stdout to do so)."""
    global _original_stdout
    if _protocol_stdout is None or _original_stdout is None:
        return  # never claimed, or released already
    _protocol_stdout.flush()
    os.dup2(_protocol_stdout.fileno(), _original_stdout.fileno())
    sys.stdout, _original_stdout = _original_stdout, None
    # What author code prints while the transport serves then reaches stderr line by line
    # (block buffering would hold it until exit, which a client's kill never gives).
    with contextlib.suppress(AttributeError, ValueError):
        sys.stdout.reconfigure(line_buffering=True)


def utf8(stream: Any) -> TextIO:
    """The stream, switched to UTF-8 when it can be (JSON keeps non-ASCII as is)."""
    return _unless_utf8(stream, encoding="utf-8")


def readable(stream: Any) -> TextIO:
    """The stream, writing what its encoding cannot take as ``\\uNNNN``-style escapes
    (text for people on a console that is not UTF-8, a Windows code page say) instead of
    failing with UnicodeEncodeError in the middle of a report."""
    return _unless_utf8(stream, errors="backslashreplace")


def _unless_utf8(stream: Any, **changes: str) -> TextIO:
    """``stream`` reconfigured with ``changes`` when it does not write UTF-8 already."""
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is not None and (stream.encoding or "").lower() not in ("utf-8", "utf8"):
        with contextlib.suppress(ValueError, OSError):
            reconfigure(**changes)
    return stream
