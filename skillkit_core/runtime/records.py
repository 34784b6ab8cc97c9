"""Skill records and the registry that holds them: pure data and lookups, no reading.

A :class:`SkillRecord` is one servable skill as the runtime seed describes it; a
:class:`Registry` holds the served records by name and by skill path and re-reads a record
through the :data:`RecordReader` it was given. Finding and parsing skill folders is
:mod:`skillkit_core.runtime.registry`'s work (the reader it gives is its ``read_record``,
which needs the manifest parser and the linter); a built skill's ``scripts/run mcp`` gives
a reader of its own that uses what the build computed, so this module, and all the built
skill's server imports, stay free of YAML and the linter (see
:mod:`skillkit_core.protocol.built_record`).
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skillkit_core.runtime.errors import UnknownSkillError

# An unknown-skill error lists at most this many available names.
_LISTED_MAX = 20


@dataclass(frozen=True)
class SkillRecord:
    """One discovered skill: the registry entry the runtime seed calls ``SkillRecord``.

    ``location`` is the absolute path of the SKILL.md and ``root_dir`` its folder (both real
    paths, symlinks resolved); ``properties`` is the whole frontmatter made JSON-safe;
    ``digest`` is ``sha256:<hex>`` of the SKILL.md text; ``source_root`` is the root it was
    found under. ``skill_path`` locates the skill in the ``skill://`` namespace of the MCP
    skills extension: the folders between its root and the skill, then its name.
    """

    name: str
    description: str
    location: Path
    root_dir: Path
    properties: dict[str, Any]
    digest: str
    body: str
    source_root: Path
    skill_path: tuple[str, ...] = ()
    hidden: frozenset[str] = frozenset()
    """Names in the skill folder that are not served as its files (a built skill's
    ``scripts/`` and ``bin/``, its launcher and run bundle)."""

    def receipt(self) -> dict[str, Any]:
        """The record as the load/unload receipts list it."""
        return {
            "name": self.name,
            "location": str(self.location),
            "root_dir": str(self.root_dir),
            "digest": self.digest,
            "properties": self.properties,
        }


@dataclass(frozen=True)
class RegistryWarning:
    """Something discovery skipped or noticed, with the file it concerns."""

    path: str
    message: str

    def __str__(self) -> str:
        # Folder names may hold control characters: printed raw they drive the terminal.
        from skillkit_core.safe_text import escape_controls

        return escape_controls(f"{self.path}: {self.message}", line_breaks=True)


RecordReader = Callable[[Path, Path], SkillRecord | RegistryWarning]
"""``read(folder, source_root)``: the record of the skill in ``folder`` (found under
``source_root``), or a :class:`RegistryWarning` saying why it is not a valid skill."""


class FileDigests:
    """``sha256:<hex>`` digests of files' raw bytes, cached while a file's size, change time
    and inode stay the same (an edited file gets a new digest on the next look)."""

    def __init__(self) -> None:
        self._known: dict[Path, tuple[tuple[int, int, int, int], str, int]] = {}

    def of(self, real: Path) -> str:
        """The digest of the regular file at the real path ``real`` (``OSError`` if gone)."""
        return self.sized(real)[0]

    def sized(self, real: Path) -> tuple[str, int]:
        """The digest and the size in bytes of the file at ``real``, both of the same
        bytes read (``OSError`` if gone)."""
        info = real.stat()
        stamp = (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)
        known = self._known.get(real)
        if known is not None and known[0] == stamp:
            return known[1], known[2]
        data = real.read_bytes()
        digest = "sha256:" + hashlib.sha256(data).hexdigest()
        self._known[real] = (stamp, digest, len(data))
        return digest, len(data)


@dataclass(frozen=True)
class Registry:
    """Discovered skills in discovery order, plus what discovery had to say.

    ``read`` reads a skill folder again (:meth:`reread`, :meth:`refresh`, and the skills
    extension's nested skills): discovery gives the manifest-parsing reader, a built
    skill's server one that answers from its build's data.
    """

    records: tuple[SkillRecord, ...]
    warnings: tuple[RegistryWarning, ...] = ()
    homonyms: tuple[SkillRecord, ...] = ()
    digests: FileDigests = field(default_factory=lambda: FileDigests(), repr=False, compare=False)
    read: RecordReader = field(kw_only=True, repr=False, compare=False)
    _by_name: dict[str, SkillRecord] = field(init=False, repr=False, compare=False)
    _by_path: dict[tuple[str, ...], SkillRecord] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_name", {record.name: record for record in self.records})
        object.__setattr__(self, "_by_path", {record.skill_path: record for record in self.served})

    def __len__(self) -> int:
        return len(self.records)

    def __iter__(self) -> Iterator[SkillRecord]:
        return iter(self.records)

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    @property
    def names(self) -> list[str]:
        """Skill names in discovery order."""
        return [record.name for record in self.records]

    @property
    def served(self) -> tuple[SkillRecord, ...]:
        """Every skill the MCP skills extension serves: the records, then the homonyms."""
        return self.records + self.homonyms

    def at_path(self, skill_path: tuple[str, ...]) -> SkillRecord | None:
        """The record whose ``skill_path`` is ``skill_path``, or ``None``."""
        return self._by_path.get(skill_path)

    @property
    def deepest(self) -> int:
        """The most segments a served skill's path has."""
        return max(map(len, self._by_path), default=0)

    def get(self, name: str) -> SkillRecord:
        """The record called ``name``; an :class:`UnknownSkillError` lists close names."""
        record = self._by_name.get(name)
        if record is None:
            raise UnknownSkillError(self.unknown_message([name]))
        return record

    def unknown_message(self, names: Sequence[str]) -> str:
        """Say that ``names`` are not skills, with close matches and what is available."""
        import difflib

        hints = []
        for name in names:
            close = difflib.get_close_matches(str(name), self.names, n=3)
            if close:
                hints.append(f"for '{name}' did you mean {', '.join(repr(c) for c in close)}?")
        listing = ", ".join(self.names[:_LISTED_MAX]) or "none"
        if len(self.names) > _LISTED_MAX:
            listing += f", and {len(self.names) - _LISTED_MAX} more"
        quoted = ", ".join(f"'{name}'" for name in names)
        noun = "skill named" if len(names) == 1 else "skills named"
        hint = f"; {' '.join(hints)}" if hints else ""
        return f"no {noun} {quoted}{hint} (available: {listing})"

    def reread(self, name: str) -> SkillRecord:
        """Read ``name``'s SKILL.md again, so an edited skill is picked up on (re)load.

        Raises :class:`UnknownSkillError` when the file has since become invalid or now
        declares another name; the registry itself is not changed.
        """
        return self.refresh(self.get(name))

    def refresh(self, known: SkillRecord) -> SkillRecord:
        """Read ``known``'s SKILL.md again (see :meth:`reread`); homonyms too."""
        name = known.name
        outcome = self.read(known.root_dir, known.source_root)
        if isinstance(outcome, RegistryWarning):
            raise UnknownSkillError(f"skill '{name}' can no longer be loaded: {outcome}")
        if outcome.name != name:
            raise UnknownSkillError(
                f"skill '{name}' can no longer be loaded: {outcome.location} now declares "
                f"name '{outcome.name}'"
            )
        return dataclasses.replace(outcome, skill_path=known.skill_path, hidden=known.hidden)


def json_safe(value: Any) -> Any:
    """``value`` with every YAML-only type (dates, sets, non-finite floats...) made JSON data."""
    if isinstance(value, dict):
        return {str(key): json_safe(item) for key, item in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [json_safe(item) for item in value]
    if isinstance(value, bool | int | str) or value is None:
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return str(value)
