"""reference-depth: files SKILL.md links to do not link on to further reference files.

One finding per file two hops away (at its first link, naming every reference that links
it), not one per link."""

from __future__ import annotations

import posixpath
from collections.abc import Iterator

from skillkit_core import path_text
from skillkit_core.lint.diagnostic import LintDiagnostic, SourceRange
from skillkit_core.lint.rule import Rule
from skillkit_core.manifest.folder import SkillFolder

MAX_REFERENCE_BYTES = 512 * 1024
"""The largest reference file whose links are followed (unreferenced-file too)."""


def _is_reference(folder: SkillFolder, relative: str, manifest: str) -> bool:
    """A markdown file of the skill an agent may read: not SKILL.md, and not the skill
    folder's own README.md (written for people browsing the repository; a reference's
    'Back to the README' link is navigation, not a deeper reference)."""
    if not relative.lower().endswith(".md") or relative in (manifest, "README.md"):
        return False
    return folder.is_file(relative)


def _check(folder: SkillFolder) -> Iterator[LintDiagnostic]:
    if not folder.exists:
        return
    manifest = folder.manifest_name
    first_level = {
        relative
        for relative, _ in folder.paths_named(folder.body_scan, "")
        if _is_reference(folder, relative, manifest)
    }
    sizes = {file.relative: file for file in folder.files}
    # Each file two hops away: where it is first linked, and every reference linking it.
    deeper: dict[str, tuple[str, SourceRange, list[str]]] = {}
    for reference in sorted(first_level):
        file = sizes.get(reference)
        if file is None or file.size > MAX_REFERENCE_BYTES:
            continue
        scan = folder.links_and_mentions_of(file)
        if scan is None:
            continue
        base = posixpath.dirname(reference)
        for relative, where in folder.paths_named(scan, base):
            if relative == reference or relative in first_level:
                continue
            if relative in deeper:
                linking = deeper[relative][2]
                if linking[-1] != reference:
                    linking.append(reference)
                continue
            if _is_reference(folder, relative, manifest):
                deeper[relative] = (reference, where, [reference])
    for relative, (reference, where, linking) in deeper.items():
        by = linking[0] if len(linking) == 1 else ", ".join(linking[:-1]) + f" and {linking[-1]}"
        yield RULE.diagnostic(
            f"{relative} is linked from {by} but not from SKILL.md; keep references one "
            "level deep (link it from SKILL.md instead)",
            range=where,
            file=path_text.join(folder.root_text, reference),
        )


RULE = Rule(
    id="reference-depth",
    severity="warning",
    summary="A reference file links to another reference that SKILL.md does not link.",
    rationale=(
        "Agents read references on demand and often only partly; a chain SKILL.md -> a.md "
        "-> b.md hides b.md two hops away. Link every reference from SKILL.md directly."
    ),
    bad="SKILL.md -> references/guide.md -> references/details.md",
    good="SKILL.md -> references/guide.md and SKILL.md -> references/details.md",
    check=_check,
    target="manifest",
)
