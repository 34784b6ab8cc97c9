"""non-portable-key: a host-specific frontmatter key limits where the skill validates."""

from __future__ import annotations

from collections.abc import Iterator

from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.lint.rule import Rule
from skillkit_core.manifest.folder import SkillFolder
from skillkit_core.manifest.spec import CLAUDE_CODE_KEYS, OTHER_HOST_KEYS


def _check(folder: SkillFolder) -> Iterator[LintDiagnostic]:
    if not folder.exists or not folder.frontmatter_ok:
        return
    for key, span in folder.parsed.fields.items():
        if key in CLAUDE_CODE_KEYS:
            host = "a Claude Code extension"
        elif key in OTHER_HOST_KEYS:
            host = "not part of the Agent Skills specification"
        else:
            continue
        yield RULE.diagnostic(
            f"'{key}' is {host}: other hosts ignore it and strict spec validators reject the file",
            range=span.key_range,
            file=folder.skill_md,
        )


RULE = Rule(
    id="non-portable-key",
    severity="info",
    summary="The frontmatter uses a key outside the specification that some host defines.",
    rationale=(
        "Extension keys such as when_to_use or context work in Claude Code, but the "
        "reference validator and claude.ai upload accept only the specification's keys."
    ),
    bad="---\nname: pdf\ndescription: Extract text.\nwhen_to_use: PDFs\n---",
    good="---\nname: pdf\ndescription: Extract text. Use when given PDFs.\n---",
    check=_check,
    target="manifest",
)
