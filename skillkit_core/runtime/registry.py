"""The skill registry: every valid skill folder under the given roots, by name.

A root is either a skill folder itself (it holds a ``SKILL.md``) or a folder whose
sub-folders, down to ``max_depth`` levels, hold skills. The walk is breadth-first in sorted
order, stops at a skill folder, skips hidden folders, ``node_modules`` and ``__pycache__``,
follows a symlinked folder only while it stays inside the root's real path (once: a cycle
is walked only once), and reads each SKILL.md with the manifest module. A SKILL.md that is
a symlink leading out of the root is not served either: the skill's folder, whose scripts
may run, would lie outside what the operator named.

Skills nest (SEP-2640, "Nested skills"): once the roots are walked, each served skill's
folder is searched the same way, down to ``max_depth`` levels below it, for skills of its
own, except in its ``scripts/``, ``references/`` and ``assets/`` (an example SKILL.md in
``assets/`` is material, not a skill). A nested skill's folder must carry its name; its
skill path is the enclosing skill's, then the folders down to it. It is a skill like any
other (the tools serve it by name unless the name is taken), while its files stay files of
the enclosing skill too.

Problems never stop discovery: a SKILL.md the manifest parser finds a problem in, one that
fails the linter's serving rules (:data:`SERVING_RULES`), or a skill path already taken (the
same folders under two roots) is skipped and reported as a :class:`RegistryWarning` naming
the file and the problem; the earlier root wins. A skill whose name is taken but whose
skill path (see :class:`SkillRecord`) is not, such as ``acme/billing/refunds`` beside
``acme/support/refunds``, is kept as a homonym: the tools, which name skills, do not serve
it, the MCP skills extension does.
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import math
import os
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillkit_core.runtime.errors import RegistryError, UnknownSkillError
from skillkit_core.runtime.paths import is_inside

if TYPE_CHECKING:
    from skillkit_core.manifest.folder import SkillFolder
    from skillkit_core.manifest.parse import ParsedSkillMd

DEFAULT_MAX_DEPTH = 3
# Lint rules whose errors make a skill unservable (ids of skillkit_core.lint.registry).
SERVING_RULES = ("required-field", "name-format", "description-length")
_SKIPPED_FOLDERS = frozenset({"node_modules", "__pycache__"})
# The Agent Skills spec's folders for a skill's scripts, documentation and static files: a
# SKILL.md in them is the skill's own material (a template in assets/), not a skill it
# publishes. It stays a file of the skill, and skills/get still answers for it.
_MATERIAL_FOLDERS = frozenset({"scripts", "references", "assets"})
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
        return f"{self.path}: {self.message}"


class FileDigests:
    """``sha256:<hex>`` digests of files' raw bytes, cached while a file's size, change time
    and inode stay the same (an edited file gets a new digest on the next look)."""

    def __init__(self) -> None:
        self._known: dict[Path, tuple[tuple[int, int, int, int], str]] = {}

    def of(self, real: Path) -> str:
        """The digest of the regular file at the real path ``real`` (``OSError`` if gone)."""
        info = real.stat()
        stamp = (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)
        known = self._known.get(real)
        if known is not None and known[0] == stamp:
            return known[1]
        digest = "sha256:" + hashlib.sha256(real.read_bytes()).hexdigest()
        self._known[real] = (stamp, digest)
        return digest


@dataclass(frozen=True)
class Registry:
    """Discovered skills in discovery order, plus what discovery had to say."""

    records: tuple[SkillRecord, ...]
    warnings: tuple[RegistryWarning, ...] = ()
    homonyms: tuple[SkillRecord, ...] = ()
    digests: FileDigests = field(default_factory=lambda: FileDigests(), repr=False, compare=False)
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
        outcome = read_record(known.root_dir, known.source_root)
        if isinstance(outcome, RegistryWarning):
            raise UnknownSkillError(f"skill '{name}' can no longer be loaded: {outcome}")
        if outcome.name != name:
            raise UnknownSkillError(
                f"skill '{name}' can no longer be loaded: {outcome.location} now declares "
                f"name '{outcome.name}'"
            )
        return dataclasses.replace(outcome, skill_path=known.skill_path, hidden=known.hidden)


def discover_skills(roots: Sequence[str | Path], *, max_depth: int = DEFAULT_MAX_DEPTH) -> Registry:
    """Build a :class:`Registry` from ``roots`` (earlier roots win clashes).

    The skills found walking the roots come first, in root order; then the nested skills
    (see :func:`_nested_folders`), so that a nested skill never takes a name or a skill
    path from a skill a root holds at its top. Raises :class:`RegistryError` only for a
    root that cannot be used at all (missing, or neither a folder nor a SKILL.md file);
    everything else becomes a warning.
    """
    if max_depth < 0:
        raise RegistryError(f"the discovery depth must be 0 or more, not {max_depth}")
    found = _Discovery()
    for root in roots:
        root_path = _root_folder(Path(root))
        for folder in _walk(root_path, max_depth, found.warnings):
            outcome = read_record(folder, root_path)
            if isinstance(outcome, RegistryWarning):
                found.warnings.append(outcome)
                continue
            if found.knows(outcome):
                continue  # the same skill reached again through overlapping roots
            _note_folder_name(folder, outcome, found.warnings)
            found.add(outcome, _skill_path(folder, root_path, outcome))
    # Breadth-first over the served skills, nested ones included: a skill nested in a
    # nested skill is found when its enclosing one is searched.
    searched = 0
    while searched < len(found.served):
        enclosing = found.served[searched]
        searched += 1
        for folder in _nested_folders(enclosing, max_depth, found.warnings):
            outcome = read_record(folder, enclosing.root_dir)
            if isinstance(outcome, RegistryWarning):
                found.warnings.append(outcome)
                continue
            if found.knows(outcome):
                continue  # also under a root of its own, found there first
            if outcome.name != folder.name:
                # SEP-2640, Nested skills: a nested skill's folder name is its name, the
                # last segment of its skill path.
                found.warnings.append(
                    RegistryWarning(
                        str(outcome.location),
                        f"skipped: a nested skill's folder must be named after it, and "
                        f"'{folder.name}' declares name '{outcome.name}'",
                    )
                )
                continue
            relative = folder.relative_to(enclosing.root_dir).parts
            found.add(outcome, enclosing.skill_path + relative)
    return Registry(tuple(found.records.values()), tuple(found.warnings), tuple(found.homonyms))


class _Discovery:
    """What discovery has found so far, and the rules for adding a skill to it."""

    def __init__(self) -> None:
        self.records: dict[str, SkillRecord] = {}
        self.homonyms: list[SkillRecord] = []
        self.served: list[SkillRecord] = []
        self.warnings: list[RegistryWarning] = []
        self._files: set[Path] = set()
        self._paths: dict[tuple[str, ...], SkillRecord] = {}

    def knows(self, record: SkillRecord) -> bool:
        """Whether ``record``'s SKILL.md was added already (or dropped for a clash)."""
        return record.location in self._files

    def add(self, record: SkillRecord, skill_path: tuple[str, ...]) -> None:
        """Add ``record`` (a SKILL.md not seen yet, see :meth:`knows`) at ``skill_path``,
        unless the path is taken.

        A skill path already served (the same folders under two roots, each holding a
        skill of that name) goes to the earlier skill: the later one is dropped with a
        warning, so a URI never changes meaning with the roots given after it. A name
        taken at another path makes a homonym: the tools, which name skills, do not serve
        it, the MCP skills extension does.
        """
        self._files.add(record.location)
        record = dataclasses.replace(record, skill_path=skill_path)
        uri = f"skill://{'/'.join(skill_path)}/SKILL.md"
        owner = self._paths.get(skill_path)
        if owner is not None:
            self.warnings.append(
                RegistryWarning(
                    str(record.location),
                    f"skipped: skill name '{record.name}' is already taken by "
                    f"{owner.location} (earlier roots win), which is served as {uri}",
                )
            )
            return
        self._paths[skill_path] = record
        self.served.append(record)
        earlier = self.records.get(record.name)
        if earlier is None:
            self.records[record.name] = record
            return
        self.homonyms.append(record)
        self.warnings.append(
            RegistryWarning(
                str(record.location),
                f"skill name '{record.name}' is already taken by {earlier.location}, so the "
                f"tools do not serve it; the MCP skills extension serves it as {uri}",
            )
        )


