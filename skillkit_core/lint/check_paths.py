"""``skillkit check PATH...``: turn paths into targets by kind, check each, summarise.

A target is either a SKILL.md folder (kind ``manifest``) or a Python skill entry
(kind ``workflow``: ``file.py`` or ``file.py:attr``). :func:`collect_targets` sorts the
command line's paths into targets; :data:`CHECKERS` maps each kind to the function that
checks one target. Python entries are collected already; wiring their checker is adding
one entry to :data:`CHECKERS` (and, for directory walks, filling in
:func:`find_workflow_files`).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Sequence

from skillkit_core import path_text
from skillkit_core.errors import UsageError
from skillkit_core.lint.config import LintConfig
from skillkit_core.lint.diagnostic import (
    UNREADABLE,
    Fix,
    LintDiagnostic,
    SourceRange,
    TextEdit,
)
from skillkit_core.named_tuple import NamedTuple

TYPE_CHECKING = False

if TYPE_CHECKING:
    from os import PathLike
    from pathlib import Path
    from typing import Literal

    from skillkit_core.lint.check_folder import FolderReport
    from skillkit_core.lint.parallel import Helpers, Work
    from skillkit_core.lint.result_cache import ResultCache
    from skillkit_core.manifest.compat import HostVerdict

    TargetKind = Literal["manifest", "workflow"]
# Findings about the command line's paths rather than a skill (no rule of the registry
# makes them; configuration does not filter them).
NO_SKILL = "no-skill"
# The exit code when an argument held no skill and nothing worse was found.
NO_SKILL_EXIT = 3
_MANIFEST_NAMES = ("SKILL.md", "skill.md")
# Folders a walk never enters (hidden tool folders such as .claude/ are entered: skills
# live there).
_SKIPPED = frozenset(
    {
        "node_modules",
        "__pycache__",
        "venv",
        "site-packages",
        ".git",
        ".hg",
        ".svn",
        ".venv",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
    }
)


class Target(NamedTuple):
    """One thing to check: a SKILL.md folder, or a Python file with an optional attribute.

    ``path`` is written as ``str(pathlib.Path(...))`` writes it (``./a/`` as ``a``)."""

    kind: TargetKind
    path: str
    attr: str | None = None

    @property
    def label(self) -> str:
        """How the target is shown to people."""
        return f"{self.path}:{self.attr}" if self.attr else self.path


class TargetReport(NamedTuple):
    """Diagnostics (before configuration filters) and host verdicts of one target."""

    target: Target
    diagnostics: list[LintDiagnostic]
    hosts: Sequence[HostVerdict] = ()
    suppressed: int = 0


class CheckRun(NamedTuple):
    """Everything one ``skillkit check`` found, after configuration filters.

    ``diagnostics`` start with the findings about the paths themselves (a folder that
    cannot be read, an argument holding no skill), then each target's."""

    reports: list[TargetReport]
    diagnostics: list[LintDiagnostic]
    config: LintConfig
    suppressed: int = 0

    def count(self, severity: str) -> int:
        """How many diagnostics have ``severity``."""
        return sum(1 for d in self.diagnostics if d.severity == severity)

    @property
    def fixable(self) -> int:
        """How many diagnostics carry a safe fix."""
        return sum(1 for d in self.diagnostics if d.fix is not None)

    @property
    def exit_code(self) -> int:
        """0 when clean, 1 on errors (or on warnings when strict), else
        :data:`NO_SKILL_EXIT` when an argument held no skill."""
        empty = sum(1 for d in self.diagnostics if d.rule == NO_SKILL)
        if self.count("error") or (self.config.strict and self.count("warning") > empty):
            return 1
        return NO_SKILL_EXIT if empty else 0


def collect_targets(
    paths: Sequence[str], problems: list[LintDiagnostic] | None = None
) -> list[Target]:
    """Sort command-line ``paths`` into targets; raise :class:`UsageError` for bad ones.

    A folder holding a SKILL.md is one target; any other folder is walked for SKILL.md
    folders (``.git``, ``node_modules`` and the like skipped; a skill folder is not
    descended into; symbolic links to folders not followed) and for Python skill files
    (see :func:`find_workflow_files`). A path or folder that cannot be read
    (:data:`~skillkit_core.lint.check_folder.UNREADABLE`) and a path that holds no skill
    at all (:data:`NO_SKILL`) are findings appended to ``problems``.
    """
    if not paths:
        raise UsageError("give at least one path: a SKILL.md folder, a .py file or a folder")
    targets: list[Target] = []
    found = problems if problems is not None else []
    for raw in paths:
        before = len(found)
        of_path = _targets_of(raw, found)
        if not of_path and len(found) == before:
            found.append(_no_skill(raw))
        targets.extend(of_path)
    unique = list(dict.fromkeys(targets))
    return unique


