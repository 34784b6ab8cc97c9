"""Running a skill's scripts: interpreter map, limits, environment, capture.

How a script is executed (the runtime seed asks every runtime to document this):

============================  ==================================================
``scripts/x.py``              the Python running skillkit (``sys.executable``)
``scripts/x.sh``, ``.bash``   ``bash``
``scripts/x.js``, ``.mjs``,   ``node``
``.cjs``
anything else                 run directly when it has the executable bit (the
                              kernel honours its ``#!`` line); refused otherwise
============================  ==================================================

Limits and isolation:

- Only files under the skill's ``scripts/`` folder run; the path is contained like every
  other skill path (see :mod:`skillkit_core.runtime.paths`).
- ``args`` go to the process as an argument vector; nothing passes through a shell.
- The working directory is the skill folder, or ``workdir`` (also contained).
- The environment is an allow-list taken from the server's own (``PATH``, ``HOME``,
  locale, ``TZ``, ``TMPDIR``, ``TERM``, user names) plus the call's ``env``, which may
  not set anything that changes how a shell, loader or interpreter starts (see
  :mod:`skillkit_core.runtime.environment`).
- stdin is empty. Each script runs in a session of its own under the keeper of
  :mod:`skillkit_core.process_tree`, with CPU, memory and process limits (see
  :mod:`skillkit_core.runtime.confinement`). After ``timeout`` seconds (default 60), or
  once the script exits, everything it started is killed: its tree, children that left
  it included, its process group and its cgroup.
- stdout and stderr are each kept up to ``max_output`` bytes (default 1 MiB); the rest is
  read and dropped, and the kept text ends with a ``[skillkit: ...]`` marker line.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skillkit_core import process_tree
from skillkit_core.runtime.confinement import Confinement, ProcessLimits
from skillkit_core.runtime.environment import script_environment
from skillkit_core.runtime.errors import ScriptError, SkillFileError, ToolArgumentsError
from skillkit_core.runtime.paths import is_inside, resolve_inside

DEFAULT_TIMEOUT = 60.0
DEFAULT_MAX_OUTPUT = 1024 * 1024
DEFAULT_MEMORY = 2 * 1024**3
DEFAULT_PROCESSES = 64
DEFAULT_MAX_CONCURRENT_SCRIPTS = 4
# ScriptLimits.cpu_seconds: the timeout rounded up.
CPU_FROM_TIMEOUT = -1
SCRIPTS_FOLDER = "scripts"

# Interpreter by file suffix; "python" means the interpreter running skillkit.
INTERPRETERS: dict[str, str] = {
    ".py": "python",
    ".sh": "bash",
    ".bash": "bash",
    ".js": "node",
    ".mjs": "node",
    ".cjs": "node",
}

# After a script exits, how long its pipes may stay open (held by children it left
# running) before those leftovers are killed.
_EXIT_GRACE = 1.0
# After a kill, how long to wait for the pipes to close.
_KILL_GRACE = 5.0
_CHUNK = 64 * 1024


@dataclass(frozen=True)
class ScriptLimits:
    """Per-run limits: wall-clock ``timeout`` in seconds, ``max_output`` bytes per stream,
    CPU seconds and address-space bytes per process, and processes in the whole tree.

    ``cpu_seconds`` defaults to the timeout rounded up; ``None`` in the last three leaves
    that resource unlimited.
    """

    timeout: float = DEFAULT_TIMEOUT
    max_output: int = DEFAULT_MAX_OUTPUT
    cpu_seconds: int | None = CPU_FROM_TIMEOUT
    memory_bytes: int | None = DEFAULT_MEMORY
    processes: int | None = DEFAULT_PROCESSES

    def __post_init__(self) -> None:
        if not self.timeout > 0:
            raise ToolArgumentsError(f"the script timeout must be positive, not {self.timeout}")
        if self.max_output < 1:
            raise ToolArgumentsError(
                f"the output cap must be at least 1 byte, not {self.max_output}"
            )
        if self.cpu_seconds == CPU_FROM_TIMEOUT:
            object.__setattr__(self, "cpu_seconds", math.ceil(self.timeout))
        for what, value, least in (
            ("CPU time limit", self.cpu_seconds, 1),
            ("memory limit", self.memory_bytes, 16 * 1024 * 1024),
            ("process limit", self.processes, 1),
        ):
            if value is not None and value < least:
                raise ToolArgumentsError(f"the script {what} must be at least {least}, not {value}")

    @classmethod
    def from_options(
        cls,
        *,
        timeout: float,
        max_output: int,
        cpu_seconds: int | None,
        memory_mib: int,
        processes: int,
    ) -> ScriptLimits:
        """The limits as ``skillkit serve``'s options give them: ``0`` turns a limit off,
        ``cpu_seconds=None`` means the timeout."""
        return cls(
            timeout=timeout,
            max_output=max_output,
            cpu_seconds=CPU_FROM_TIMEOUT if cpu_seconds is None else cpu_seconds or None,
            memory_bytes=memory_mib * 1024 * 1024 if memory_mib else None,
            processes=processes or None,
        )

    @property
    def process_limits(self) -> ProcessLimits:
        """The limits the child process and its descendants run under."""
        return ProcessLimits(self.cpu_seconds, self.memory_bytes, self.processes)


@dataclass(frozen=True)
class ScriptResult:
    """What one run produced, in the seed's shape plus what the limits did."""

    path: str
    exit_code: int | None
    stdout: str
    stderr: str
    timed_out: bool = False
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    duration_ms: int = 0

    def to_wire(self) -> dict[str, Any]:
        """The JSON result of ``skills_run_script``."""
        return {
            "path": self.path,
            "exit_code": self.exit_code,
            "stdout": self.stdout,
            "stderr": self.stderr,
            "timed_out": self.timed_out,
            "stdout_truncated": self.stdout_truncated,
            "stderr_truncated": self.stderr_truncated,
            "duration_ms": self.duration_ms,
        }


