"""``preview``, ``simulate`` and ``graph`` with the skill's code kept out of the command's
process.

These commands import the skill's module and run its functions (prompts, conditions,
with ``--run-actions`` its actions). That is the author's code: it may hang, call
``os._exit``, read stdin, or start processes that outlive it. ``check`` and ``build`` run
it in a worker for that reason (:mod:`skillkit_core.lint.load_worker`,
:mod:`skillkit_core.build.isolated`); these commands do the same, with a fork instead of
a new interpreter, since their output is made by a function already loaded here:

- the command runs in a forked child under a keeper (:func:`~skillkit_core.process_tree.
  fork_kept`), in a session of its own, so nothing it starts survives it, and a
  terminal's Ctrl-C reaches this process, which then stops the whole tree;
- it gets the check's time limit (``SKILLKIT_CHECK_TIMEOUT`` seconds, default 10): the
  whole command for ``preview`` and ``graph``, the loading of the skill's module for
  ``simulate`` (whose exploration of paths, and actions run for real, may take longer);
  at the limit the child dumps its stack and the error names the line of the skill it
  was running;
- its stdin is the null device, and its answer comes back as one JSON document through
  a pipe: what the code prints cannot reach the output;
- a child that ends without an answer is an error that says how it ended.

Where there is no ``fork`` (Windows), or this process runs threads (forking one is not
safe), the command runs in this process as it is.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import time
from collections.abc import Callable, Iterator
from typing import IO, Any

from skillkit_core.errors import SkillkitError
from skillkit_core.simulate.commands import CommandOutput

# Extra seconds this process waits beyond the limit: the child dumps its stack and exits
# by itself at the limit, which gives the line it was stuck on.
_GRACE = 3.0
_CRASHED = "internal"


def run_contained(
    make_output: Callable[[], CommandOutput],
    *,
    command: str,
    entry: str | None,
    whole: bool = True,
) -> CommandOutput:
    """``make_output()`` run in a kept child (see the module's documentation); its
    ``SkillkitError`` is raised here. ``command`` names the command in messages and is
    the code of the errors this adds; ``entry`` is the skill's ``file.py[:attr]`` (the
    file a hang is looked for in). The time limit covers the whole of ``make_output`` or,
    with ``whole`` false, what runs under :func:`loading` only."""
    if not _can_fork():
        return make_output()
    import tempfile

    from skillkit_core.lint.load_worker import timeout_from_environment
    from skillkit_core.process_tree import fork_kept, kill_tree

    timeout = timeout_from_environment()

    read_end, write_end = os.pipe()
    with tempfile.TemporaryFile() as dump:
        try:
            limit = (timeout, whole)
            keeper = fork_kept(lambda: _child(make_output, read_end, write_end, dump, limit))
        except OSError as error:  # no processes left to fork
            os.close(read_end)
            os.close(write_end)
            raise SkillkitError(f"cannot start skillkit {command}: {error}", code=command) from None
        os.close(write_end)
        status: int | None = None
        try:
            bound = timeout + _GRACE if whole else None
            answer = _read_answer(read_end, bound)
            if answer is None:  # past the limit and the grace: stop it here
                kill_tree(keeper)
            status = os.waitstatus_to_exitcode(os.waitpid(keeper, 0)[1])
        finally:
            os.close(read_end)
            if status is None:  # interrupted (Ctrl-C): nothing of it may stay
                kill_tree(keeper)
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(keeper, 0)
        what = f"skillkit {command}" if whole else "loading the skill's module"
        return _output_of(answer, status, _text_of(dump), command, entry, (what, timeout))


def _can_fork() -> bool:
    import threading

    return hasattr(os, "fork") and threading.active_count() == 1


# ---------------------------------------------------------------- the child


def _child(
    make_output: Callable[[], CommandOutput],
    read_end: int,
    write_end: int,
    dump: IO[bytes],
    limit: tuple[float, bool],
) -> None:
    """Make the output under the limit and send it, or the error, as JSON."""
    import sys

    global _loading_limit
    os.close(read_end)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - the child's to its end
    timeout, whole = limit
    if not whole:
        _loading_limit = (timeout, dump)
    try:
        with _limited(timeout if whole else None, dump):
            answer = _answer_json(make_output())
    except SkillkitError as error:
        answer = {"error": {"code": error.code, "message": error.message}}
    except KeyboardInterrupt:  # raised by the skill's code (a real ^C stops the parent too)
        message = "the skill's code raised KeyboardInterrupt, as if interrupted"
        answer = {"error": {"code": "entry", "message": message}}
    except Exception as error:  # a defect: its traceback on stderr, as in process
        import traceback

        traceback.print_exc()
        answer = {"error": {"code": _CRASHED, "message": f"{type(error).__name__}: {error}"}}
    with os.fdopen(write_end, "wb") as channel:
        channel.write(json.JSONEncoder().encode(answer).encode("utf-8"))


# Set in a child whose limit covers the loading only: (seconds, where the stack goes).
_loading_limit: tuple[float, IO[bytes]] | None = None


def loading() -> contextlib.AbstractContextManager[None]:
    """The time limit of loading the skill's module, in a child whose limit covers the
    loading only (see :func:`run_contained`); no limit anywhere else."""
    if _loading_limit is None:
        return contextlib.nullcontext()
    return _limited(*_loading_limit)


@contextlib.contextmanager
def _limited(timeout: float | None, dump: IO[bytes]) -> Iterator[None]:
    """At ``timeout`` seconds, dump every thread's stack to ``dump`` and exit."""
    import faulthandler

    if timeout:
        faulthandler.dump_traceback_later(timeout, exit=True, file=dump)
    try:
        yield
    finally:
        if timeout:
            faulthandler.cancel_dump_traceback_later()