def _targets_of(raw: str, problems: list[LintDiagnostic]) -> list[Target]:
    written, attr = _split_attr(raw)
    if not written:  # pure("") is the current folder: a whole tree checked
        raise UsageError("an empty path names no file or folder")
    path = path_text.pure(written)
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        raise UsageError(f"no such file or folder: {written}") from None
    except OSError as error:  # permission, a symbolic link loop, a name too long
        problems.append(_unreadable(written, error))
        return []
    if not stat.S_ISDIR(mode):
        name = path_text.name(path)
        if stat.S_ISREG(mode) and name in _MANIFEST_NAMES:
            return [Target("manifest", path_text.parent(path))]
        # pathlib's suffix: a name starting with its only dot has none.
        if stat.S_ISREG(mode) and name.endswith(".py") and name.rfind(".") > 0:
            return [Target("workflow", path, attr)]
        raise UsageError(f"{written} is neither a SKILL.md, a .py file nor a folder")
    if attr is not None:
        raise UsageError(f"'{raw}': only a .py file takes an ':attr' suffix")
    if _has_manifest(path):
        return [Target("manifest", path)]
    folders, workflows = _walk(path, problems)
    return [Target("manifest", f) for f in folders] + [Target("workflow", f) for f in workflows]


def _unreadable(path: str, error: OSError) -> LintDiagnostic:
    reason = (error.strerror or type(error).__name__).lower()
    return LintDiagnostic(
        UNREADABLE, "error", f"cannot read {path}: {reason}; nothing in it was checked", file=path
    )


def _no_skill(raw: str) -> LintDiagnostic:
    return LintDiagnostic(
        NO_SKILL,
        "warning",
        f"{raw} holds no skill: no SKILL.md folder and no Python skill file",
        file=raw,
    )


def _walk(root: str, problems: list[LintDiagnostic]) -> tuple[list[str], list[str]]:
    """:func:`find_skill_folders` and :func:`find_workflow_files` of ``root`` in one walk
    (a tree of a few hundred skills is listed once, not twice). A folder that cannot be
    listed is an :data:`UNREADABLE` finding in ``problems``."""
    found: list[str] = []
    python_files: list[str] = []

    def unreadable(error: OSError) -> None:
        problems.append(_unreadable(str(error.filename or root), error))

    for current, folders, names in os.walk(root, onerror=unreadable):
        if any(name in names for name in _MANIFEST_NAMES):
            if current == root:  # a SKILL.md that is no regular file: walk as before
                return _texts(find_skill_folders(root)), _texts(find_workflow_files(root))
            found.append(path_text.pure(current))
            folders[:] = []
            continue
        folders[:] = sorted(f for f in folders if f not in _SKIPPED)
        python_files.extend(
            path_text.join(current, name) for name in sorted(names) if name.endswith(".py")
        )
    found.sort(key=path_text.sort_key)
    if not python_files:
        return found, []
    from skillkit_core.lint.check_workflow import defines_skills

    return found, [path for path in python_files if defines_skills(path)]


def _texts(paths: list[Path]) -> list[str]:
    return [str(path) for path in paths]


def _split_attr(raw: str) -> tuple[str, str | None]:
    head, sep, tail = raw.rpartition(":")
    if sep and head.endswith(".py") and tail.isidentifier():
        return head, tail
    return raw, None


def _has_manifest(folder: str) -> bool:
    for name in _MANIFEST_NAMES:
        try:
            if stat.S_ISREG(os.stat(os.path.join(folder, name)).st_mode):
                return True
        except OSError:  # absent, or not readable: the walk reports the folder
            continue
    return False


def find_skill_folders(root: str | PathLike[str]) -> list[Path]:
    """Every folder under ``root`` holding a SKILL.md, sorted, without nested ones."""
    from pathlib import Path

    found: list[Path] = []
    for current, folders, names in os.walk(root):
        if any(name in names for name in _MANIFEST_NAMES):
            found.append(Path(current))
            folders[:] = []
            continue
        folders[:] = sorted(f for f in folders if f not in _SKIPPED)
    return sorted(found)


