"""Load a skill definition from an ENTRY: ``path/to/file.py`` or ``path/to/file.py:attr``.

The file is imported as a module with its folder on ``sys.path`` (so it can import its
neighbours). Without ``:attr`` the entry is the module's one top-level built definition
that no other definition of the module uses as a sub-skill. Light on purpose: a built
``scripts/run`` goes through here on every call.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from skillkit_core.definitions import ReferenceDefinition, SkillDefinition
from skillkit_core.errors import SkillkitError

Definition = SkillDefinition | ReferenceDefinition


class EntryError(SkillkitError):
    """An ENTRY could not be loaded: missing file, import failure, no or several skills."""

    code = "entry"


def split_entry(entry: str) -> tuple[str, str | None]:
    """``"dir/file.py:attr"`` → ``("dir/file.py", "attr")``; no attr → ``(entry, None)``."""
    path, colon, attr = entry.rpartition(":")
    if colon and path and attr and attr.isidentifier():
        return path, attr
    return entry, None


def load_entry(entry: str) -> Definition:
    """The definition ENTRY names; ``EntryError`` with a clear message otherwise."""
    if not isinstance(entry, str) or not entry.strip():
        raise EntryError("no ENTRY given: pass path/to/skill.py or path/to/skill.py:attr")
    path_text, attr = split_entry(entry)
    module = import_file(Path(path_text))
    if attr is not None:
        return _named(module, attr, path_text)
    return _only_definition(module, path_text)


def import_file(path: Path) -> ModuleType:
    """Import ``path`` as a module (its folder first on ``sys.path``)."""
    import importlib.util

    if not path.is_file():
        raise EntryError(f"cannot load {path}: {_not_a_file(path)}")
    path = path.resolve()
    name = _module_name(path)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise EntryError(f"cannot load {path}: not a Python file (expected a .py file)")
    module = importlib.util.module_from_spec(spec)
    folder = str(path.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    # Registered before running so that dataclasses and pydantic can resolve the module.
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException as error:
        sys.modules.pop(name, None)
        if isinstance(error, KeyboardInterrupt):
            raise
        raise EntryError(f"cannot load {path}: {_describe(error, path)}") from None
    return module


def _not_a_file(path: Path) -> str:
    """Why ``path`` (not a regular file) cannot be loaded."""
    try:
        path.stat()
    except OSError as error:
        if path.is_symlink() and isinstance(error, FileNotFoundError):
            return "a symbolic link to a file that does not exist"
        if isinstance(error, FileNotFoundError):
            return "no such file"
        return (error.strerror or type(error).__name__).lower()
    if path.is_dir():
        return "it is a folder; name the .py file in it"
    return "not a regular file"


def _module_name(path: Path) -> str:
    """The file's stem when that is free (so its neighbours can import it by name),
    else a private name that cannot shadow a loaded module."""
    stem = path.stem
    loaded = sys.modules.get(stem)
    if stem.isidentifier() and (
        loaded is None or os.path.abspath(getattr(loaded, "__file__", "") or "") == str(path)
    ):
        return stem
    return f"_skillkit_entry_{abs(hash(str(path))):x}"


def _describe(error: BaseException, path: Path) -> str:
    """``Type: message (file, line N)`` for an error raised while importing ``path``."""
    if isinstance(error, SyntaxError):
        where = f"{error.filename or path}, line {error.lineno}"
        return f"SyntaxError: {error.msg} ({where})"
    from skillkit_core.raised import import_failure

    if isinstance(error, SystemExit):
        return import_failure(error)
    import traceback

    frames = traceback.extract_tb(error.__traceback__)
    own = [f for f in frames if f.filename == str(path)]
    frame = own[-1] if own else (frames[-1] if frames else None)
    where = f" ({frame.filename}, line {frame.lineno})" if frame is not None else ""
    if isinstance(error, SkillkitError):
        return f"{type(error).__name__}: {error.message}{where}"
    return f"{import_failure(error)}{where}"


def _definitions(module: ModuleType) -> dict[str, Definition]:
    """Top-level built definitions by attribute name (aliases of one object kept once)."""
    found: dict[str, Definition] = {}
    seen: set[int] = set()
    for attr, value in vars(module).items():
        if attr.startswith("__") or not isinstance(value, SkillDefinition | ReferenceDefinition):
            continue
        if id(value) not in seen:
            seen.add(id(value))
            found[attr] = value
    return found


def _named(module: ModuleType, attr: str, path: str) -> Definition:
    if not hasattr(module, attr):
        raise EntryError(
            f"{path} has no attribute '{attr}' (definitions: {_listing(_definitions(module))})"
        )
    value = getattr(module, attr)
    if isinstance(value, SkillDefinition | ReferenceDefinition):
        return value
    raise EntryError(f"{path}:{attr} is {_kind(value)}, not a built skill{_build_hint(value)}")


def _only_definition(module: ModuleType, path: str) -> Definition:
    definitions = _definitions(module)
    used = {
        id(sub.definition)
        for definition in definitions.values()
        if isinstance(definition, SkillDefinition)
        for sub in definition.subskills
    }
    candidates = {a: d for a, d in definitions.items() if id(d) not in used}
    if len(candidates) > 1:
        own = {a: d for a, d in candidates.items() if _same_file(d.source_file, path)}
        candidates = own or candidates
    if len(candidates) == 1:
        return next(iter(candidates.values()))
    if not candidates:
        builders = [a for a, v in vars(module).items() if _build_hint(v) and not a.startswith("_")]
        hint = f"; {', '.join(builders)} still need .build()" if builders else ""
        raise EntryError(f"{path} defines no built skill at top level{hint}")
    raise EntryError(
        f"{path} defines several skills ({_listing(candidates)}); name one as {path}:ATTR"
    )


def _same_file(source: str | None, path: str) -> bool:
    return bool(source) and os.path.realpath(source) == os.path.realpath(path)


def _listing(definitions: dict[str, Definition]) -> str:
    return ", ".join(f"{attr} ('{d.name}')" for attr, d in definitions.items()) or "none"


def _kind(value: Any) -> str:
    return f"a {type(value).__name__}"


def _build_hint(value: Any) -> str:
    if type(value).__name__ in ("SkillBuilder", "ReferenceBuilder") and hasattr(value, "build"):
        return "; call .build() on it"
    return ""