@dataclass(frozen=True)
class ScriptCommand:
    """A checked, ready-to-start script invocation."""

    argv: tuple[str, ...]
    cwd: Path
    env: dict[str, str]
    display_path: str


def prepare_script(
    skill_root: Path,
    path: str,
    *,
    skill: str,
    args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    workdir: str | None = None,
) -> ScriptCommand:
    """Check a run request against the rules above and build its argv, cwd and env."""
    script = resolve_inside(skill_root, path, skill=skill, what="script")
    if not is_inside(script, skill_root / SCRIPTS_FOLDER):
        raise ScriptError(
            f"script '{path}' of skill '{skill}' is not under {SCRIPTS_FOLDER}/; only files in "
            f"the skill's {SCRIPTS_FOLDER}/ folder can be run"
        )
    if not script.is_file():
        what = "a folder" if script.is_dir() else "missing"
        raise SkillFileError(f"script '{path}' of skill '{skill}' is {what}")
    cwd = skill_root
    if workdir not in (None, "", "."):
        cwd = resolve_inside(skill_root, workdir, skill=skill, what="workdir")
        if not cwd.is_dir():
            raise SkillFileError(f"workdir '{workdir}' of skill '{skill}' is not a folder")
    argv = (*interpreter_for(script, path), *_checked_args(args))
    return ScriptCommand(argv, Path(os.path.realpath(cwd)), script_environment(env), path)


def interpreter_for(script: Path, shown: str) -> tuple[str, ...]:
    """The argv prefix that runs ``script`` (see the table in the module docstring)."""
    kind = INTERPRETERS.get(script.suffix.lower())
    if kind == "python":
        return (sys.executable, str(script))
    if kind is not None:
        program = shutil.which(kind)
        if program is None:
            raise ScriptError(
                f"'{kind}' is needed to run {script.suffix} scripts such as '{shown}' but is "
                "not on PATH"
            )
        return (program, str(script))
    if os.access(script, os.X_OK):
        return (str(script),)
    known = ", ".join(sorted(INTERPRETERS))
    raise ScriptError(
        f"script '{shown}' has no known interpreter (by suffix: {known}) and is not executable; "
        "make it executable with a #! line or use one of those suffixes"
    )


def _checked_args(args: Sequence[str]) -> tuple[str, ...]:
    for arg in args:
        if not isinstance(arg, str):
            raise ToolArgumentsError(f"script arguments must be strings, got {arg!r}")
        if "\x00" in arg:
            raise ToolArgumentsError(f"script argument {arg!r} contains a NUL character")
    return tuple(args)