def read_record(
    folder: Path, source_root: Path, parsed: ParsedSkillMd | None = None
) -> SkillRecord | RegistryWarning:
    """Read one skill folder into a record, or say why it is not a valid skill
    (``parsed``: its SKILL.md as already parsed, e.g. from an editor's unsaved text)."""
    from skillkit_core.manifest.folder import SkillFolder
    from skillkit_core.manifest.parse import SKILL_MD, read_skill_md
    from skillkit_core.manifest.spec import normalized

    if parsed is None:
        parsed = read_skill_md(folder)
    where = parsed.path or str(folder / SKILL_MD)
    if parsed.problems:
        problem = parsed.problems[0]
        line = f" (line {problem.range.line + 1})" if parsed.text else ""
        return RegistryWarning(where, f"skipped: {problem.message}{line}")
    target = SkillFolder(folder, parsed)
    problem_text = serving_problem(target)
    if problem_text is not None:
        return RegistryWarning(where, f"skipped: {problem_text}")
    name, description = target.text_value("name"), target.text_value("description")
    assert name is not None and description is not None  # guaranteed by required-field
    location = Path(os.path.realpath(where))
    if not location.is_relative_to(os.path.realpath(source_root)):
        return RegistryWarning(where, f"skipped: it leads to {location}, outside the root")
    text = ("\ufeff" if parsed.had_bom else "") + parsed.text
    return SkillRecord(
        name=normalized(name),
        description=description.strip(),
        location=location,
        root_dir=location.parent,
        properties=json_safe(parsed.frontmatter),
        digest="sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest(),
        body=parsed.body,
        source_root=source_root,
    )


