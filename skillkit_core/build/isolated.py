"""``skillkit build`` with the author's code kept out of the caller's process.

Building imports the skill's module, which is the author's code: it may hang, call
``os._exit``, or start processes that outlive it. So the command runs the whole pipeline
(:func:`~skillkit_core.build.pipeline.build_skill`) in a child process, the same way
``skillkit check`` lints (:mod:`skillkit_core.lint.load_worker`):

- the child runs under a keeper in a session of its own (:mod:`skillkit_core.process_tree`),
  so nothing it or the module starts survives the build, setsid'd or double-forked
  processes included;
- the steps that run the module's code (load, validate, SKILL.md) each get the check's
  time limit (``SKILLKIT_CHECK_TIMEOUT`` seconds, default 10); at the limit the child
  dumps its stack and the build fails naming the step and the line it was stuck on;
- a child that dies says how (its exit status, and the step it was in).

The child speaks JSON lines on a private copy of its stdout: ``{"progress": [kind,
text]}`` for each progress report, then ``{"result": {...}}`` or ``{"error": {"code",
"message"}}``. The module's own prints go to stderr, which the parent keeps and shows
only the end of, on failure.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from skillkit_core.build.pipeline import STEPS, BuildOptions, BuildResult, Progress
from skillkit_core.errors import BuildError, SkillkitError

_ENCODER = json.JSONEncoder()
"""The channel's encoder, made before the skill's module is imported (which may rebind
``json.dumps``, to indent, say: each message must stay one line)."""

#: Pipeline steps that execute the author's code, each bounded by the time limit.
AUTHOR_STEPS = frozenset({STEPS["load"], STEPS["validate"], STEPS["skill-md"]})
# Extra seconds the parent waits beyond the limit: the child dumps its stack and exits
# by itself at the limit, which gives the line it was stuck on.
_GRACE = 3.0
_MODULE = "skillkit_core.build.isolated"


def build_isolated(
    options: BuildOptions, progress: Progress | None = None, timeout: float | None = None
) -> BuildResult:
    """:func:`~skillkit_core.build.pipeline.build_skill` in a child process (see the
    module's documentation); ``BuildError`` or the pipeline's own error on failure."""
    import shutil
    import subprocess
    import tempfile

    from skillkit_core.lint.load_worker import timeout_from_environment
    from skillkit_core.process_tree import keeper_command, kill_tree

    report = progress or (lambda _kind, _text: None)
    limit = timeout if timeout is not None else timeout_from_environment()
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    with tempfile.TemporaryFile() as stderr:
        process = subprocess.Popen(
            keeper_command([sys.executable, "-m", _MODULE]),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            env=env,
            start_new_session=True,
        )
        scratch: list[str] = []

        def follow(kind: str, text: str) -> None:
            if kind == "scratch":
                scratch.append(text)
            else:
                report(kind, text)

        try:
            process.stdin.write(json.dumps(_options_json(options, limit)).encode("utf-8"))
            process.stdin.close()
            return _follow(process, stderr, follow, limit, options.entry)
        finally:
            if process.poll() is None:
                kill_tree(process.pid)
            process.wait()
            scratch += _scratch_reported(process.stdout.read())  # what was not read yet
            process.stdout.close()
            for folder in scratch:  # left by a child stopped before its own clean-up
                if _is_scratch_of(Path(folder), Path(options.out_dir)):
                    _keep_previous(Path(folder), Path(options.out_dir))
                    shutil.rmtree(folder, ignore_errors=True)


def _is_scratch_of(folder: Path, out_dir: Path) -> bool:
    """Whether ``folder`` is named as the pipeline names a build's scratch folder, beside
    the output folder: the report comes from the process that runs the skill's code."""
    out = Path(os.path.abspath(out_dir))
    return (
        folder.name.startswith(f".{out.name}.build-")
        and os.path.realpath(folder.parent) == os.path.realpath(out.parent)
        and not folder.is_symlink()
    )


def _keep_previous(scratch: Path, out_dir: Path) -> None:
    """Put the old output folder back when the build was stopped mid-swap (moved aside,
    the new one not yet in its place): a failed build leaves the previous output."""
    from skillkit_core.build.pipeline import PREVIOUS

    previous, out = scratch / PREVIOUS, Path(os.path.abspath(out_dir))
    if previous.is_dir() and not previous.is_symlink() and not os.path.lexists(out):
        with contextlib.suppress(OSError):
            os.rename(previous, out)


def _scratch_reported(unread: bytes) -> list[str]:
    """The scratch folders named in the child's reports that were not read."""
    found = []
    for line in unread.splitlines():
        try:
            kind, text = json.loads(line)["progress"]
        except (ValueError, KeyError, TypeError):
            continue
        if kind == "scratch":
            found.append(text)
    return found


def _follow(process: Any, stderr: Any, report: Progress, limit: float, entry: str) -> BuildResult:
    """Read the child's reports until its answer; enforce the limit of author steps."""
    import select

    buffer = b""
    step = STEPS["load"]
    deadline: float | None = None
    stream = process.stdout
    while True:
        while b"\n" not in buffer:
            wait = None if deadline is None else max(deadline - time.monotonic(), 0)
            readable, _, _ = select.select([stream], [], [], wait)
            if not readable:
                raise _timed_out(step, limit, _tail(stderr), entry)
            chunk = os.read(stream.fileno(), 1 << 16)
            if not chunk:
                raise _ended(process, step, limit, _tail(stderr), entry)
            buffer += chunk
        line, _, buffer = buffer.partition(b"\n")
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if not isinstance(message, dict):
            continue  # not a line of the channel (it writes one JSON object per line)
        if "progress" in message:
            kind, text = message["progress"]
            if kind == "step":
                step = text
                deadline = time.monotonic() + limit + _GRACE if text in AUTHOR_STEPS else None
            report(kind, text)
        elif "result" in message:
            return _result_of(message["result"])
        elif "error" in message:
            error = message["error"]
            raise SkillkitError(str(error.get("message")), code=str(error.get("code") or "build"))


def _ended(process: Any, step: str, limit: float, dump: str, entry: str) -> SkillkitError:
    """The child closed its output without an answer: a timeout dump, or it died."""
    try:
        code = process.wait(timeout=_GRACE)
    except Exception:  # still running with its output closed: treat it as stuck
        return _timed_out(step, limit, dump, entry)
    if "Timeout (" in dump:
        return _timed_out(step, limit, dump, entry)
    if code < 0:
        import signal

        how = f"was killed by signal {-code} ({signal.Signals(-code).name})"
    else:
        how = f"exited with status {code} (os._exit, or a crash)"
    last = _last_line(dump)
    return BuildError(
        f"the build process {how} while the skill's code ran in '{step}'"
        + (f": {last}" if last else "")
    )


def _timed_out(step: str, limit: float, dump: str, entry: str) -> BuildError:
    from skillkit_core.lint.load_worker import hang_message

    return BuildError(hang_message(f"'{step}'", limit, dump, entry))


def _tail(stderr: Any, limit: int = 1 << 16) -> str:
    try:
        size = os.fstat(stderr.fileno()).st_size
        data = os.pread(stderr.fileno(), limit, max(size - limit, 0))
    except (OSError, ValueError):
        return ""
    return data.decode("utf-8", "replace").strip()


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


# ---------------------------------------------------------------- JSON both ways


def _options_json(options: BuildOptions, limit: float) -> dict[str, Any]:
    data = asdict(options)
    data["out_dir"] = str(options.out_dir)
    data["cache_dir"] = str(options.cache_dir) if options.cache_dir else None
    return {"options": data, "timeout": limit}


def _options_of(data: dict[str, Any]) -> BuildOptions:
    values = dict(data)
    values["out_dir"] = Path(values["out_dir"])
    values["cache_dir"] = Path(values["cache_dir"]) if values.get("cache_dir") else None
    for key in ("targets", "pythons"):
        if values.get(key) is not None:
            values[key] = tuple(values[key])
    return BuildOptions(**values)


def _result_json(result: BuildResult) -> dict[str, Any]:
    data = asdict(result)
    data["out_dir"] = str(result.out_dir)
    return data


def _result_of(data: dict[str, Any]) -> BuildResult:
    return BuildResult(
        out_dir=Path(data["out_dir"]),
        skill=data["skill"],
        mode=data["mode"],
        targets=tuple(data["targets"]),
        files=[(str(name), int(size)) for name, size in data["files"]],
        warnings=list(data["warnings"]),
        native={key: list(value) for key, value in data["native"].items()},
        distributions=list(data["distributions"]),
        seconds=float(data["seconds"]),
    )


# ---------------------------------------------------------------- the child


def main() -> int:
    """The child: read the options on stdin, build, answer on a private stdout."""
    import faulthandler

    from skillkit_core.build.pipeline import build_skill
    from skillkit_core.process_tree import become_subreaper

    become_subreaper()
    request = json.loads(sys.stdin.read())
    channel = os.fdopen(os.dup(1), "w", encoding="utf-8")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)  # the module's prints go to stderr, never into the channel
    sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - lives as long as we do
    limit = float(request["timeout"])

    def send(message: dict[str, Any]) -> None:
        channel.write(_ENCODER.encode(message) + "\n")
        channel.flush()

    def progress(kind: str, text: str) -> None:
        if kind == "step":
            faulthandler.cancel_dump_traceback_later()
            if text in AUTHOR_STEPS:
                faulthandler.dump_traceback_later(limit, exit=True)
        send({"progress": [kind, text]})

    try:
        result = build_skill(_options_of(request["options"]), progress)
    except SkillkitError as error:
        send({"error": {"code": error.code, "message": error.message}})
    except Exception as error:
        send({"error": _unexpected(error)})
    else:
        send({"result": _result_json(result)})
    finally:
        faulthandler.cancel_dump_traceback_later()
    channel.close()
    sys.stderr.flush()
    os._exit(0)  # threads the module started must not keep the build alive


def _unexpected(error: Exception) -> dict[str, str]:
    """The error of a build that raised ``error``: a machine that cannot take what the
    build writes (a full disk, say) is the user's to know about; anything else is a bug
    of ours, and its traceback goes to stderr."""
    from skillkit_core.streams import cannot_write, from_writing

    if isinstance(error, OSError) and from_writing(error):
        where = f" ({error.filename})" if error.filename else ""
        return {"code": "output", "message": cannot_write(error) + where}
    import traceback

    traceback.print_exc()
    return {"code": "internal", "message": f"{type(error).__name__}: {error}"}


if __name__ == "__main__":
    raise SystemExit(main())
