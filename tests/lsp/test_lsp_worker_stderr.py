"""What the worker writes to stderr reaches the log line by line, a huge line cut short.

A module that prints one line of hundreds of megabytes (no newline) made the server
hold the whole line (its stderr was read with a 256 MiB line limit) before the log
showed its first thousand characters: the server grew by that much on every analysis.
"""

import asyncio
from types import SimpleNamespace

import pytest

from skill_lsp.worker.manager import STDERR_LINE_LIMIT, WorkerManager


@pytest.mark.asyncio
async def test_a_huge_line_is_cut_and_the_next_lines_still_come() -> None:
    logged: list[str] = []
    manager = WorkerManager(log=logged.append)
    stream = asyncio.StreamReader(limit=1 << 16)
    huge = b"x" * (STDERR_LINE_LIMIT * 50)
    stream.feed_data(b"first\n" + huge)
    forwarding = asyncio.ensure_future(
        manager._forward_stderr(SimpleNamespace(stderr=stream, pid=7))
    )
    for _ in range(100):  # the head is shown while the line goes on: it is not held
        await asyncio.sleep(0.01)
        if len(logged) == 2:
            break
    assert len(logged) == 2, logged
    stream.feed_data(b"-end of the huge line\nnext line\nlast")
    stream.feed_eof()
    await forwarding
    assert [line[:16] for line in logged] == [
        "[worker 7] first",
        "[worker 7] xxxxx",
        "[worker 7] next ",
        "[worker 7] last",
    ]
    assert "end of the huge line" not in "".join(logged)
