"""broken-link: relative links and images in SKILL.md point at files that exist."""

from __future__ import annotations

from collections.abc import Iterator

from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.lint.rule import Rule
from skillkit_core.manifest.folder import SkillFolder
from skillkit_core.manifest.links import local_target


def _check(folder: SkillFolder) -> Iterator[LintDiagnostic]:
    if not folder.exists:
        return
    for link in folder.body_scan.links:
        target = local_target(link.target)
        if target is None or target.absolute:
            continue
        relative = folder.inside(target.path)
        if relative is None or folder.has_path(relative):
            continue  # outside the folder: link-outside-skill reports it
        kind = "image" if link.image else "link"
        yield RULE.diagnostic(
            f"{kind} target '{target.path}' does not exist in the skill folder",
            range=link.range,
            file=folder.skill_md,
        )


RULE = Rule(
    id="broken-link",
    severity="error",
    summary="A relative link or image in SKILL.md points at a missing file.",
    rationale=(
        "Agents follow links in SKILL.md to load references on demand; a missing target "
        "means the instructions the skill promises are never found."
    ),
    bad="See [the API notes](references/api.md). (no such file)",
    good="See [the API notes](references/api.md). (references/api.md exists)",
    check=_check,
    target="manifest",
)
