"""Execute a buffer's text as its module, leniently, and collect the definitions it built.

Runs inside the worker process only. Each load starts from a clean slate: modules the
previous load imported from the workspace are dropped from ``sys.modules`` (so edits to
helper modules on disk are seen), while the standard library, installed packages and
skillkit itself stay imported (they cannot have changed, and re-importing them is slow).
"""

from __future__ import annotations

import builtins
import contextlib
import os
import sys
import sysconfig
import traceback
import types
import warnings
from dataclasses import dataclass, field
from typing import Any

# Packages whose module state the worker itself relies on; never purged.
_KEEP_ROOTS = frozenset({"skillkit_core", "skill_lsp", "pydantic", "pydantic_core"})
_BUFFER_MODULE = "__skillkit_buffer__"
_baseline: frozenset[str] = frozenset()
_baseline_builtins: dict[str, Any] = {}
_ABSENT = object()


@dataclass(frozen=True)
class BuiltinsChange:
    """What a module did to ``builtins`` while it was imported: names it bound (or
    rebound) and baseline names it deleted. ``gettext.install()`` binds ``_``, which the
    module's prompt functions call when rendered later."""

    bound: dict[str, Any] = field(default_factory=dict)
    deleted: tuple[str, ...] = ()


@dataclass(frozen=True)
class LoadError:
    """Why the module did not finish executing: ``kind`` is ``syntax``, ``exception`` or
    ``exit``; ``line``/``column`` are 0-based, in the buffer, when known."""

    kind: str
    message: str
    line: int | None = None
    column: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "message": self.message,
            "line": self.line,
            "column": self.column,
        }


@dataclass
class Loaded:
    """The module's globals (possibly partial) and the error that stopped it, if any."""

    namespace: dict[str, Any]
    error: LoadError | None = None
    definitions: list[tuple[tuple[str, ...], Any]] = field(default_factory=list)
    builtins: BuiltinsChange = field(default_factory=BuiltinsChange)


def remember_baseline() -> None:
    """Record the modules and builtins present before any author code ran: the modules
    are never purged, the builtins are put back after each request."""
    global _baseline, _baseline_builtins
    _baseline = frozenset(sys.modules)
    _baseline_builtins = dict(builtins.__dict__)


def _builtins_change() -> BuiltinsChange:
    current = builtins.__dict__
    bound = {
        name: value
        for name, value in current.items()
        if _baseline_builtins.get(name, _ABSENT) is not value
    }
    deleted = tuple(name for name in _baseline_builtins if name not in current)
    return BuiltinsChange(bound, deleted)


def use_builtins(change: BuiltinsChange | None = None) -> None:
    """``builtins`` as before any author code ran, with ``change`` made to it: a module
    that rebinds ``print`` or ``open`` must not do so for every other module analysed."""
    if not _baseline_builtins:
        return  # no baseline recorded (the loader used outside the worker)
    current = builtins.__dict__
    for name in [name for name in current if name not in _baseline_builtins]:
        del current[name]
    current.update(_baseline_builtins)
    if change is not None:
        current.update(change.bound)
        for name in change.deleted:
            current.pop(name, None)


def _installed_roots() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    roots = {paths.get(key, "") for key in ("stdlib", "platstdlib", "purelib", "platlib")}
    roots |= {sys.prefix, sys.base_prefix, sys.exec_prefix}
    return tuple(os.path.realpath(root) + os.sep for root in roots if root)


def purge_workspace_modules() -> int:
    """Drop modules imported by earlier loads from outside the installation; count them."""
    installed = _installed_roots()
    dropped = 0
    for name in list(sys.modules):
        if name in _baseline or name.split(".")[0] in _KEEP_ROOTS:
            continue
        module = sys.modules.get(name)
        location = getattr(module, "__file__", None)
        if location and os.path.realpath(location).startswith(installed):
            continue
        sys.modules.pop(name, None)
        dropped += 1
    return dropped


