"""yaml-not-strict: the frontmatter avoids YAML features strict parsers refuse."""

from __future__ import annotations

from collections.abc import Iterator

from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.lint.rule import Rule
from skillkit_core.manifest.folder import SkillFolder

_MESSAGES = {
    "flow": "flow-style collection ([...] or {...}); write it as an indented block",
    "anchor": "YAML anchor (&name); repeat the value instead",
    "alias": "YAML alias (*name); repeat the value instead",
    "tag": "explicit YAML tag (!...); write the plain value",
}


def _check(folder: SkillFolder) -> Iterator[LintDiagnostic]:
    if not folder.exists or not folder.frontmatter_ok:
        return
    for feature in folder.parsed.yaml_features:
        yield RULE.diagnostic(
            f"{_MESSAGES[feature.kind]}: strict YAML parsers (the reference validator) reject it",
            range=feature.range,
            file=folder.skill_md,
        )
    for where in folder.refused_tabs:
        yield RULE.diagnostic(
            "tab character outside a quoted or block value: strict YAML parsers (the "
            "reference validator) reject it; use spaces",
            range=where,
            file=folder.skill_md,
        )


RULE = Rule(
    id="yaml-not-strict",
    severity="warning",
    summary="The frontmatter uses flow collections, anchors, aliases, tags or tabs.",
    rationale=(
        "The reference validator parses frontmatter with a strict YAML subset that refuses "
        "these features, and a tab anywhere but in a quoted or block value or a comment, so "
        "such a SKILL.md fails validation even though it is valid YAML."
    ),
    bad="paths: [src/**, tests/**]",
    good="paths:\n  - src/**\n  - tests/**",
    check=_check,
    target="manifest",
)
