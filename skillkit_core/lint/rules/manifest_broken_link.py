"""broken-link: relative links and images in SKILL.md, and in the markdown files under
references/, point at files that exist."""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterable, Iterator

from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.lint.rule import Rule
from skillkit_core.manifest.folder import SkillFolder
from skillkit_core.manifest.links import local_target
from skillkit_core.manifest.markdown import Link

_MARKDOWN = (".md", ".markdown")


def _broken(
    folder: SkillFolder, links: Iterable[Link], base: str, file: str
) -> Iterator[LintDiagnostic]:
    """Findings for ``links`` of ``file`` (whose folder is ``base``, relative to the
    skill folder) that name no file or folder of the skill."""
    for link in links:
        target = local_target(link.target)
        if target is None or target.absolute:
            continue
        joined = target.path if target.from_root or not base else f"{base}/{target.path}"
        relative = folder.inside(joined)
        if relative is None or folder.has_path(relative):
            continue  # outside the folder: link-outside-skill reports SKILL.md's
        if relative in folder.unreadable:
            continue  # there, but not a file that can be read: reported as unreadable
        kind = "image" if link.image else "link"
        missing = (
            "is a symbolic link to a file that does not exist"
            if os.path.islink(os.path.join(folder.root_text, relative))
            else "does not exist in the skill folder"
        )
        yield RULE.diagnostic(
            f"{kind} target '{target.path}' {missing}",
            range=link.range,
            file=file,
        )


def _check(folder: SkillFolder) -> Iterator[LintDiagnostic]:
    if not folder.exists:
        return
    yield from _broken(folder, folder.body_scan.links, "", folder.skill_md)
    for file in folder.files:
        if not file.relative.startswith("references/"):
            continue
        if not file.relative.lower().endswith(_MARKDOWN):
            continue
        links = folder.links_of(file)
        if links:
            base = posixpath.dirname(file.relative)
            yield from _broken(folder, links, base, folder.display(file))


RULE = Rule(
    id="broken-link",
    severity="error",
    summary="A relative link or image in SKILL.md or a reference points at a missing file.",
    rationale=(
        "Agents follow links in SKILL.md to load references on demand; a missing target "
        "means the instructions the skill promises are never found. Links in the markdown "
        "files under references/ are checked too, relative to each file."
    ),
    bad="See [the API notes](references/api.md). (no such file)",
    good="See [the API notes](references/api.md). (references/api.md exists)",
    check=_check,
    target="manifest",
)
