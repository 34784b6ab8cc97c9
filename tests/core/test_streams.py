"""``skillkit_core.streams.quiet_stderr``: a stderr that drops what it cannot write, and
is otherwise the stream it replaces (encoding, errors, buffering)."""

from __future__ import annotations

import io
import os

import pytest

from skillkit_core.streams import quiet_stderr


def _stream_on(fd: int, *, buffered: bool) -> io.TextIOWrapper:
    raw = io.FileIO(fd, "w", closefd=False)
    return io.TextIOWrapper(
        io.BufferedWriter(raw) if buffered else raw,
        encoding="utf-8",
        errors="backslashreplace",
        line_buffering=True,
        write_through=not buffered,
    )


@pytest.mark.parametrize("buffered", [True, False], ids=["line-buffered", "unbuffered"])
def test_it_buffers_as_the_stream_it_replaces(buffered: bool) -> None:
    read, write = os.pipe()
    try:
        quiet = quiet_stderr(_stream_on(write, buffered=buffered))
        quiet.write("part-")  # no newline: only an unbuffered stream has written it
        os.write(write, b"raw\n")
        quiet.write("rest \udcff\n")
        os.close(write)
        written = os.read(read, 1000)
    finally:
        os.close(read)
    first = b"raw\npart-rest \\udcff\n" if buffered else b"part-raw\nrest \\udcff\n"
    assert written == first


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_what_cannot_be_written_is_dropped() -> None:
    fd = os.open("/dev/full", os.O_WRONLY)
    try:
        quiet = quiet_stderr(_stream_on(fd, buffered=True))
        assert quiet.write("a warning\n") == len("a warning\n")
        quiet.flush()
        print("an author's print", file=quiet)
    finally:
        os.close(fd)


def test_a_stream_without_a_descriptor_is_kept() -> None:
    stream = io.StringIO()
    assert quiet_stderr(stream) is stream