class _CappedBuffer:
    """Keeps the first ``cap`` bytes of a stream and counts the rest."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.kept = bytearray()
        self.total = 0

    def add(self, chunk: bytes) -> None:
        room = self.cap - len(self.kept)
        if room > 0:
            self.kept += chunk[:room]
        self.total += len(chunk)

    @property
    def truncated(self) -> bool:
        return self.total > len(self.kept)

    def text(self) -> str:
        text = self.kept.decode("utf-8", errors="replace")
        if self.truncated:
            text += (
                f"\n[skillkit: output truncated: showing the first {len(self.kept)} of "
                f"{self.total} bytes]\n"
            )
        return text


async def run_script(command: ScriptCommand, limits: ScriptLimits) -> ScriptResult:
    """Run ``command`` under ``limits`` and collect its result; never raises for the script.

    A script that cannot be started at all (exec format error, permission denied) raises
    :class:`ScriptError`. When the call ends, no process the script started is left.
    """
    started = time.monotonic()
    confinement = Confinement(limits.process_limits)
    try:
        process = await asyncio.create_subprocess_exec(
            *process_tree.keeper_command(command.argv),
            cwd=command.cwd,
            env=command.env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
            preexec_fn=confinement.preexec,
        )
    except (OSError, subprocess.SubprocessError) as error:
        confinement.close()
        reason = getattr(error, "strerror", None) or error
        raise ScriptError(
            f"script '{command.display_path}' could not be started: {reason}"
        ) from error
    out, err = _CappedBuffer(limits.max_output), _CappedBuffer(limits.max_output)
    assert process.stdout is not None and process.stderr is not None
    pumps = [
        asyncio.ensure_future(_pump(process.stdout, out)),
        asyncio.ensure_future(_pump(process.stderr, err)),
    ]
    exited = asyncio.ensure_future(_exit_code(process))
    timed_out = killed = False
    pending: set[Any] = set()
    try:
        done, _ = await asyncio.wait({exited}, timeout=limits.timeout)
        if exited not in done:
            timed_out = True
        else:
            _, pending = await asyncio.wait(pumps, timeout=_EXIT_GRACE)
        if timed_out or pending:  # still running, or leftovers hold the pipes
            await asyncio.to_thread(_kill_everything, process.pid)
            killed = True
        await asyncio.wait(pumps, timeout=_KILL_GRACE)
        exit_code = await exited
    finally:
        for task in (*pumps, exited):
            task.cancel()
        # A call cancelled before that kill: done here, without awaiting, since a cancelled
        # call can be cancelled again at every await and this must not be cut short.
        if not killed:
            _kill_everything(process.pid)
        refused_processes = confinement.hit_process_limit()
        confinement.close()  # kills whatever is left in the run's cgroup, then removes it
    stderr = err.text() + _limit_notes(limits, exit_code, timed_out, refused_processes)
    return ScriptResult(
        path=command.display_path,
        exit_code=exit_code,
        stdout=out.text(),
        stderr=stderr,
        timed_out=timed_out,
        stdout_truncated=out.truncated,
        stderr_truncated=err.truncated,
        duration_ms=round((time.monotonic() - started) * 1000),
    )


def _limit_notes(
    limits: ScriptLimits, exit_code: int | None, timed_out: bool, refused_processes: bool
) -> str:
    """``[skillkit: ...]`` lines saying which limit ended or hindered the run."""
    notes = []
    if timed_out:
        notes.append(
            f"timed out after {limits.timeout:g} s; the script and every process it started "
            "were killed"
        )
    elif exit_code == -signal.SIGXCPU:
        notes.append(f"stopped by the CPU time limit of {limits.cpu_seconds} s per process")
    if refused_processes:
        notes.append(
            f"a new process was refused: the limit of {limits.processes} processes was reached"
        )
    return "".join(f"\n[skillkit: {note}]\n" for note in notes)


def _kill_everything(pid: int) -> None:
    """SIGKILL the keeper's whole tree (its session's process group included: see
    :func:`process_tree.kill_tree`), then the keeper, which asyncio reaps."""
    process_tree.kill_tree(pid, include_root=False)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signal.SIGKILL)


async def _exit_code(process: asyncio.subprocess.Process) -> int:
    """The exit status as soon as the process ends.

    ``Process.wait()`` also waits until the output pipes close, which a child the script
    left running can delay indefinitely; the return code is set on exit, so poll it.
    """
    delay = 0.002
    while process.returncode is None:
        await asyncio.sleep(delay)
        delay = min(delay * 2, 0.05)
    return process.returncode


async def _pump(stream: asyncio.StreamReader, buffer: _CappedBuffer) -> None:
    while chunk := await stream.read(_CHUNK):
        buffer.add(chunk)
