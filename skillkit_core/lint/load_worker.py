"""Import a skill module in a separate process, with a time limit, and lint it there.

A skill module is the author's code: importing it may raise, call ``sys.exit``, print,
read stdin, or never finish. ``skillkit check`` therefore never imports one itself. It
asks a worker process, which imports the module under lenient builds (so a half-broken
skill still yields a definition and every problem is reported), lints each skill the
module defines, and answers with JSON diagnostics. A module that fails to import is a
``load-error`` diagnostic with the exception and its line; one that hangs is stopped
after the time limit and reported with the line it was stuck on.

Two ways to run the worker:

- ``python -m skillkit_core.lint.load_worker FILE[:attr]...`` checks the entries and
  prints one JSON document ``{"results": [{"entry", "diagnostics", "suppressed"}]}``;
- ``python -m skillkit_core.lint.load_worker --serve`` prints ``{"ready": true}``, then
  answers one JSON line per request line ``{"entry": ..., "timeout": seconds}``.

:class:`LoadWorker` is the parent side of ``--serve``: one warm process for many
entries, replaced whenever an entry makes it hang or die.

Processes a module starts do not outlive its check. The worker runs in a session of its
own under a keeper (:mod:`skillkit_core.process_tree`); it adopts the orphans of its
subtree and kills every descendant after each entry, the keeper kills what is left when
the worker dies, and a hang is stopped by killing the whole tree — children that called
``setsid`` or double-forked included.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from skillkit_core.lint.diagnostic import Fix, LintDiagnostic, SourceRange, TextEdit

#: Seconds one entry may take (import and lint) before its worker is stopped.
DEFAULT_TIMEOUT = 10.0
TIMEOUT_VARIABLE = "SKILLKIT_CHECK_TIMEOUT"
# Extra seconds the parent waits beyond the limit: the worker dumps its stack and exits
# by itself at the limit, which gives the line it was stuck on.
_GRACE = 3.0
_START_TIMEOUT = 60.0
_RULE = "load-error"


@dataclass(frozen=True)
class EntryReport:
    """What checking one ``file.py[:attr]`` found."""

    entry: str
    diagnostics: list[LintDiagnostic]
    suppressed: int = 0
    skills: tuple[str, ...] = field(default_factory=tuple)


def timeout_from_environment() -> float:
    """The per-entry time limit: ``SKILLKIT_CHECK_TIMEOUT`` seconds, else the default."""
    raw = os.environ.get(TIMEOUT_VARIABLE, "").strip()
    try:
        value = float(raw) if raw else DEFAULT_TIMEOUT
    except ValueError:
        return DEFAULT_TIMEOUT
    return value if value > 0 else DEFAULT_TIMEOUT


def split_entry(entry: str) -> tuple[str, str | None]:
    """``"dir/file.py:attr"`` → ``("dir/file.py", "attr")``; no attribute → None."""
    head, sep, tail = entry.rpartition(":")
    if sep and head.endswith(".py") and tail.isidentifier():
        return head, tail
    return entry, None


# ---------------------------------------------------------------- JSON form


def _range_json(where: SourceRange | None) -> list[int] | None:
    if where is None:
        return None
    return [where.line, where.column, where.end_line, where.end_column]


def _range_of(data: Any) -> SourceRange | None:
    return SourceRange(*data) if data is not None else None


def diagnostic_to_json(diagnostic: LintDiagnostic) -> dict[str, Any]:
    """A diagnostic as plain JSON data (the worker's answer)."""
    return {
        "rule": diagnostic.rule,
        "severity": diagnostic.severity,
        "message": diagnostic.message,
        "step": diagnostic.step,
        "file": diagnostic.file,
        "range": _range_json(diagnostic.range),
        "fix": None if diagnostic.fix is None else _fix_json(diagnostic.fix),
        "suggestions": [_fix_json(fix) for fix in diagnostic.suggestions],
    }


def _fix_json(fix: Fix) -> dict[str, Any]:
    return {
        "title": fix.title,
        "edits": [
            {"range": _range_json(e.range), "new_text": e.new_text, "file": e.file}
            for e in fix.edits
        ],
        "executable": list(fix.executable),
        "renames": [list(pair) for pair in fix.renames],
        "based_on": [list(pair) for pair in fix.based_on],
    }


def _fix_from_json(data: dict[str, Any]) -> Fix:
    edits = tuple(
        TextEdit(SourceRange(*e["range"]), e["new_text"], e.get("file")) for e in data["edits"]
    )
    renames = tuple((str(old), str(new)) for old, new in data.get("renames", ()))
    executable = tuple(str(path) for path in data.get("executable", ()))
    based_on = tuple((str(file), str(digest)) for file, digest in data.get("based_on", ()))
    return Fix(data["title"], edits, executable, renames, based_on)


def diagnostic_from_json(data: dict[str, Any]) -> LintDiagnostic:
    """The inverse of :func:`diagnostic_to_json`."""
    fix = _fix_from_json(data["fix"]) if data.get("fix") else None
    return LintDiagnostic(
        rule=data["rule"],
        severity=data["severity"],
        message=data["message"],
        step=data.get("step"),
        file=data.get("file"),
        range=_range_of(data.get("range")),
        fix=fix,
        suggestions=tuple(_fix_from_json(f) for f in data.get("suggestions", ())),
    )


def _report_json(report: EntryReport) -> dict[str, Any]:
    return {
        "entry": report.entry,
        "diagnostics": [diagnostic_to_json(d) for d in report.diagnostics],
        "suppressed": report.suppressed,
        "skills": list(report.skills),
    }


def _report_of(data: dict[str, Any]) -> EntryReport:
    return EntryReport(
        entry=data["entry"],
        diagnostics=[diagnostic_from_json(d) for d in data["diagnostics"]],
        suppressed=int(data.get("suppressed", 0)),
        skills=tuple(data.get("skills", ())),
    )


# ---------------------------------------------------------------- in the worker


def load_error(file: str, message: str, where: SourceRange | None = None) -> LintDiagnostic:
    """A ``load-error`` diagnostic."""
    return LintDiagnostic(rule=_RULE, severity="error", message=message, file=file, range=where)


def check_file(path: str | Path, attr: str | None = None) -> EntryReport:
    """Import ``path`` (in this process, under lenient builds) and lint every skill it
    defines (or only ``attr``). Failures to import become ``load-error`` diagnostics.

    This executes the author's module: call it in a worker process (see
    :class:`LoadWorker`), not in a long-lived one that must survive any module.
    """
    file = os.path.abspath(path)
    entry = f"{file}:{attr}" if attr else file
    try:
        text = Path(file).read_text(encoding="utf-8").removeprefix("\ufeff")
    except (OSError, UnicodeDecodeError) as error:
        return EntryReport(entry, [load_error(file, f"cannot read the module: {error}")])
    with _isolated(file):
        try:
            module = _execute(file, text)
        except BaseException as error:  # the author's module may raise anything
            if isinstance(error, KeyboardInterrupt):
                raise
            return EntryReport(entry, [_import_error(file, text, error)])
        return _lint_module(entry, file, text, module, attr)


def _lint_module(entry: str, file: str, text: str, module: Any, attr: str | None) -> EntryReport:
    from skillkit_core.lint.workflow import SourceFiles, lint_definition
    from skillkit_core.source.index import index_source

    try:
        found = _definitions(module, file, attr)
    except LookupError as error:
        return EntryReport(entry, [load_error(file, str(error))])
    files = SourceFiles()
    files.provide(file, text, index_source(text))
    diagnostics: list[LintDiagnostic] = []
    suppressed = 0
    for _, definition in found:
        report = lint_definition(definition, Path(file).parent, files=files)
        diagnostics.extend(report.diagnostics)
        suppressed += report.suppressed
    names = tuple(name for name, _ in found)
    return EntryReport(entry, list(dict.fromkeys(diagnostics)), suppressed, names)


def _execute(file: str, text: str) -> Any:
    """Run the module's code as a fresh module (never a cached .pyc: a --fix rerun must
    see the new text) with every ``.build()`` lenient."""
    import types

    from skillkit_core.builder.skill import lenient_builds

    name = _module_name(file)
    module = types.ModuleType(name)
    module.__file__ = file
    sys.modules[name] = module
    code = compile(text, file, "exec", dont_inherit=True)
    with lenient_builds():
        exec(code, module.__dict__)
    return module


def _module_name(file: str) -> str:
    stem = Path(file).stem
    if stem.isidentifier() and stem not in sys.modules:
        return stem
    return f"_skillkit_check_{abs(hash(file)):x}"


def _definitions(module: Any, file: str, attr: str | None) -> list[tuple[str, Any]]:
    """The skills to lint: ``attr``, or every top-level definition made in this file
    that no other one registers as a sub-skill."""
    from skillkit_core.definitions import ReferenceDefinition, SkillDefinition

    kinds = (SkillDefinition, ReferenceDefinition)
    if attr is not None:
        if not hasattr(module, attr):
            raise LookupError(f"the module has no attribute '{attr}'")
        value = getattr(module, attr)
        if not isinstance(value, kinds):
            hint = " (call .build() on it)" if hasattr(value, "build") else ""
            raise LookupError(
                f"'{attr}' is a {type(value).__name__}, not a built skill or reference{hint}"
            )
        return [(attr, value)]
    found: dict[int, tuple[str, Any]] = {}
    for name, value in vars(module).items():
        if isinstance(value, kinds) and _same_file(value.source_file, file):
            found.setdefault(id(value), (name, value))
    problem = None if found else _nothing_to_check(module)
    if problem:
        raise LookupError(problem)
    registered = {
        id(sub.definition)
        for _, value in found.values()
        if isinstance(value, SkillDefinition)
        for sub in value.subskills
    }
    return [item for key, item in found.items() if key not in registered]


def _nothing_to_check(module: Any) -> str | None:
    """Why a module gave nothing to lint, with the fix when builders lack ``.build()``;
    ``None`` for a file of reusable modules only (``module(...).build()``)."""
    from skillkit_core.definitions import ModuleDefinition

    public = {n: v for n, v in vars(module).items() if not n.startswith("_")}
    if any(isinstance(v, ModuleDefinition) for v in public.values()):
        return None
    builders = ("SkillBuilder", "ReferenceBuilder")
    unbuilt = [n for n, v in public.items() if type(v).__name__ in builders]
    hint = f"; {', '.join(unbuilt)} still need .build()" if unbuilt else ""
    return f"the module defines no built skill or reference at top level{hint}"


def _same_file(one: str | None, other: str) -> bool:
    if one is None:
        return False
    return os.path.normcase(os.path.abspath(one)) == os.path.normcase(os.path.abspath(other))


def _import_error(file: str, text: str, error: BaseException) -> LintDiagnostic:
    lines = text.splitlines()
    if isinstance(error, SyntaxError) and _same_file(error.filename, file):
        line = max((error.lineno or 1) - 1, 0)
        column = max((error.offset or 1) - 1, 0)
        end = column + 1
        if error.end_lineno == error.lineno and error.end_offset and error.end_offset > column + 1:
            end = error.end_offset - 1
        return load_error(
            file,
            f"the module does not compile: {type(error).__name__}: {error.msg}",
            SourceRange(line, column, line, end),
        )
    import traceback

    frames = traceback.extract_tb(error.__traceback__)
    own = [frame for frame in frames if _same_file(frame.filename, file)]
    where = None
    if own and own[-1].lineno is not None:
        where = _frame_range(lines, own[-1])
    from skillkit_core.errors import SkillkitError

    elsewhere = ""
    # Our own errors already say what and where; for others name the raising file.
    if frames and own and frames[-1] is not own[-1] and not isinstance(error, SkillkitError):
        elsewhere = f" (raised in {frames[-1].filename}, line {frames[-1].lineno})"
    if isinstance(error, SystemExit):
        message = f"the module called sys.exit({error.code!r}) while being imported"
    else:
        detail = str(error).strip()
        message = f"importing the module raised {type(error).__name__}" + (
            f": {detail}" if detail else ""
        )
    return load_error(file, message + elsewhere, where)


def _frame_range(lines: list[str], frame: Any) -> SourceRange:
    line = frame.lineno - 1
    text = lines[line] if line < len(lines) else ""
    column = getattr(frame, "colno", None)
    end_line = getattr(frame, "end_lineno", None)
    end_column = getattr(frame, "end_colno", None)
    if column is not None and end_line == frame.lineno and end_column is not None:
        start, stop = _chars(text, column), _chars(text, end_column)
        if stop > start:
            return SourceRange(line, start, line, stop)
    start = len(text) - len(text.lstrip())
    return SourceRange(line, start, line, max(len(text.rstrip()), start))


def _chars(text: str, byte_column: int) -> int:
    return len(text.encode("utf-8", "surrogatepass")[:byte_column].decode("utf-8", "replace"))


@contextmanager
def _isolated(file: str) -> Iterator[None]:
    """Import the module beside its folder's siblings; afterwards forget every module it
    brought in (so the next entry, perhaps with a sibling of the same name, starts
    clean) and restore the search path and working folder."""
    before = set(sys.modules)
    path = list(sys.path)
    cwd = os.getcwd()
    sys.path.insert(0, os.path.dirname(file))
    try:
        yield
    finally:
        sys.path[:] = path
        with suppress(OSError):
            os.chdir(cwd)
        for name in set(sys.modules) - before:
            if _is_author_module(sys.modules.get(name)):
                sys.modules.pop(name, None)


def _is_author_module(module: Any) -> bool:
    file = getattr(module, "__file__", None)
    if not file:
        return getattr(module, "__name__", "").startswith("_skillkit_check_")
    file = os.path.abspath(file)
    installed = {sys.prefix, sys.base_prefix, sys.exec_prefix, _package_root()}
    return not any(file.startswith(os.path.abspath(p) + os.sep) for p in installed if p)


def _package_root() -> str:
    import skillkit_core

    return os.path.dirname(os.path.abspath(skillkit_core.__file__))


# ---------------------------------------------------------------- worker main


def _claim_stdio() -> tuple[IO[str], IO[str]]:
    """Keep the real stdin/stdout for the protocol; the author's code gets an empty
    stdin and its prints go to stderr."""
    protocol_in = os.fdopen(os.dup(0), "r", encoding="utf-8")
    protocol_out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - lives as long as we do
    return protocol_in, protocol_out


def _warm_up() -> None:
    """Import what every check needs before the first request (counted against no entry)."""
    from importlib import import_module

    for name in (
        "pydantic",
        "skillkit_core.builder.skill",
        "skillkit_core.lint.registry",
        "skillkit_core.lint.workflow",
        "skillkit_core.primitives",
        "skillkit_core.source.index",
    ):
        import_module(name)


def _check_with_limit(entry: str, timeout: float | None) -> EntryReport:
    """Check one entry; at the limit dump every thread's stack to stderr and exit."""
    import faulthandler

    path, attr = split_entry(entry)
    if timeout:
        faulthandler.dump_traceback_later(timeout, exit=True)
    try:
        return check_file(path, attr)
    finally:
        if timeout:
            faulthandler.cancel_dump_traceback_later()


def _end_descendants() -> None:
    """Kill (and reap) every process the last entry's code started."""
    from skillkit_core.process_tree import kill_descendants, reap_orphans

    kill_descendants()
    reap_orphans()


def serve() -> int:
    """Answer check requests, one JSON line each, until stdin closes."""
    from skillkit_core.process_tree import become_subreaper

    become_subreaper()
    protocol_in, protocol_out = _claim_stdio()
    _warm_up()
    encoder = json.JSONEncoder()  # made before any skill module rebinds json.dumps
    protocol_out.write(encoder.encode({"ready": True}) + "\n")
    protocol_out.flush()
    for line in protocol_in:
        if not line.strip():
            continue
        request = json.loads(line)
        report = _check_with_limit(request["entry"], request.get("timeout"))
        _end_descendants()
        protocol_out.write(encoder.encode(_report_json(report)) + "\n")
        protocol_out.flush()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: ``--serve``, or entries to check once and print as JSON."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["--serve"]:
        return serve()
    if not args or any(a.startswith("-") for a in args):
        print(
            "usage: python -m skillkit_core.lint.load_worker FILE.py[:attr]... | --serve",
            file=sys.stderr,
        )
        return 2
    from skillkit_core.process_tree import become_subreaper

    become_subreaper()
    _, protocol_out = _claim_stdio()
    results = []
    for entry in args:
        results.append(_report_json(_check_with_limit(entry, timeout_from_environment())))
        _end_descendants()
    protocol_out.write(json.dumps({"results": results}, indent=2) + "\n")
    protocol_out.flush()
    return 0


# ---------------------------------------------------------------- the parent side


class LoadWorker:
    """A warm worker process for many entries, restarted after a hang or crash."""

    def __init__(self, timeout: float | None = None) -> None:
        self.timeout = timeout if timeout is not None else timeout_from_environment()
        self._process: Any = None
        self._stderr: Any = None
        self._buffer = b""
        self._start_problem: str | None = None
        self._ended = False  # the worker closed its output (it exited)

    def check(self, path: str | Path, attr: str | None = None) -> EntryReport:
        """Check one entry within the time limit; never raises for the module's sake."""
        file = os.path.abspath(path)
        entry = f"{file}:{attr}" if attr else file
        if not self._ensure_started():
            return EntryReport(entry, [load_error(file, self._start_problem or "no worker")])
        mark = os.fstat(self._stderr.fileno()).st_size
        try:
            request = json.dumps({"entry": entry, "timeout": self.timeout}) + "\n"
            self._process.stdin.write(request.encode("utf-8"))
            self._process.stdin.flush()
            answer = self._read_line(self.timeout + _GRACE)
        except (OSError, ValueError):
            answer = None
        if answer is not None:
            try:
                return _report_of(json.loads(answer))
            except (ValueError, KeyError, TypeError):
                pass
        return EntryReport(entry, [self._failure(file, mark)])

    def close(self) -> None:
        """Stop the worker process (if any)."""
        process, self._process = self._process, None
        self._buffer = b""
        self._ended = False
        if process is not None:
            try:
                process.stdin.close()
                process.wait(timeout=2)
            except Exception:  # a worker that will not stop politely is killed
                _kill_tree(process)
            for stream in (process.stdout,):
                stream.close()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    def __enter__(self) -> LoadWorker:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # -- internals --------------------------------------------------------------------

    def _ensure_started(self) -> bool:
        if self._process is not None and self._process.poll() is None:
            return True
        self.close()
        import subprocess
        import tempfile

        env = dict(os.environ)
        root = os.path.dirname(_package_root())
        env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 - kept as long as the worker
        from skillkit_core.process_tree import keeper_command

        command = [sys.executable, "-m", "skillkit_core.lint.load_worker", "--serve"]
        self._process = subprocess.Popen(
            keeper_command(command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env=env,
            start_new_session=True,
        )
        ready = self._read_line(_START_TIMEOUT)
        if ready is None or not json.loads(ready).get("ready"):
            tail = self._stderr_tail(0)
            self._start_problem = "the checking process did not start" + (
                f": {tail}" if tail else ""
            )
            self.close()
            return False
        return True

    def _read_line(self, seconds: float) -> str | None:
        import select
        import time

        deadline = time.monotonic() + seconds
        stream = self._process.stdout
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            readable, _, _ = select.select([stream], [], [], remaining)
            if not readable:
                return None
            chunk = os.read(stream.fileno(), 1 << 16)
            if not chunk:
                self._ended = True
                return None
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode("utf-8")

    def _failure(self, file: str, mark: int) -> LintDiagnostic:
        """The entry stopped the worker: a hang (the worker dumped its stack and
        exited at the limit, or is killed now) or a crash. Then start afresh."""
        process = self._process
        code = process.poll() if process is not None else None
        if code is None and process is not None and self._ended:
            # Its output is closed: it is ending (the keeper may still be cleaning up).
            with suppress(Exception):
                code = process.wait(timeout=_GRACE)
        # Still running at the limit (killed now), or killed without closing its output:
        # a hang. A SIGKILL after its output closed is the module's own (or the system's,
        # out of memory), which was reported as a time-out.
        hung = code is None or (code == -9 and not self._ended)
        if code is None and process is not None:
            _kill_tree(process)
            code = process.returncode
        dump = self._stderr_tail(mark, limit=1 << 16)
        stuck = _stuck_line(dump, file)
        if "Timeout (" in dump or hung:
            message = (
                f"importing or checking the module did not finish within {self.timeout:g} s "
                f"(set {TIMEOUT_VARIABLE} to allow longer)"
            )
        else:
            last = _last_line(dump)
            from skillkit_core.process_tree import how_it_ended

            message = f"the module ended the checking process ({how_it_ended(code)})" + (
                f": {last}" if last else ""
            )
        where = None
        if stuck is not None:
            message += f"; it was running line {stuck + 1}"
            where = _line_range(file, stuck)
        self.close()
        return load_error(file, message, where)

    def _stderr_tail(self, mark: int, limit: int = 4096) -> str:
        # pread: the worker shares this file's offset, so never move it.
        if self._stderr is None:
            return ""
        try:
            data = os.pread(self._stderr.fileno(), limit, mark)
        except (OSError, ValueError):
            return ""
        return data.decode("utf-8", "replace").strip()


def _kill_tree(process: Any) -> None:
    """Kill the keeper, the worker and every process the module started; wait for it."""
    from skillkit_core.process_tree import kill_tree

    if process.poll() is None:
        kill_tree(process.pid)
    process.wait()


def hang_message(what: str, limit: float, dump: str, entry: str | None) -> str:
    """The error of a worker that ran the skill's code past ``limit`` seconds: ``what``
    did not finish, and the line of ``entry``'s file (``file.py[:attr]``) it was running,
    read from the ``faulthandler`` ``dump``, when there is one."""
    from skillkit_core.loader import split_entry

    message = (
        f"{what} did not finish within {limit:g} s: the skill's code hangs "
        f"(set {TIMEOUT_VARIABLE} to allow longer)"
    )
    if entry is not None:
        file = os.path.abspath(split_entry(entry)[0])
        stuck = _stuck_line(dump, file)
        if stuck is not None:
            message += f"; it was running {file}, line {stuck + 1}"
    return message


def _stuck_line(dump: str, file: str) -> int | None:
    """0-based line of the innermost frame in ``file`` of a faulthandler dump."""
    import re

    for match in re.finditer(r'File "([^"]+)", line (\d+)', dump):
        if _same_file(match.group(1), file):
            return int(match.group(2)) - 1
    return None


def _line_range(file: str, line: int) -> SourceRange:
    """The written part of one line of ``file`` (its start when unreadable)."""
    try:
        text = Path(file).read_text(encoding="utf-8", errors="replace").splitlines()[line]
    except (OSError, IndexError):
        return SourceRange(line, 0, line, 0)
    start = len(text) - len(text.lstrip())
    return SourceRange(line, start, line, max(start, len(text.rstrip())))


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


_shared: LoadWorker | None = None


def shared_worker() -> LoadWorker:
    """The process-wide worker (started on first use, stopped at exit)."""
    global _shared
    if _shared is None:
        import atexit

        _shared = LoadWorker()
        atexit.register(_shared.close)
    return _shared


if __name__ == "__main__":
    raise SystemExit(main())
