"""What the author's code prints reaches the client's log, up to a limit per analysis.

The worker's stdout and stderr both come to the server as its stderr, one line each a
``window/logMessage``; a module that prints 20 MB at import sent 60,005 of them. Each
request to the worker (an analysis, a render, a simulation) may log at most
`MAX_LINES` lines and `MAX_CHARS` characters, each line cut at `MAX_LINE_CHARS`; past
that one note says the rest is not shown, and the rest is dropped.
"""

from __future__ import annotations

from collections.abc import Callable

MAX_LINES = 100
MAX_CHARS = 20_000
MAX_LINE_CHARS = 1_000


class OutputLimit:
    """Counts the worker's output lines of the current request and forwards the first."""

    def __init__(
        self,
        log: Callable[[str], None],
        *,
        lines: int = MAX_LINES,
        chars: int = MAX_CHARS,
        line_chars: int = MAX_LINE_CHARS,
    ) -> None:
        self._log = log
        self.max_lines = lines
        self.max_chars = chars
        self.line_chars = line_chars
        self.lines = 0
        self.chars = 0
        self.dropped = 0

    def start(self) -> None:
        """A new request begins: its output gets the whole allowance again."""
        self.lines = self.chars = self.dropped = 0

    def forward(self, prefix: str, text: str) -> None:
        """Log ``prefix`` + ``text`` if the allowance is not used up (else count it)."""
        if self.lines >= self.max_lines or self.chars >= self.max_chars:
            self.dropped += 1
            if self.dropped == 1:
                self._log(
                    f"{prefix}(further output of this analysis is not shown: it printed more "
                    f"than {self.max_lines} lines or {self.max_chars} characters)"
                )
            return
        if len(text) > self.line_chars:
            cut = len(text) - self.line_chars
            text = f"{text[: self.line_chars]}… ({cut} more characters)"
        self.lines += 1
        self.chars += len(text)
        self._log(prefix + text)