def _module_name(path: str) -> str:
    stem = os.path.splitext(os.path.basename(path))[0]
    if stem.isidentifier() and stem not in sys.modules and stem != "__main__":
        return stem
    return _BUFFER_MODULE


def _error_line(error: BaseException, path: str) -> int | None:
    """The 0-based line of the innermost frame that runs the buffer itself."""
    line = None
    for frame in traceback.extract_tb(error.__traceback__):
        if frame.filename == path and frame.lineno is not None:
            line = frame.lineno - 1
    return line


def _describe(error: BaseException) -> str:
    return "".join(traceback.format_exception_only(type(error), error)).strip()


def execute(path: str, text: str, root: str | None) -> Loaded:
    """Run ``text`` as the module at ``path`` inside ``lenient_builds()``.

    The workspace ``root`` and the file's folder lead ``sys.path`` during the run. Every
    exception the module raises (``SystemExit`` included) becomes a :class:`LoadError`;
    the globals defined before it are kept, so definitions built earlier still count.
    """
    from skillkit_core.builder.skill import lenient_builds

    purge_workspace_modules()
    use_builtins()
    folder = os.path.dirname(path)
    name = _module_name(path)
    module = types.ModuleType(name)
    module.__file__ = path
    namespace = module.__dict__
    saved_path, saved_argv = list(sys.path), sys.argv
    # Process-wide state a module may change for itself, which leaked into the analysis
    # of every other document in this worker (a recursion limit of 50, warnings turned
    # into errors, a working folder of '/'): put back once it is loaded.
    saved_limit, saved_cwd = sys.getrecursionlimit(), _cwd()
    sys.path[:0] = [entry for entry in dict.fromkeys((folder, root)) if entry]
    sys.argv = [path]
    sys.modules[name] = module
    error: LoadError | None = None
    try:
        code = compile(text, path, "exec", dont_inherit=True)
        with lenient_builds(), warnings.catch_warnings():
            exec(code, namespace)
    except SyntaxError as problem:
        line = (problem.lineno or 1) - 1
        column = max(0, (problem.offset or 1) - 1)
        error = LoadError("syntax", f"SyntaxError: {problem.msg}", line, column)
    except SystemExit as stop:
        error = LoadError(
            "exit",
            f"the module called sys.exit({stop.code!r}) while being imported",
            _error_line(stop, path),
        )
    except BaseException as problem:  # KeyboardInterrupt too: the worker, in a session of
        # its own, gets no ^C from a terminal, so only the module raises it
        error = LoadError("exception", _describe(problem), _error_line(problem, path))
    finally:
        # Undone at once (what follows here uses builtins), made again for the request.
        change = _builtins_change()
        use_builtins()
        sys.path[:] = saved_path
        sys.argv = saved_argv
        sys.setrecursionlimit(saved_limit)
        if saved_cwd is not None and _cwd() != saved_cwd:
            with contextlib.suppress(OSError):
                os.chdir(saved_cwd)
    return Loaded(namespace, error, find_definitions(namespace), change)


def _cwd() -> str | None:
    try:
        return os.getcwd()
    except OSError:  # the folder was removed
        return None


def find_definitions(namespace: dict[str, Any]) -> list[tuple[tuple[str, ...], Any]]:
    """Built definitions among the module's globals, each with every name bound to it."""
    from skillkit_core.definitions import ModuleDefinition, ReferenceDefinition, SkillDefinition

    kinds = (SkillDefinition, ReferenceDefinition, ModuleDefinition)
    names: dict[int, list[str]] = {}
    values: dict[int, Any] = {}
    for key, value in list(namespace.items()):
        if key.startswith("__") or not isinstance(value, kinds):
            continue
        names.setdefault(id(value), []).append(key)
        values[id(value)] = value
    return [(tuple(names[ident]), values[ident]) for ident in names]
