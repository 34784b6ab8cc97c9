"""compatibility-length: ``compatibility``, when present, is a 1-500 character string."""

from __future__ import annotations

from collections.abc import Iterator

from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.lint.rule import Rule
from skillkit_core.manifest.folder import SkillFolder
from skillkit_core.manifest.spec import COMPATIBILITY_MAX


def _check(folder: SkillFolder) -> Iterator[LintDiagnostic]:
    if not folder.exists or not folder.frontmatter_ok:
        return
    span = folder.span("compatibility")
    if span is None or "compatibility" not in folder.frontmatter:
        return
    value = folder.text_value("compatibility")
    if value is None:
        message = "compatibility must be a string"
    elif not value.strip():
        message = "compatibility must not be empty; remove the key or describe the needs"
    elif len(value) > COMPATIBILITY_MAX:
        message = f"compatibility is {len(value)} characters long; the limit is {COMPATIBILITY_MAX}"
    else:
        return
    where = span.key_range if span.style == "empty" else span.value_range
    yield RULE.diagnostic(message, range=where, file=folder.skill_md)


RULE = Rule(
    id="compatibility-length",
    severity="error",
    summary="compatibility is not a string of 1 to 500 characters.",
    rationale=(
        "compatibility tells hosts and users what the skill needs (a product, tools, "
        "network); the specification allows 1-500 characters of text."
    ),
    bad="compatibility:\n  - python",
    good="compatibility: Needs Python 3.11+ and network access.",
    check=_check,
    target="manifest",
    spec=True,
)
