"""metadata-string-map: ``metadata`` is a mapping from string keys to string values."""

from __future__ import annotations

from collections.abc import Iterator

from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.lint.rule import Rule
from skillkit_core.manifest.folder import SkillFolder


def _check(folder: SkillFolder) -> Iterator[LintDiagnostic]:
    if not folder.exists or not folder.frontmatter_ok:
        return
    span = folder.span("metadata")
    if span is None or "metadata" not in folder.frontmatter:
        return
    value = folder.frontmatter["metadata"]
    if not isinstance(value, dict):
        where = span.key_range if span.style == "empty" else span.value_range
        yield RULE.diagnostic(
            "metadata must be a mapping of string keys to string values",
            range=where,
            file=folder.skill_md,
        )
        return
    # The values as read, after any merge key (``<<``) merged its mappings in, as the
    # reference validator's parser does (yaml-not-strict warns of the merge key itself).
    merged = span.children.get("<<")
    for key, item in value.items():
        if isinstance(item, (dict, list)):
            written = str(key)  # spans are by the key's text (an int key is read as one)
            child = span.children.get(written) or (merged and merged.children.get(written))
            where = child or merged or span
            kind = "a list" if isinstance(item, list) else "a mapping"
            yield RULE.diagnostic(
                f"metadata value '{key}' must be a string, not {kind}",
                range=where.value_range,
                file=folder.skill_md,
            )


RULE = Rule(
    id="metadata-string-map",
    severity="error",
    summary="metadata is not a flat mapping of strings to strings.",
    rationale=(
        "The specification defines metadata as a string-to-string map so every host can "
        "store and show it; nested values are dropped or rejected."
    ),
    bad="metadata:\n  authors:\n    - Ada",
    good='metadata:\n  author: Ada\n  version: "1.0"',
    check=_check,
    target="manifest",
    spec=True,
)
