"""The server's stdin, read so that a malformed frame header does not cost every later one.

pygls reads a header line as a frame's length only when it is exactly ``Content-Length:
N\\r\\n``. After anything else (``Content-Length: abc``, a lowercase name, headers ending
in a bare ``\\n``, a length one byte off), the body that follows is not consumed as a body,
so it runs into the next frame's header line, which then never matches again: every later
request went unanswered while the server lived on. Here a header line is recognised
wherever the length header ends it, in any case and with either line end, and handed to
pygls in the form it expects: the stream finds its frames again at the next message. The
malformed frame itself is lost, and with a length too long also the message after it,
whose header the body read took the start of.
"""

from __future__ import annotations

import re
from typing import BinaryIO

_LENGTH = re.compile(rb"content-length:[ \t]*(\d+)[ \t]*\r?\n\Z", re.IGNORECASE)


class ResyncingReader:
    """A binary stdin for pygls's reader: ``readline`` normalises frame headers (see the
    module), ``read`` passes through and keeps what it read (:attr:`last_body`)."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self.last_body = b""
        """The body read last: the message pygls could not parse, when it reports one."""

    def readline(self) -> bytes:
        line = self._stream.readline()
        match = _LENGTH.search(line)
        if match:
            return b"Content-Length: %d\r\n" % int(match.group(1))
        return line

    def read(self, size: int = -1) -> bytes:
        self.last_body = self._stream.read(size)  # pygls reads a whole body at once
        return self.last_body