def find_workflow_files(root: str | PathLike[str]) -> list[Path]:
    """Python skill files under ``root`` that a directory walk should check.

    Files that import skillkit_core and build a skill, reference or module (ordinary
    Python files are left alone).
    """
    from pathlib import Path

    from skillkit_core.lint.check_workflow import find_skill_sources

    return find_skill_sources(Path(root), _SKIPPED)


def _check_manifest(
    target: Target, hosts: bool = True, cache: ResultCache | None = None
) -> TargetReport:
    """The report of a SKILL.md folder: read back from ``cache`` when the folder is
    unchanged since it was stored there, else checked (and stored)."""
    slot, plain = cache.find(target.path, hosts) if cache is not None else (None, None)
    if plain is not None:
        try:
            report = _report_from_plain(target, plain)
        except (ValueError, TypeError):  # not a report: check again
            report = None
        if report is not None and _well_formed(report):
            return report
    # Imported here: a check whose folders are all cached needs neither the rules nor
    # the YAML parser.
    from skillkit_core.lint.check_folder import check_folder

    snapshot = None if slot is None else slot.snapshot
    report = check_folder(target.path, hosts=hosts, snapshot=snapshot)
    result = TargetReport(target, report.diagnostics, report.hosts, report.suppressed)
    if cache is not None and slot is not None and _cacheable(report):
        cache.keep(slot, _plain_report(result), report.folder.outside_answers)
    return result


_SEVERITIES = frozenset({"error", "warning", "info"})


def _well_formed(report: TargetReport) -> bool:
    """Whether a report read back from the cache has the shape of one a check makes (a
    pack is sealed against damage; this keeps a made-up one from failing the output)."""
    return type(report.suppressed) is int and all(
        type(d.rule) is str
        and d.severity in _SEVERITIES
        and type(d.message) is str
        and (d.file is None or type(d.file) is str)
        and (d.step is None or type(d.step) is str)
        and (d.range is None or all(type(n) is int for n in d.range))
        for d in report.diagnostics
    )


def _cacheable(report: FolderReport) -> bool:
    """Whether a folder's report may be read back later: nothing in the folder was
    unreadable, no rule failed (a failure need not happen again), and every finding
    names a file of the folder (whose content the key covers: the check reads a named
    file's suppression markers)."""
    from skillkit_core.lint.check_folder import INTERNAL_ERROR

    folder = report.folder
    if folder.unreadable:
        return False
    if any(d.message.startswith(INTERNAL_ERROR) for d in report.diagnostics):
        return False
    named = {folder.skill_md, *(folder.display(file) for file in folder.files)}
    return all(d.file is None or d.file in named for d in report.diagnostics)


def _check_workflow(target: Target, hosts: bool = True) -> TargetReport:
    # Host verdicts are for SKILL.md folders; a Python skill gets them once built.
    from pathlib import Path

    from skillkit_core.lint.check_workflow import check_entry

    report = check_entry(Path(target.path), target.attr)
    return TargetReport(target, report.diagnostics, suppressed=report.suppressed)


# How each kind of target is checked (the flag: whether to judge hosts).
CHECKERS: dict[TargetKind, Callable[[Target, bool], TargetReport]] = {
    "manifest": _check_manifest,
    "workflow": _check_workflow,
}


def check_targets(
    targets: Iterable[Target],
    config: LintConfig,
    *,
    workers: int | None = None,
    hosts: bool = True,
    helpers: Helpers | None = None,
    problems: Sequence[LintDiagnostic] = (),
    cache: ResultCache | None = None,
) -> CheckRun:
    """Check every target and apply ``config`` (select/ignore/severity); ``problems``
    (findings about the paths, from :func:`collect_targets`) come first, unfiltered.

    SKILL.md folders are shared among ``workers`` forked processes (``None``: as many as
    :func:`~skillkit_core.lint.parallel.worker_count` judges worthwhile); the result is
    the same as checking them one by one. ``hosts=False`` skips the host verdicts.
    ``helpers`` (forked at program start, with :func:`prepare_folder_work` as their work)
    take the place of freshly forked processes, or are dismissed when not needed. A
    SKILL.md folder's report is read from ``cache`` when it holds one for the folder as
    it is, and stored there otherwise (:mod:`~skillkit_core.lint.result_cache`).
    """
    targets = list(targets)
    for target in targets:
        if target.kind not in CHECKERS:
            raise UsageError(
                f"{target.label}: checking Python skill files is not available in this build"
            )
    reports = _reports(targets, workers, hosts, helpers, cache)
    if cache is not None:
        cache.save()
    diagnostics = [*problems]
    diagnostics += [d for report in reports for d in _configured(config, report.diagnostics)]
    # Skill modules of one folder share its references/: a finding about a file there
    # comes from each of them, word for word, and is one finding.
    diagnostics = list(dict.fromkeys(diagnostics))
    suppressed = sum(report.suppressed for report in reports)
    return CheckRun(reports, diagnostics, config, suppressed)


