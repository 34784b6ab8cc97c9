"""link-outside-skill: links in SKILL.md stay inside the skill folder."""

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
        if target is None:
            continue
        if target.absolute:
            reason = "is an absolute path"
        elif folder.inside(target.path) is not None:
            continue
        elif folder.in_plugin(target.path):
            yield RULE.diagnostic(
                f"link target '{target.path}' leaves the skill folder for another part of "
                "its plugin: it works where the plugin is installed whole, not where this "
                "skill is installed alone (copied into a skills folder)",
                range=link.range,
                file=folder.skill_md,
                severity="info",
            )
            continue
        else:
            reason = "leaves the skill folder"
        yield RULE.diagnostic(
            f"link target '{target.path}' {reason}; an installed skill only carries its "
            "own folder, and runtimes refuse paths outside it",
            range=link.range,
            file=folder.skill_md,
        )


RULE = Rule(
    id="link-outside-skill",
    severity="warning",
    summary="A link in SKILL.md points outside the skill folder.",
    rationale=(
        "Skills are copied, zipped and installed as a folder; files outside it do not "
        "travel with the skill, and runtimes block path traversal on purpose. A link to "
        "another part of the skill's plugin (a folder with .claude-plugin/plugin.json, "
        "installed whole) is only noted, at info level: it breaks where the skill is "
        "installed alone. Links to a plugin skill's slash command (`[x](/plugin:skill)`) "
        "name no file and are not reported."
    ),
    bad="[shared notes](../common/notes.md)",
    good="[notes](references/notes.md)",
    check=_check,
    target="manifest",
)
