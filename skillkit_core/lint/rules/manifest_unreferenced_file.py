"""unreferenced-file: every file under references/ is named by SKILL.md or by a file it
leads to.

An agent reads SKILL.md and then only what it is pointed to: a reference file that nothing
links or names is never read (agnix reports the same, AS-023). A file counts as named
when SKILL.md (its frontmatter too), a markdown file reached from it through links and
path mentions, or a script of the skill links it, mentions its path (a glob or a folder
included: ``references/*.md``, ``references/api``), names its file name (unless that name
is a common one, such as README.md, which may be any project's), or mentions the
``references/`` folder itself (the agent then lists it). Hidden files (``.gitkeep``) are
not references. Files two hops away are reference-depth's to report, not this rule's. In
a Gemini CLI extension (:mod:`skillkit_core.manifest.plugins`), the context file that
Gemini loads into every session counts too (obra/superpowers' ``GEMINI.md`` includes a
reference of one of its skills)."""

from __future__ import annotations

import fnmatch
import os
import posixpath
import re
from collections.abc import Iterator

from skillkit_core import path_text
from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.lint.rule import Rule
from skillkit_core.lint.rules.manifest_reference_depth import MAX_REFERENCE_BYTES
from skillkit_core.manifest.folder import SkillFolder
from skillkit_core.manifest.markdown import MarkdownScan

FOLDER = "references/"
# The folder named as a whole ("see references/", "`references/`"), not a path in it
# (nor the word "references").
_WHOLE_FOLDER = re.compile(r"(?<![\w.\-/])references/(?![\w.\-*{/])")
# A path under references/ in a script's text (scripts name files without markdown).
_SCRIPT_MENTION = re.compile(r"references/[\w.\-/*]+")
# File names too common to mean this skill's file when named alone.
_COMMON_NAMES = frozenset({"readme.md", "index.md", "license", "license.md", "changelog.md"})
_EXTENSION_MANIFEST = "gemini-extension.json"
_MAX_FILES_READ = 200


def _named(scan: MarkdownScan, base: str) -> set[str]:
    """Folder-relative paths (globs kept) that ``scan`` links or mentions."""
    return {relative for relative, _ in SkillFolder.paths_named(scan, base)}


def _covers(named: str, relative: str) -> bool:
    if named == relative or relative.startswith(named.rstrip("/") + "/"):
        return True
    return any(ch in named for ch in "*?[{") and any(
        fnmatch.fnmatchcase(relative, pattern) for pattern in _braces(named)
    )


def _braces(pattern: str) -> list[str]:
    """``a.{sh,ps1}`` as ``a.sh`` and ``a.ps1``, each brace list in turn (fnmatch has
    none); at most 64 patterns."""
    match = re.search(r"\{([^{}]*)\}", pattern)
    if match is None:
        return [pattern]
    head, tail = pattern[: match.start()], pattern[match.end() :]
    expanded = [head + choice + tail for choice in match.group(1).split(",")][:64]
    return [whole for part in expanded for whole in _braces(part)][:64]


def _extension_context(folder: SkillFolder) -> list[str]:
    """The texts of the context files of the Gemini CLI extension the skill is part of:
    ``contextFileName`` of its ``gemini-extension.json`` (a name or a list), else
    ``GEMINI.md``, which Gemini CLI loads into every session. (Claude Code, Codex and
    Cursor plugins have no such file: a CLAUDE.md or AGENTS.md there is the repository's.)"""
    import json

    root = folder.plugin_root
    if root is None:
        return []
    manifest = folder.outside_text(os.path.join(root, _EXTENSION_MANIFEST))
    if manifest is None:
        return []
    try:
        names = json.loads(manifest).get("contextFileName", "GEMINI.md")
    except (ValueError, AttributeError):
        names = "GEMINI.md"
    names = [names] if isinstance(names, str) else names
    if not isinstance(names, list):
        return []
    texts = []
    for name in names[:8]:
        if isinstance(name, str) and "/" not in name and name not in ("", ".", ".."):
            text = folder.outside_text(os.path.join(root, name))
            if text is not None:
                texts.append(text)
    return texts


def _script_texts(folder: SkillFolder) -> Iterator[str]:
    """The texts of the skill's scripts (a script SKILL.md runs may read a reference),
    read one by one as the check needs them."""
    scripts = [f for f in folder.files if f.relative.startswith("scripts/")]
    for file in scripts[:_MAX_FILES_READ]:
        text = folder.read_text(file) if file.size <= MAX_REFERENCE_BYTES else None
        if text is not None:
            yield text