def _configured(config: LintConfig, diagnostics: list[LintDiagnostic]) -> list[LintDiagnostic]:
    """``config`` applied to a report's findings; what could not be read stays."""
    if not any(d.rule == UNREADABLE for d in diagnostics):
        return config.apply(diagnostics)
    unreadable = [d for d in diagnostics if d.rule == UNREADABLE]
    return unreadable + config.apply(d for d in diagnostics if d.rule != UNREADABLE)


def _reports(
    targets: list[Target],
    workers: int | None,
    hosts: bool,
    helpers: Helpers | None,
    cache: ResultCache | None,
) -> list[TargetReport]:
    """Each target's report, in order; SKILL.md folders in forked processes when many."""
    folders = [target for target in targets if target.kind == "manifest"]
    if workers is None:
        from skillkit_core.lint.parallel import worker_count

        workers = worker_count(len(folders))

    def check(target: Target) -> TargetReport:
        if target.kind == "manifest" and cache is not None:
            return _check_manifest(target, hosts, cache)
        return CHECKERS[target.kind](target, hosts)

    if workers <= 1:
        if helpers is not None:
            helpers.dismiss()
        return [check(target) for target in targets]

    # A report from another process comes with what it kept for the cache (to save).
    def received(target: Target, plain: tuple) -> TargetReport:
        report, kept = plain
        if cache is not None:
            cache.add_kept(kept)
        return _report_from_plain(target, report)

    if helpers is not None:
        directory = None if cache is None else cache.directory
        done = iter(
            helpers.share(
                len(folders),
                (hosts, [target.path for target in folders], directory),
                lambda index: check(folders[index]),
                lambda index, plain: received(folders[index], plain),
            )
        )
    else:
        from skillkit_core.lint.parallel import Codec, map_forked

        def sent(report: TargetReport) -> tuple:
            return _plain_report(report), [] if cache is None else cache.take_kept()

        done = iter(map_forked(check, folders, workers, Codec(sent, received)))
    return [next(done) if target.kind == "manifest" else check(target) for target in targets]


def prepare_folder_work() -> Work:
    """Import what checking SKILL.md folders needs and return the work function for
    :class:`~skillkit_core.lint.parallel.Helpers` that :func:`check_targets` shares
    folders with (its payload: the hosts flag, the folder paths and the result cache's
    folder or ``None``)."""
    from skillkit_core.lint.check_folder import prepare

    prepare()
    return _folder_work


# The result cache of a helper process, made on its first folder.
_HELPER_CACHES: dict[str, ResultCache] = {}


def _folder_work(payload: tuple[bool, list[str], str | None], index: int) -> tuple:
    """A helper's work: the plain report of folder ``index`` and what it kept for the
    result cache (``payload``: the hosts flag, the folder paths and the result cache's
    folder or ``None``)."""
    hosts, paths, directory = payload
    cache = None
    if directory is not None:
        from skillkit_core.lint.result_cache import ResultCache

        cache = _HELPER_CACHES.setdefault(directory, ResultCache(directory))
    target = Target("manifest", paths[index])
    report = _plain_report(_check_manifest(target, hosts, cache))
    return report, [] if cache is None else cache.take_kept()


def _plain_report(report: TargetReport) -> tuple:
    """``report`` without its target, as built-in values (for a forked worker's pipe)."""
    diagnostics = [
        (
            d.rule,
            d.severity,
            d.message,
            d.step,
            d.file,
            None if d.range is None else tuple(d.range),
            None if d.fix is None else _plain_fix(d.fix),
            [_plain_fix(f) for f in d.suggestions],
        )
        for d in report.diagnostics
    ]
    hosts = [(v.consumer.id, v.consumer.label, v.loads, v.reasons) for v in report.hosts]
    return diagnostics, hosts, report.suppressed


def _plain_fix(fix: Fix) -> tuple:
    edits = [(tuple(e.range), e.new_text, e.file) for e in fix.edits]
    return fix.title, edits, fix.executable, fix.renames, fix.based_on


