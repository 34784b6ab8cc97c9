"""required-field: the frontmatter has a non-empty string ``name`` and ``description``."""

from __future__ import annotations

from collections.abc import Iterator

from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.lint.rule import Rule
from skillkit_core.manifest.folder import OPENING_LINE, SkillFolder
from skillkit_core.manifest.spec import REQUIRED_KEYS


def _check(folder: SkillFolder) -> Iterator[LintDiagnostic]:
    if not folder.exists or not folder.frontmatter_ok:
        return
    for key in REQUIRED_KEYS:
        span = folder.span(key)
        if span is None:
            yield RULE.diagnostic(
                f"the frontmatter has no '{key}'; it is required",
                range=OPENING_LINE,
                file=folder.skill_md,
            )
            continue
        if key not in folder.frontmatter:
            continue  # its value failed to parse; frontmatter-invalid-yaml reports it
        value = folder.text_value(key)
        if value is None:
            kind = "a list" if isinstance(folder.frontmatter[key], list) else "a mapping"
            yield RULE.diagnostic(
                f"'{key}' must be a string, not {kind}",
                range=span.value_range,
                file=folder.skill_md,
            )
        elif not value.strip():
            yield RULE.diagnostic(
                f"'{key}' must not be empty",
                range=span.key_range if span.style == "empty" else span.value_range,
                file=folder.skill_md,
            )


RULE = Rule(
    id="required-field",
    severity="error",
    summary="The frontmatter lacks a non-empty 'name' or 'description'.",
    rationale=(
        "The name identifies the skill and the description is all an agent sees when "
        "deciding to load it; the specification requires both."
    ),
    bad="---\nname: pdf-tools\n---",
    good="---\nname: pdf-tools\ndescription: Extract text from PDFs. Use when given a PDF.\n---",
    check=_check,
    target="manifest",
    spec=True,
)
