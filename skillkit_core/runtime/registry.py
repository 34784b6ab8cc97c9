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

The records and the :class:`Registry` themselves live in
:mod:`skillkit_core.runtime.records` (re-exported here), which reads nothing: a registry
re-reads a skill with the reader discovery gives it, :func:`read_record`. A built skill's
server, which must not carry the manifest parser and the linter, uses that module alone.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
from collections import deque
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillkit_core.runtime.errors import RegistryError
from skillkit_core.runtime.paths import is_inside
from skillkit_core.runtime.records import (
    FileDigests,
    RecordReader,
    Registry,
    RegistryWarning,
    SkillRecord,
    json_safe,
)

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

__all__ = [
    "DEFAULT_MAX_DEPTH",
    "SERVING_RULES",
    "FileDigests",
    "RecordReader",
    "Registry",
    "RegistryWarning",
    "SkillRecord",
    "discover_skills",
    "json_safe",
    "read_record",
    "serving_problem",
]


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
            if _path_unshowable(outcome, found.warnings):
                continue
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
            if found.knows(outcome) or _path_unshowable(outcome, found.warnings):
                continue  # found under a root of its own first, or not to be shown
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
    return Registry(
        tuple(found.records.values()),
        tuple(found.warnings),
        tuple(found.homonyms),
        read=read_record,
    )


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
        properties=json_safe(frontmatter_as_hosts_read(parsed)),
        digest="sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest(),
        body=parsed.body,
        source_root=source_root,
    )


def frontmatter_as_hosts_read(parsed: ParsedSkillMd) -> Any:
    """The frontmatter typed by YAML 1.2's core schema, as the hosts and the MCP clients
    that verify ``skills/list`` read it (:mod:`skillkit_core.manifest.yaml12`); the
    parser's YAML 1.1 mapping where the two cannot differ: no digit, ``<<`` or ``=`` in
    the text and no value other than text (a 1.1 boolean such as ``yes``)."""
    if not _MAY_DIFFER.search(parsed.yaml_text) and _all_text(parsed.frontmatter):
        return parsed.frontmatter
    import yaml

    from skillkit_core.manifest.yaml12 import load_core12

    try:
        read = load_core12(parsed.yaml_text)
    except (yaml.YAMLError, ValueError, RecursionError):
        return parsed.frontmatter
    return read if isinstance(read, dict) else parsed.frontmatter


_MAY_DIFFER = re.compile(r"[0-9]|<<|=")


def _all_text(value: Any) -> bool:
    if isinstance(value, dict):
        return all(_all_text(item) for item in value.values())
    if isinstance(value, list):
        return all(_all_text(item) for item in value)
    return value is None or isinstance(value, str)


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
    """Skill folders under ``root``, breadth-first, each real folder visited once; then a
    warning when a skill lies below the depth (see :func:`_skill_too_deep`)."""
    real_root = os.path.realpath(root)
    stopped: list[Path] = []
    queue = deque([(root, 0)])
    yield from _breadth_first(queue, set(), real_root, max_depth, warnings, stopped=stopped)
    deeper = _skill_too_deep(stopped, real_root)
    if deeper is not None:
        folder, levels = deeper
        below = max_depth + levels
        warnings.append(
            RegistryWarning(
                str(folder),
                f"not served: a skill {below} level{'s' if below != 1 else ''} below {root}, "
                f"deeper than the discovery depth ({max_depth}); raise --depth to serve it "
                "(and any others that deep)",
            )
        )


# How much a search below the discovery depth looks at: a hint, not a second walk.
_DEEPER_LEVELS = 4
_DEEPER_FOLDERS = 500


def _skill_too_deep(stopped: list[Path], real_root: str) -> tuple[Path, int] | None:
    """The first skill folder (and how many levels below) under the folders the walk
    stopped at, searching a few levels and a few hundred folders: a skill the depth left
    out would otherwise go unserved without a word."""
    from skillkit_core.manifest.parse import find_skill_md

    queue = deque((folder, 0) for folder in stopped)  # no skill themselves
    seen = 0
    while queue and seen < _DEEPER_FOLDERS:
        folder, levels = queue.popleft()
        seen += 1
        if levels and find_skill_md(folder) is not None:
            return folder, levels
        if levels < _DEEPER_LEVELS:
            # Its warnings (unreadable folders, links out) are about nothing served: dropped.
            children = _subfolders(folder, real_root, [])
            queue.extend((child, levels + 1) for child in children)
    return None


def _breadth_first(
    queue: deque[tuple[Path, int]],
    visited: set[str],
    real_root: str,
    max_depth: int,
    warnings: list[RegistryWarning],
    boundary: str = "the root",
    stopped: list[Path] | None = None,
) -> Iterator[Path]:
    """The folders holding a SKILL.md reached from ``queue`` (``(folder, depth)`` pairs),
    in breadth-first order: each real folder once, none entered below a skill folder or
    deeper than ``max_depth``, symlinks followed only while inside ``real_root``; the
    folders not entered for the depth go to ``stopped``."""
    from skillkit_core.manifest.parse import find_skill_md

    while queue:
        folder, depth = queue.popleft()
        real = os.path.realpath(folder)
        if real in visited:
            continue
        visited.add(real)
        if find_skill_md(folder) is not None:
            yield folder
        elif depth < max_depth:
            children = _subfolders(folder, real_root, warnings, boundary=boundary)
            queue.extend((child, depth + 1) for child in children)
        elif stopped is not None:
            stopped.append(folder)


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
    real_root = str(enclosing.root_dir)
    left_out = _MATERIAL_FOLDERS | enclosing.hidden
    where = f"skill '{enclosing.name}'"
    top = _subfolders(enclosing.root_dir, real_root, warnings, boundary=where)
    queue: deque[tuple[Path, int]] = deque(
        (child, 1) for child in top if child.name not in left_out and max_depth >= 1
    )
    yield from _breadth_first(queue, {real_root}, real_root, max_depth, warnings, where)


def _skill_path(folder: Path, root: Path, record: SkillRecord) -> tuple[str, ...]:
    """The folders from ``root`` down to the skill's parent, then the skill's name."""
    prefix = folder.relative_to(root).parts[:-1] if folder != root else ()
    return (*prefix, record.name)


_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def _path_unshowable(record: SkillRecord, warnings: list[RegistryWarning]) -> bool:
    """Whether the skill's path holds control characters: ``<location>`` cannot carry
    them (XML forbids most), so an agent would be shown a path that does not exist."""
    if _CONTROLS.search(str(record.location)) is None:
        return False
    warnings.append(
        RegistryWarning(str(record.location), "skipped: its path holds control characters")
    )
    return True


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
