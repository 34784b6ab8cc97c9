"""A watchdog for tests of pathological input: a scan that went quadratic again would
take minutes on these texts; the watchdog turns that into a failure instead of a hang.
The tests assert what the scan finds, not how long it takes (it takes milliseconds)."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

# Far above what a linear scan of a test's input needs even on a loaded machine, far
# below what a quadratic one needs.
WATCHDOG_SECONDS = 20


@contextmanager
def watchdog(seconds: int = WATCHDOG_SECONDS) -> Iterator[None]:
    """Fail the test when the block runs longer than ``seconds``."""

    def expire(signum: int, frame: object) -> None:
        pytest.fail(f"still scanning after {seconds} s: the scan is not linear")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