def _answer_json(output: CommandOutput) -> dict[str, Any]:
    if isinstance(output.content, bytes):
        content: dict[str, str] = {"bytes": base64.b64encode(output.content).decode("ascii")}
    else:
        content = {"text": output.content}
    return {"output": content, "exit_code": output.exit_code}


# ---------------------------------------------------------------- this side


def _read_answer(read_end: int, seconds: float | None) -> dict[str, Any] | None:
    """The child's JSON answer; ``{}`` when it ended without one, ``None`` when it did
    not end within ``seconds``."""
    import select

    deadline = None if seconds is None else time.monotonic() + seconds
    chunks: list[bytes] = []
    while True:
        wait = None if deadline is None else max(deadline - time.monotonic(), 0.0)
        readable, _, _ = select.select([read_end], [], [], wait)
        if not readable:
            return None
        chunk = os.read(read_end, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
    try:
        answer = json.loads(b"".join(chunks))
    except ValueError:  # nothing, or cut short
        return {}
    return answer if isinstance(answer, dict) else {}


def _output_of(
    answer: dict[str, Any] | None,
    status: int,
    dump: str,
    command: str,
    entry: str | None,
    limit: tuple[str, float],
) -> CommandOutput:
    """What the child answered, or the error that says how it ended. ``limit``: what the
    time limit covered, and its seconds."""
    if answer and "error" in answer:
        error = answer["error"]
        raise SkillkitError(str(error["message"]), code=str(error["code"]))
    if answer and "output" in answer:
        content = answer["output"]
        if "bytes" in content:
            return CommandOutput(base64.b64decode(content["bytes"]), int(answer["exit_code"]))
        return CommandOutput(str(content["text"]), int(answer["exit_code"]))
    if answer is None or "Timeout (" in dump:
        raise _timed_out(command, entry, limit, dump)
    from skillkit_core.process_tree import how_it_ended

    raise SkillkitError(
        f"skillkit {command} ended without a result: the skill's code ended its process "
        f"({how_it_ended(status)})",
        code=command,
    )


def _timed_out(
    command: str, entry: str | None, limit: tuple[str, float], dump: str
) -> SkillkitError:
    from skillkit_core.lint.load_worker import hang_message

    return SkillkitError(hang_message(*limit, dump, entry), code=command)


def _text_of(dump: IO[bytes]) -> str:
    dump.seek(0)
    return dump.read(1 << 16).decode("utf-8", "replace")