def _fix_from_plain(plain: tuple) -> Fix:
    title, edits, executable, renames, based_on = plain
    return Fix(title, tuple(_edit(*e) for e in edits), executable, renames, based_on)


def _report_from_plain(target: Target, plain: tuple) -> TargetReport:
    """The inverse of :func:`_plain_report`."""
    diagnostics, hosts, suppressed = plain
    return TargetReport(
        target,
        [
            LintDiagnostic(
                rule,
                severity,
                message,
                step,
                file,
                None if where is None else SourceRange(*where),
                None if fix is None else _fix_from_plain(fix),
                tuple(_fix_from_plain(f) for f in suggestions),
            )
            for rule, severity, message, step, file, where, fix, suggestions in diagnostics
        ],
        _verdicts_from_plain(hosts),
        suppressed,
    )


def _verdicts_from_plain(plain: list[tuple]) -> tuple[HostVerdict, ...]:
    if not plain:  # without --hosts: no verdicts, and no need of the host table
        return ()
    from skillkit_core.manifest.compat import Consumer, HostVerdict

    return tuple(HostVerdict(Consumer(key, label), loads, why) for key, label, loads, why in plain)


def _edit(where: tuple, new_text: str, file: str | None) -> TextEdit:
    return TextEdit(SourceRange(*where), new_text, file)


def check_paths(paths: Sequence[str], config: LintConfig | None = None) -> CheckRun:
    """Collect the targets of ``paths`` and check them (the core of ``skillkit check``)."""
    problems: list[LintDiagnostic] = []
    targets = collect_targets(paths, problems)
    return check_targets(targets, config or LintConfig(), problems=problems)


class CheckOutcome(NamedTuple):
    """A check run plus what ``--fix`` changed before it."""

    run: CheckRun
    fixes_applied: int = 0
    files_fixed: tuple[str, ...] = ()
    fixes_refused: tuple[str, ...] = ()
    """Files a fix could not be written to, each with the reason."""


def run_check(
    paths: Sequence[str],
    *,
    select: Sequence[str] | None = None,
    ignore: Sequence[str] | None = None,
    strict: bool | None = None,
    fix: bool = False,
    config_file: str | PathLike[str] | None = None,
    max_fix_passes: int = 3,
    hosts: bool = True,
    helpers: Helpers | None = None,
    cache: ResultCache | None = None,
) -> CheckOutcome:
    """Everything ``skillkit check`` does below the command line.

    Configuration comes from ``config_file`` or the nearest pyproject.toml, then the
    flags. With ``fix``, safe fixes are applied and the targets re-checked (a few passes,
    since one fix can reveal another), and the final state is reported. ``hosts=False``
    leaves out the host verdicts (``skillkit check`` without ``--hosts`` shows none).
    ``helpers`` serve the first check and ``cache`` every check, as in
    :func:`check_targets`.
    """
    from skillkit_core.lint.config import find_pyproject, load_config, merged, validate_patterns

    if config_file is not None and not os.path.isfile(config_file):
        given = os.fspath(config_file)
        if os.path.exists(given):
            raise UsageError(f"configuration file {given} is not a regular file")
        raise UsageError(f"no such configuration file: {given or repr(given)}")
    if config_file is not None:
        base = load_config(config_file, given=True)
    else:
        base = load_config(find_pyproject(os.getcwd()))
    config = merged(base, select=select, ignore=ignore, strict=strict)
    if config.select or config.ignore or config.severity:
        # Only patterns need the rule list (and its Python skill half is imported on use).
        from skillkit_core.lint.registry import EDITOR_RULE_IDS, RULES

        validate_patterns(config, (*(rule.id for rule in RULES), *EDITOR_RULE_IDS))
    problems: list[LintDiagnostic] = []
    targets = collect_targets(paths, problems)
    run = check_targets(
        targets, config, hosts=hosts, helpers=helpers, problems=problems, cache=cache
    )
    applied, files, refused = 0, set(), {}
    for _ in range(max_fix_passes if fix else 0):
        if not run.fixable:
            break
        from skillkit_core.lint.fixing import apply_fixes

        result = apply_fixes(d for d in run.diagnostics if d.fix is not None)
        refused.update(dict.fromkeys(result.refused))
        if not result.files:
            break
        applied += result.applied
        files.update(result.files)
        run = check_targets(targets, config, hosts=hosts, problems=problems, cache=cache)
    return CheckOutcome(run, applied, tuple(sorted(files)), tuple(refused))
