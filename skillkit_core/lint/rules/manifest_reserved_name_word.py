"""reserved-name-word: the name does not contain 'claude' or 'anthropic'."""

from __future__ import annotations

from collections.abc import Iterator

from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.lint.rule import Rule
from skillkit_core.manifest.folder import SkillFolder
from skillkit_core.manifest.spec import RESERVED_NAME_WORDS


def _check(folder: SkillFolder) -> Iterator[LintDiagnostic]:
    if not folder.exists or not folder.frontmatter_ok:
        return
    name = (folder.text_value("name") or "").lower()
    for word in RESERVED_NAME_WORDS:
        if word in name:
            yield RULE.diagnostic(
                f"the name contains the reserved word '{word}'; claude.ai and the API refuse "
                "to upload a skill named so (other hosts load it)",
                range=folder.value_range("name"),
                file=folder.skill_md,
            )


RULE = Rule(
    id="reserved-name-word",
    severity="warning",
    summary="The name contains a reserved word ('claude' or 'anthropic').",
    rationale=(
        "claude.ai and the API reserve the words 'claude' and 'anthropic' and refuse to "
        "upload a skill whose name contains one; a skill meant for every host avoids them."
    ),
    bad="name: claude-helper",
    good="name: review-helper",
    check=_check,
    target="manifest",
)
