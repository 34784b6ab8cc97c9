"""unreferenced-file: every file under references/ is named by SKILL.md or by a file it
leads to.

An agent reads SKILL.md and then only what it is pointed to: a reference file that nothing
links or names is never read (agnix reports the same, AS-023). A file counts as named
when SKILL.md, or a markdown file reached from it through links and path mentions, links
it, mentions its path (a glob or a folder included: ``references/*.md``,
``references/api``), names its file name, or mentions the ``references/`` folder itself
(the agent then lists it). Files two hops away are reference-depth's to report, not this
rule's. In a plugin (:mod:`skillkit_core.manifest.plugins`), the instruction files at its
root that hosts load whole count too (obra/superpowers' ``GEMINI.md`` includes a
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
from skillkit_core.manifest.folder import SkillFolder
from skillkit_core.manifest.links import local_target, mention_path
from skillkit_core.manifest.markdown import MarkdownScan
from skillkit_core.manifest.plugins import plugin_root

FOLDER = "references/"
# The folder named as a whole ("see references/", "`references/`"), not a path in it.
_WHOLE_FOLDER = re.compile(r"(?<![\w.\-/])references/?(?![\w.\-*{/])")
_MAX_MARKDOWN_BYTES = 512 * 1024
_MAX_FILES_READ = 200


def _named(scan: MarkdownScan, base: str, folder: SkillFolder) -> Iterator[str]:
    """Folder-relative paths (globs kept) that ``scan`` links or mentions."""
    for link in scan.links:
        target = local_target(link.target)
        if target is None or target.absolute:
            continue
        joined = target.path if target.from_root else posixpath.join(base, target.path)
        relative = folder.inside(joined)
        if relative is not None:
            yield relative
    for mention in scan.mentions:
        relative = folder.inside(mention_path(mention.path))
        if relative is not None:
            yield relative


def _covers(named: str, relative: str) -> bool:
    if named == relative or relative.startswith(named.rstrip("/") + "/"):
        return True
    return any(ch in named for ch in "*?[{") and any(
        fnmatch.fnmatchcase(relative, pattern) for pattern in _braces(named)
    )


def _braces(pattern: str) -> list[str]:
    """``a.{sh,ps1}`` as ``a.sh`` and ``a.ps1`` (one brace list; fnmatch has none)."""
    match = re.search(r"\{([^{}]*)\}", pattern)
    if match is None:
        return [pattern]
    head, tail = pattern[: match.start()], pattern[match.end() :]
    return [head + choice + tail for choice in match.group(1).split(",")]


# Files at a plugin's root that hosts load into every session: Gemini CLI an extension's
# context file (GEMINI.md unless gemini-extension.json names another), others their
# instruction files.
_PLUGIN_INSTRUCTIONS = ("GEMINI.md", "AGENTS.md", "CLAUDE.md")


def _plugin_instructions(folder: SkillFolder) -> list[str]:
    """The texts of the instruction files at the root of the skill's plugin, if any."""
    root = plugin_root(folder.root_text, folder.outside_exists)
    if root is None:
        return []
    texts = (folder.outside_text(os.path.join(root, name)) for name in _PLUGIN_INSTRUCTIONS)
    return [text for text in texts if text is not None]


def _check(folder: SkillFolder) -> Iterator[LintDiagnostic]:
    if not folder.exists:
        return
    candidates = [f for f in folder.files if f.relative.startswith(FOLDER)]
    if not candidates:
        return
    texts = [folder.parsed.body]
    named = set(_named(folder.body_scan, "", folder))
    by_path = {f.relative: f for f in folder.files}
    # Markdown files reached from SKILL.md, breadth-first: what they name counts too.
    queue = sorted(n for n in named if n in by_path and n.lower().endswith(".md"))
    seen = set(queue)
    while queue and len(seen) <= _MAX_FILES_READ:
        relative = queue.pop(0)
        file = by_path[relative]
        if file.size > _MAX_MARKDOWN_BYTES:
            continue
        scan = folder.links_and_mentions_of(file)
        text = folder.read_text(file)
        if scan is None or text is None:
            continue
        texts.append(text)
        for found in _named(scan, posixpath.dirname(relative), folder):
            named.add(found)
            if found in by_path and found.lower().endswith(".md") and found not in seen:
                seen.add(found)
                queue.append(found)
    if any(_WHOLE_FOLDER.search(text) for text in texts):
        return
    # A plugin's instructions name files by name (their "references/" is any skill's).
    texts += _plugin_instructions(folder)
    words = set(re.findall(r"[\w.\-]+", "\n".join(texts)))
    for file in candidates:
        relative = file.relative
        if posixpath.basename(relative) in words or any(_covers(n, relative) for n in named):
            continue
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
