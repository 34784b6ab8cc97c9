"""Messages to the client's log (``window/logMessage``), and Python logging routed there."""

from __future__ import annotations

import logging
from typing import Any

from lsprotocol import types

_LEVELS = {
    logging.ERROR: types.MessageType.Error,
    logging.WARNING: types.MessageType.Warning,
    logging.INFO: types.MessageType.Info,
}


def log_message(server: Any, message: str, kind: types.MessageType = types.MessageType.Log) -> None:
    """Send one line to the client's log; silently dropped before the connection is up.
    Control characters (an author's module can print ESC sequences) are escaped."""
    from skillkit_core.safe_text import escape_controls

    message = escape_controls(message)
    try:
        server.window_log_message(types.LogMessageParams(type=kind, message=message))
    except Exception:  # no writer yet, or the client went away: nothing to tell
        logging.getLogger(__name__).debug("log message dropped: %s", message)


class ClientLogHandler(logging.Handler):
    """Forwards records of skillkit's own loggers to the client's log."""

    def __init__(self, server: Any) -> None:
        super().__init__(level=logging.WARNING)
        self.server = server
        self._busy = False

    def emit(self, record: logging.LogRecord) -> None:
        if self._busy:  # a failure while sending must not log about itself forever
            return
        self._busy = True
        try:
            kind = _LEVELS.get(record.levelno, types.MessageType.Log)
            log_message(self.server, self.format(record), kind)
        finally:
            self._busy = False


def route_logging(server: Any) -> ClientLogHandler:
    """Attach a :class:`ClientLogHandler` to the skillkit loggers (once)."""
    handler = ClientLogHandler(server)
    handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
    for name in ("skill_lsp", "skillkit_core"):
        logger = logging.getLogger(name)
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
    return handler