def serving_problem(folder: SkillFolder) -> str | None:
    """Why the runtime cannot serve ``folder``, or ``None``.

    Decided by the linter's own rules for what the runtime needs (:data:`SERVING_RULES`):
    a ``name`` and a ``description`` present, textual and well-formed. Everything else the
    linter reports is advice for the author and does not stop a skill from being served.
    """
    from skillkit_core.lint.registry import get_rule

    for rule_id in SERVING_RULES:
        for diagnostic in get_rule(rule_id).run(folder):
            if diagnostic.severity == "error":
                return f"{diagnostic.message} [{rule_id}]"
    return None


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


def _root_folder(root: Path) -> Path:
    root = Path(os.path.abspath(root))
    if root.is_file() and root.name.lower() == "skill.md":
        return root.parent
    if not root.exists():
        raise RegistryError(f"skill root {root} does not exist")
    if not root.is_dir():
        raise RegistryError(f"skill root {root} is neither a folder nor a SKILL.md file")
    return root


def _walk(root: Path, max_depth: int, warnings: list[RegistryWarning]) -> Iterator[Path]:
    """Skill folders under ``root``, breadth-first, each real folder visited once."""
    from skillkit_core.manifest.parse import find_skill_md

    real_root = os.path.realpath(root)
    visited: set[str] = set()
    queue: deque[tuple[Path, int]] = deque([(root, 0)])
    while queue:
        folder, depth = queue.popleft()
        real = os.path.realpath(folder)
        if real in visited:
            continue
        visited.add(real)
        if find_skill_md(folder) is not None:
            yield folder
            continue
        if depth < max_depth:
            children = _subfolders(folder, real_root, warnings)
            queue.extend((child, depth + 1) for child in children)


def _subfolders(
    folder: Path, real_root: str, warnings: list[RegistryWarning], *, boundary: str = "the root"
) -> list[Path]:
    try:
        entries = list(os.scandir(folder))
    except OSError as error:
        warnings.append(RegistryWarning(str(folder), f"not searched: {error.strerror or error}"))
        return []
    children = []
    for entry in entries:
        if entry.name.startswith(".") or entry.name in _SKIPPED_FOLDERS:
            continue
        try:
            if not entry.is_dir():
                continue
            if entry.is_symlink() and not is_inside(Path(entry.path), Path(real_root)):
                target = os.path.realpath(entry.path)
                warnings.append(
                    RegistryWarning(
                        entry.path,
                        f"not searched: the symlink leads to {target}, outside {boundary}",
                    )
                )
                continue
            children.append(Path(entry.path))  # a cycle is cut by the visited set
        except OSError:
            continue  # a dangling or unreadable entry is simply not a skill folder
    return sorted(children)


def _nested_folders(
    enclosing: SkillRecord, max_depth: int, warnings: list[RegistryWarning]
) -> Iterator[Path]:
    """Folders below ``enclosing``'s folder, down to ``max_depth`` levels, that hold a
    SKILL.md: the candidates for nested skills, breadth-first in sorted order.

    The walk follows the discovery walk's rules inside the skill's real folder (hidden
    folders, ``node_modules`` and ``__pycache__`` skipped, symlinks followed while they stay
    inside the skill, each real folder once, no descent into a folder holding a SKILL.md)
    and leaves out the skill's own material: its hidden names and the Agent Skills spec's
    ``scripts/``, ``references/`` and ``assets/`` (:data:`_MATERIAL_FOLDERS`).
    """
    from skillkit_core.manifest.parse import find_skill_md

    real_root = str(enclosing.root_dir)
    left_out = _MATERIAL_FOLDERS | enclosing.hidden
    where = f"skill '{enclosing.name}'"
    top = _subfolders(enclosing.root_dir, real_root, warnings, boundary=where)
    queue: deque[tuple[Path, int]] = deque(
        (child, 1) for child in top if child.name not in left_out and max_depth >= 1
    )
    visited = {real_root}
    while queue:
        folder, depth = queue.popleft()
        real = os.path.realpath(folder)
        if real in visited:
            continue
        visited.add(real)
        if find_skill_md(folder) is not None:
            yield folder
        elif depth < max_depth:
            children = _subfolders(folder, real_root, warnings, boundary=where)
            queue.extend((child, depth + 1) for child in children)


def _skill_path(folder: Path, root: Path, record: SkillRecord) -> tuple[str, ...]:
    """The folders from ``root`` down to the skill's parent, then the skill's name."""
    prefix = folder.relative_to(root).parts[:-1] if folder != root else ()
    return (*prefix, record.name)


def _note_folder_name(folder: Path, record: SkillRecord, warnings: list[RegistryWarning]) -> None:
    """The spec wants name == folder name; the runtime still serves the skill by its name."""
    if record.name not in (folder.name, record.root_dir.name):
        warnings.append(
            RegistryWarning(
                str(record.location),
                f"name '{record.name}' differs from its folder name '{folder.name}' "
                "(served under its name anyway)",
            )
        )