class _Unnamed:
    """The candidate files nothing has named yet, crossed off as texts are read: most
    skills name every reference in SKILL.md, so most checks read nothing more."""

    def __init__(self, files: list[str], all_files: set[str]) -> None:
        self.files = files
        self.all_files = all_files

    def cross_off(self, named: set[str], text: str | None = None) -> bool:
        """Cross off what ``named`` covers and, in ``text``, what is named by file name
        or by naming the folder; True when nothing is left."""
        if text is not None and "references/" in text and _WHOLE_FOLDER.search(text):
            return True  # the folder as a whole: the agent lists it
        # Most names are files themselves: a set lookup; only the rest (folders, globs)
        # are matched against each file.
        wider = [n for n in named if n.startswith(FOLDER) and n not in self.all_files]
        self.files = [
            f
            for f in self.files
            if f not in named and not any(_covers(n, f) for n in wider) and not _named_in(f, text)
        ]
        return not self.files


def _named_in(relative: str, text: str | None) -> bool:
    """Whether ``text`` names the file by its name (a word of its own; "see a.md." too),
    unless that name is a common one (:data:`_COMMON_NAMES`)."""
    name = posixpath.basename(relative)
    if text is None or name.lower() in _COMMON_NAMES:
        return False
    # A search per name, not a pattern: patterns are kept between runs (pattern_cache),
    # and file names would crowd it.
    start = text.find(name)
    while start != -1:
        before = text[start - 1] if start else " "
        after = text[start + len(name) :].removeprefix(".")  # "see a.md." ends a sentence
        if not _name_char(before) and before != "." and not _name_char(after[:1]):
            return True
        start = text.find(name, start + 1)
    return False


def _name_char(char: str) -> bool:
    """Whether ``char`` may stand in a file name beside a dot (a letter, digit, _ or -)."""
    return char.isalnum() or char in ("_", "-")


def _check(folder: SkillFolder) -> Iterator[LintDiagnostic]:
    if not folder.exists:
        return
    by_path = {f.relative: f for f in folder.files}
    unnamed = _Unnamed(
        [
            relative
            for relative in by_path
            if relative.startswith(FOLDER) and not posixpath.basename(relative).startswith(".")
        ],
        set(by_path),
    )
    if not unnamed.files:
        return
    named = _named(folder.body_scan, "")
    if unnamed.cross_off(named, folder.parsed.text):
        return
    # Markdown files reached from SKILL.md, breadth-first: what they name counts too.
    queue = sorted(n for n in named if n in by_path and n.lower().endswith(".md"))
    seen = set(queue)
    while queue and len(seen) <= _MAX_FILES_READ:
        relative = queue.pop(0)
        file = by_path[relative]
        if file.size > MAX_REFERENCE_BYTES:
            continue
        scan = folder.links_and_mentions_of(file)
        text = folder.read_text(file)
        if scan is None or text is None:
            continue
        found = _named(scan, posixpath.dirname(relative))
        if unnamed.cross_off(found, text):
            return
        for more in sorted(found - seen):
            if more in by_path and more.lower().endswith(".md"):
                seen.add(more)
                queue.append(more)
    for text in _script_texts(folder):
        if unnamed.cross_off(set(_SCRIPT_MENTION.findall(text)), text):
            return
    # An extension's context file names files by name (its "references/" is any skill's).
    for text in _extension_context(folder):
        unnamed.files = [f for f in unnamed.files if not _named_in(f, text)]
    for relative in unnamed.files:
        yield RULE.diagnostic(
            f"{relative} is in the skill, but neither SKILL.md nor a file it leads to names "
            "it, so an agent never reads it; link it from SKILL.md, saying when to read it, "
            "or remove it",
            file=path_text.join(folder.root_text, relative),
        )


RULE = Rule(
    id="unreferenced-file",
    severity="warning",
    summary="A file under references/ that SKILL.md never leads to.",
    rationale=(
        "An agent reads SKILL.md, then only the files it is pointed to: a reference that "
        "nothing links, mentions or names is dead weight in every install, and the "
        "knowledge in it never reaches the agent."
    ),
    bad="references/orm.md, which SKILL.md never mentions",
    good="SKILL.md: 'For queries, read [the ORM notes](references/orm.md).'",
    check=_check,
    target="manifest",
)
