"""Reading ``references/`` and ``assets/`` files safely, lazily and once."""

from __future__ import annotations

import os
from pathlib import Path

from skillkit_core.errors import ReferenceLoadError


class ReferenceLoader:
    """Loads files below a skill folder's ``references/`` (``load``) and ``assets/``
    (``asset``). Absolute paths, ``..`` escapes and symlinks leading outside (of the folder, or
    of the skill folder for ``references/`` or ``assets/`` itself) are refused."""

    def __init__(self, root: str | os.PathLike[str] | None) -> None:
        self.root = Path(root) if root is not None else None
        self._cache: dict[tuple[str, str], str] = {}

    @classmethod
    def beside(cls, source_file: str | None) -> ReferenceLoader:
        """The skill folder is the one holding the file that defined the skill; a built skill
        sets ``SKILL_DIR`` instead."""
        skill_dir = os.environ.get("SKILL_DIR")
        if skill_dir:
            return cls(skill_dir)
        return cls(Path(source_file).resolve().parent if source_file else None)

    def load(self, name: str) -> str:
        """The text of ``references/<name>``."""
        return self._read("references", name)

    def asset(self, name: str) -> str:
        """The text of ``assets/<name>``."""
        return self._read("assets", name)

    def path(self, folder: str, name: str) -> Path:
        """The checked absolute path of ``<folder>/<name>``."""
        if self.root is None:
            raise ReferenceLoadError(
                f"cannot read {folder}/{name}: this skill has no folder (it was not defined in "
                "a file); pass refs= to the engine or run_skill"
            )
        if not isinstance(name, str) or not name or "\x00" in name:
            raise ReferenceLoadError(f"invalid {folder} path {name!r}")
        if os.path.isabs(name) or name.startswith(("/", "\\")) or Path(name).drive:
            raise ReferenceLoadError(f"{folder} path '{name}' must be relative to {folder}/")
        if ".." in Path(name).parts:
            raise ReferenceLoadError(f"{folder} path '{name}' must not contain '..'")
        root = self.root.resolve()
        base = (self.root / folder).resolve()
        if not base.is_relative_to(root):
            raise ReferenceLoadError(
                f"cannot read {folder}/{name}: {self.root / folder} resolves to {base}, outside "
                f"the skill folder {root} (a {folder}/ symlink leading out of the skill is refused)"
            )
        target = (base / name).resolve()
        if not (target.is_relative_to(base) and target.is_relative_to(root)):
            raise ReferenceLoadError(
                f"{folder} path '{name}' resolves outside {folder}/ (through a symlink?)"
            )
        return target

    def _read(self, folder: str, name: str) -> str:
        key = (folder, name)
        if key not in self._cache:
            target = self.path(folder, name)
            try:
                self._cache[key] = target.read_text(encoding="utf-8")
            except FileNotFoundError:
                raise ReferenceLoadError(
                    f"{folder} file '{name}' not found; expected it at {target}"
                ) from None
            except (OSError, UnicodeDecodeError) as error:
                raise ReferenceLoadError(f"cannot read {folder} file '{name}': {error}") from None
        return self._cache[key]


class MappingReferences:
    """References from a dict (tests, simulations): ``{"name.md": "text"}``."""

    def __init__(self, files: dict[str, str], assets: dict[str, str] | None = None) -> None:
        self._files = dict(files)
        self._assets = dict(assets or {})

    def load(self, name: str) -> str:
        try:
            return self._files[name]
        except KeyError:
            raise ReferenceLoadError(f"references file '{name}' not found") from None

    def asset(self, name: str) -> str:
        try:
            return self._assets[name]
        except KeyError:
            raise ReferenceLoadError(f"assets file '{name}' not found") from None
