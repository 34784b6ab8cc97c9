"""listing-too-long: ``description`` plus ``when_to_use`` fit Claude Code's listing cap."""

from __future__ import annotations

from collections.abc import Iterator

from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.lint.rule import Rule
from skillkit_core.manifest.folder import SkillFolder
from skillkit_core.manifest.spec import LISTING_CHARS_MAX, listed_text


def _check(folder: SkillFolder) -> Iterator[LintDiagnostic]:
    if not folder.exists or not folder.frontmatter_ok or folder.span("when_to_use") is None:
        return
    description = folder.text_value("description") or ""
    when = folder.text_value("when_to_use") or ""
    total = len(listed_text(description, when))
    if total > LISTING_CHARS_MAX:
        yield RULE.diagnostic(
            f"description and when_to_use are {total} characters as Claude Code lists them "
            f"(joined by ' - '); it cuts the listing at {LISTING_CHARS_MAX}",
            range=folder.value_range("when_to_use"),
            file=folder.skill_md,
        )


RULE = Rule(
    id="listing-too-long",
    severity="warning",
    summary="description + when_to_use exceed the 1536 characters Claude Code lists.",
    rationale=(
        "Claude Code appends when_to_use to the description in its skill listing and "
        "truncates the result; the trigger phrases at the end are lost."
    ),
    bad="a 1000-character description with a 900-character when_to_use",
    good="a 400-character description with a 300-character when_to_use",
    check=_check,
    target="manifest",
)
