"""metadata-string-map: ``metadata`` is a mapping from string keys to string values."""

from __future__ import annotations

from collections.abc import Iterator

from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.lint.rule import Rule
from skillkit_core.manifest.folder import SkillFolder
from skillkit_core.manifest.parse import FieldSpan


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
    for key, child in _entries(span):
        if child.kind != "scalar":
            kind = "a list" if child.kind == "list" else "a mapping"
            yield RULE.diagnostic(
                f"metadata value '{key}' must be a string, not {kind}",
                range=child.value_range,
                file=folder.skill_md,
            )


def _entries(span: FieldSpan) -> Iterator[tuple[str, FieldSpan]]:
    """The keys of ``metadata`` as written, with a merge key (``<<``) replaced by the keys
    of the mapping it merges in that are not written beside it, as the reference
    validator's parser merges them (yaml-not-strict warns of the merge key itself)."""
    for key, child in span.children.items():
        if key != "<<" or child.kind != "mapping":
            yield key, child
            continue
        for merged, grandchild in child.children.items():
            if merged not in span.children:
                yield merged, grandchild


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
