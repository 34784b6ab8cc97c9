"""Lint one SKILL.md folder: run every manifest rule, honour suppressions, judge hosts."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence

from skillkit_core import path_text
from skillkit_core.lint.diagnostic import UNREADABLE as UNREADABLE
from skillkit_core.lint.diagnostic import LintDiagnostic, text_digest
from skillkit_core.lint.rule import Rule
from skillkit_core.manifest.folder import SkillFolder
from skillkit_core.manifest.listing import SPECIAL_FILE
from skillkit_core.manifest.markdown import NO_SUPPRESSIONS, Suppressions, find_suppressions
from skillkit_core.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from os import PathLike

    from skillkit_core.manifest.compat import HostVerdict
    from skillkit_core.manifest.listing import Snapshot

# How the finding of a rule that failed starts (then the rule's id and the error).
INTERNAL_ERROR = "internal error in rule"


class FolderReport(NamedTuple):
    """The result of checking one folder.

    ``diagnostics`` are those left after inline suppressions, sorted by file and
    position; ``suppressed`` counts the hidden ones; ``hosts`` holds the per-consumer
    verdicts, computed from all findings (suppressions do not make a host accept a file).
    """

    folder: SkillFolder
    diagnostics: list[LintDiagnostic]
    hosts: Sequence[HostVerdict] = ()
    suppressed: int = 0


def skill_folder_of(path: str | PathLike[str]) -> str:
    """The skill folder for ``path``: the path itself, or the folder of a SKILL.md file
    (written as ``str(Path(...))`` writes it)."""
    target = path_text.pure(os.fspath(path))
    if path_text.name(target).lower() == "skill.md" and os.path.isfile(target):
        return path_text.parent(target)
    return target


def check_folder(
    path: str | PathLike[str],
    rules: Iterable[Rule] | None = None,
    *,
    text: str | None = None,
    hosts: bool = True,
    snapshot: Snapshot | None = None,
) -> FolderReport:
    """Run ``rules`` (default: every manifest rule) on the skill folder at ``path``.

    ``text``, when given, is used as the SKILL.md's content instead of the file on disk
    (an editor's unsaved buffer); the rest of the folder is read from disk, or from
    ``snapshot`` (the folder's files as read once before: see
    :class:`~skillkit_core.manifest.listing.Snapshot`). With ``hosts=False`` the host
    verdicts are left out (empty).
    """
    if rules is None:
        from skillkit_core.lint.registry import rules_for

        rules = rules_for("manifest")
    root = skill_folder_of(path)
    parsed = None
    if text is not None:
        from skillkit_core.manifest.parse import (
            MAX_BYTES,
            SKILL_MD,
            find_skill_md,
            parse_skill_md,
            parse_skill_md_bytes,
        )

        manifest = find_skill_md(root)
        file = str(manifest or path_text.join(root, SKILL_MD))
        # As the file on disk is read: at most MAX_BYTES of it, the rest reported (an
        # editor showed no error, and other counts, for a SKILL.md check refuses).
        data = text.encode("utf-8", "surrogatepass") if len(text) > MAX_BYTES // 4 else b""
        if len(data) > MAX_BYTES:
            parsed = parse_skill_md_bytes(data, file)
        else:
            parsed = parse_skill_md(text, file)
    folder = SkillFolder(root, parsed, snapshot)
    found: list[LintDiagnostic] = []
    for rule in rules:
        found.extend(_run(rule, folder))
    found.sort(key=_order)
    kept = [_based_on_what_was_read(folder, d) for d in _unsuppressed(folder, found)]
    suppressed = len(found) - len(kept)
    if folder.unreadable:  # filled as the rules list and read files
        kept = sorted([*kept, *_unreadable(folder)], key=_order)  # never suppressed
    verdicts: tuple[HostVerdict, ...] = ()
    if hosts:  # not asked for by a plain ``skillkit check``: the tables load then
        from skillkit_core.manifest.compat import host_verdicts

        verdicts = tuple(host_verdicts(folder, found))
    return FolderReport(folder, kept, verdicts, suppressed=suppressed)


def _based_on_what_was_read(folder: SkillFolder, diagnostic: LintDiagnostic) -> LintDiagnostic:
    """``diagnostic`` with its fix stamped with the digests of the texts its edits were
    computed on (``Fix.based_on``)."""
    fix = diagnostic.fix
    if fix is None or not fix.edits:
        return diagnostic
    stamps = []
    for file in dict.fromkeys(edit.file or diagnostic.file for edit in fix.edits):
        text = None if file is None else folder.checked_text(file)
        if text is not None:
            stamps.append((file, text_digest(text)))
    return diagnostic._replace(fix=fix._replace(based_on=tuple(stamps)))


def prepare() -> None:
    """Import now what the first :func:`check_folder` would: the manifest rules (for a
    helper process that waits for folders to check). Not the YAML parser: most
    frontmatters are read without it (:mod:`~skillkit_core.manifest.plain_yaml`)."""
    from skillkit_core.lint.registry import rules_for

    rules_for("manifest")


def check_skill_folder(
    path: str | PathLike[str], *, text: str | None = None
) -> list[LintDiagnostic]:
    """Every diagnostic for the SKILL.md folder at ``path`` (after inline suppressions);
    ``text`` replaces the SKILL.md on disk, as in :func:`check_folder`."""
    return check_folder(path, text=text).diagnostics


def _run(rule: Rule, folder: SkillFolder) -> list[LintDiagnostic]:
    # A rule must never take the whole check down: a crash becomes a finding that names
    # the rule, so the user sees it and every other rule still reports.
    try:
        return rule.run(folder)
    except Exception as error:
        return [
            rule.diagnostic(
                f"{INTERNAL_ERROR} {rule.id}: {type(error).__name__}: {error}",
                file=folder.skill_md,
                severity="error",
            )
        ]


def _unreadable(folder: SkillFolder) -> list[LintDiagnostic]:
    # A FIFO or socket (a dev server's) is no part of the skill, which a build leaves out:
    # worth a warning; a file that cannot be read is an error.
    return [
        LintDiagnostic(
            UNREADABLE,
            "warning" if reason.startswith(SPECIAL_FILE) else "error",
            f"cannot read {path}: {reason}; it was not checked",
            file=path,
        )
        for relative, reason in folder.unreadable.items()
        for path in [path_text.join(folder.root_text, relative)]
    ]


def _order(diagnostic: LintDiagnostic) -> tuple:
    where = diagnostic.range
    position = (where.line, where.column) if where else (-1, -1)
    return (diagnostic.file or "", position, diagnostic.rule)


def _unsuppressed(folder: SkillFolder, found: list[LintDiagnostic]) -> list[LintDiagnostic]:
    cache: dict[str, Suppressions] = {folder.skill_md: folder.suppressions}
    kept = []
    for diagnostic in found:
        file = diagnostic.file or folder.skill_md
        if file not in cache:
            cache[file] = _file_suppressions(folder, file)
        line = diagnostic.range.line if diagnostic.range else None
        if not cache[file].suppresses(diagnostic.rule, line):
            kept.append(diagnostic)
    return kept


def _file_suppressions(folder: SkillFolder, file: str) -> Suppressions:
    text = folder.text_of(file)
    if text is None:
        return NO_SUPPRESSIONS
    return find_suppressions(text.splitlines())
