"""yaml-not-strict: the frontmatter avoids YAML features strict parsers refuse."""

from __future__ import annotations

from collections.abc import Iterator

from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.lint.rule import Rule
from skillkit_core.manifest.folder import SkillFolder

_REFUSED = ": strict YAML parsers (the reference validator) reject it"
_MESSAGES = {
    "flow": "flow-style collection ([...] or {...}); write it as an indented block" + _REFUSED,
    "anchor": "YAML anchor (&name); repeat the value instead" + _REFUSED,
    "alias": "YAML alias (*name); repeat the value instead" + _REFUSED,
    "tag": "explicit YAML tag (!...); write the plain value" + _REFUSED,
    # PyYAML and strictyaml (the reference validator) merge a ``<<`` key; a YAML 1.2
    # parser, such as the JavaScript `yaml` package by default, reads a key named "<<".
    "merge": (
        "YAML merge key (<<); write the merged keys out: YAML 1.1 parsers (the reference "
        "validator) merge them, YAML 1.2 parsers read one key named '<<'"
    ),
}


def _check(folder: SkillFolder) -> Iterator[LintDiagnostic]:
    if not folder.exists or not folder.frontmatter_ok:
        return
    for feature in folder.parsed.yaml_features:
        yield RULE.diagnostic(
            _MESSAGES[feature.kind],
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
    summary="The frontmatter uses flow collections, anchors, aliases, tags, tabs or merge keys.",
    rationale=(
        "The reference validator parses frontmatter with a strict YAML subset that refuses "
        "these features, and a tab anywhere but in a quoted or block value or a comment, so "
        "such a SKILL.md fails validation even though it is valid YAML. A merge key (<<) "
        "passes it, but hosts read it two ways: YAML 1.1 parsers merge the mapping in, "
        "YAML 1.2 parsers keep one key named '<<'."
    ),
    bad="paths: [src/**, tests/**]",
    good="paths:\n  - src/**\n  - tests/**",
    check=_check,
    target="manifest",
)
