"""description-length: ``description`` is at most 1024 characters."""

from __future__ import annotations

from collections.abc import Iterator

from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.lint.rule import Rule
from skillkit_core.manifest.folder import SkillFolder
from skillkit_core.manifest.spec import DESCRIPTION_MAX


def _check(folder: SkillFolder) -> Iterator[LintDiagnostic]:
    if not folder.exists or not folder.frontmatter_ok:
        return
    description = folder.text_value("description")
    if description is not None and len(description) > DESCRIPTION_MAX:
        yield RULE.diagnostic(
            f"description is {len(description)} characters long; the limit is {DESCRIPTION_MAX}",
            range=folder.value_range("description"),
            file=folder.skill_md,
        )


RULE = Rule(
    id="description-length",
    severity="error",
    summary="The description is longer than 1024 characters.",
    rationale=(
        "Descriptions of every installed skill sit in the agent's context at all times; "
        "the specification caps them at 1024 characters and hosts truncate or reject longer."
    ),
    bad="description: <1,500 characters of prose>",
    good="description: Extract text and tables from PDFs. Use when the user sends a PDF.",
    check=_check,
    target="manifest",
    spec=True,
)
