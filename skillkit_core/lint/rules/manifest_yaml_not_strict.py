"""yaml-not-strict: the frontmatter avoids YAML features strict parsers refuse."""

from __future__ import annotations

from collections.abc import Iterator

from skillkit_core.lint.diagnostic import LintDiagnostic, SourceRange
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
    parsed = folder.parsed
    for line, column in _refused_tabs(parsed.yaml_text):
        at = parsed.yaml_start_line + line
        yield RULE.diagnostic(
            "tab character outside a quoted or block value: strict YAML parsers (the "
            "reference validator) reject it; use spaces",
            range=SourceRange(at, column, at, column + 1),
            file=folder.skill_md,
        )


def _refused_tabs(yaml_text: str) -> list[tuple[int, int]]:
    """(line, column) in ``yaml_text`` of each tab the reference validator refuses: in a
    plain value, after a colon, before a comment, at a line's end. Its error is the one
    PyYAML's own scanner gives ("found character '\\t' that cannot start any token", tried
    with skills-ref 0.1.1), while the C parser the check reads with takes them; so each is
    found by that scanner, set to a space, and the scan goes on. Tabs in quoted or block
    values and in comments pass both."""
    if "\t" not in yaml_text:
        return []
    import yaml

    found: list[tuple[int, int]] = []
    text = yaml_text
    while len(found) < _MAX_TABS:
        try:
            for _token in yaml.scan(text, Loader=yaml.SafeLoader):
                pass
            return found
        except yaml.YAMLError as error:
            mark = getattr(error, "problem_mark", None)
            index = getattr(mark, "index", None)
            if index is None or text[index : index + 1] != "\t":
                return found  # another error: reported as invalid YAML, if at all
            found.append((mark.line, mark.column))
            text = text[:index] + " " + text[index + 1 :]
    return found


_MAX_TABS = 20
"""Tabs reported at most (each costs a scan of the frontmatter)."""


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
