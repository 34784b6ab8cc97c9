"""``python -m skill_lsp.worker``: answer analysis requests, one JSON line each way.

The author's module may print, read stdin or call ``sys.exit``; none of that may touch
the channel. So the real stdin and stdout are duplicated to private descriptors first,
fd 0 is pointed at /dev/null and fd 1 at stderr, and every request is answered inside a
``BaseException`` guard.

Processes the author's code starts do not outlive the request: the worker adopts the
orphans of its subtree (a subreaper, on Linux) and kills every descendant, setsid'd and
double-forked ones included, before it answers.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import traceback
from typing import Any, BinaryIO

from skill_lsp.worker import protocol


def _private_channel() -> tuple[BinaryIO, BinaryIO]:
    reader = os.fdopen(os.dup(0), "rb", buffering=0)
    writer = os.fdopen(os.dup(1), "wb")  # buffered: a raw write may be partial
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return reader, writer


def _read_line(reader: BinaryIO) -> bytes:
    chunks = []
    while True:
        byte_run = reader.readline()
        if not byte_run:
            return b"".join(chunks)
        chunks.append(byte_run)
        if byte_run.endswith(b"\n"):
            return b"".join(chunks)


def _send(writer: BinaryIO, data: bytes) -> None:
    writer.write(data)
    writer.flush()


def _answer(request: dict[str, Any]) -> dict[str, Any]:
    from skill_lsp.worker.analysis import handle

    ident = request.get("id")
    try:
        return {"id": ident, "ok": True, "result": handle(request)}
    except BaseException as error:  # the author's code may raise anything, even SystemExit
        # or KeyboardInterrupt (the worker runs in a session of its own: no terminal's ^C)
        detail = "".join(traceback.format_exception_only(type(error), error)).strip()
        return {"id": ident, "ok": False, "error": detail}


#: Threads the author's code may leave running (each analysis imports the module again,
#: and a module that starts a thread at import adds one every time) before the worker
#: ends after its answer, with them, and the next request starts a fresh one.
MAX_LEFT_THREADS = 16


def _resident_mib() -> float:
    """This process's resident memory now (Linux), else its peak so far."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            pages = int(statm.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / (1 << 20)
    except (OSError, ValueError, IndexError):
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak / (1 << 20) if sys.platform == "darwin" else peak / 1024  # bytes : KiB


def _over_memory_limit(request: dict[str, Any]) -> bool:
    """Whether the worker holds more memory than the request allows: the modules it keeps
    loaded (the last few texts) and what their imports allocated stay with it, and a
    module that allocates a gigabyte at import holds several after a few edits."""
    limit = request.get(protocol.MEMORY_LIMIT)
    if isinstance(limit, bool) or not isinstance(limit, int) or limit <= 0:
        return False
    used = _resident_mib()
    if used <= limit:
        return False
    print(
        f"the analysis worker uses {used:.0f} MiB, more than worker.memoryLimit "
        f"({limit} MiB): a fresh worker takes the next request",
        file=sys.stderr,
    )
    return True


def _end_descendants() -> None:
    """Kill whatever the request's author code started, and reap it."""
    from skillkit_core.process_tree import kill_descendants, reap_orphans

    try:
        kill_descendants()
        reap_orphans()
    except Exception as error:  # the answer matters more than the report of a cleanup
        print(f"could not stop the module's processes: {error!r}", file=sys.stderr)


def main() -> None:
    """Serve requests until stdin closes."""
    from skillkit_core.process_tree import become_subreaper

    become_subreaper()
    reader, writer = _private_channel()
    # Background work: the editor and the server's per-keystroke path come first.
    if hasattr(os, "nice"):
        with contextlib.suppress(OSError):
            os.nice(5)
    from skillkit_core.lint.result_cache import open_patterns

    # The regular expressions earlier workers compiled. Kept although the worker runs
    # with PYTHONDONTWRITEBYTECODE (no __pycache__ beside the author's modules): their
    # file is in skillkit's own cache folder.
    patterns = open_patterns(write=True)
    from skill_lsp.worker import analysis

    analysis.warm_up()
    own_threads = threading.active_count()
    _send(writer, protocol.encode({"ready": True, "pid": os.getpid()}))
    while True:
        line = _read_line(reader)
        if not line:
            break
        if not line.strip():
            continue
        try:
            request = protocol.decode(line)
        except ValueError as error:
            request = {}
            answer: dict[str, Any] = {"id": None, "ok": False, "error": f"bad request: {error}"}
        else:
            answer = _answer(request)
            _end_descendants()
        ending = threading.active_count() - own_threads > MAX_LEFT_THREADS
        ending = _over_memory_limit(request) or ending
        if ending:
            answer["ending"] = True  # the manager starts a fresh worker for the next one
        _send(writer, protocol.encode(answer))
        if patterns is not None:
            patterns.save()  # what loading and answering compiled (nothing, mostly)
        if ending:
            break
    # Threads the author's code started must not keep the process alive.
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
