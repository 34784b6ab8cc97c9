"""yaml-typed-scalar: text values are not written so YAML reads them as numbers, booleans,
dates or null.

Safe fix: quote the value.
"""

from __future__ import annotations

from collections.abc import Iterator

from skillkit_core.lint.diagnostic import Fix, LintDiagnostic, TextEdit
from skillkit_core.lint.rule import Rule
from skillkit_core.manifest.folder import SkillFolder
from skillkit_core.manifest.parse import FieldSpan
from skillkit_core.manifest.yaml_text import anchored, quoted

# Keys whose values hosts read as text (not effort: Claude Code takes an integer there).
_TEXT_KEYS = (
    "name",
    "description",
    "license",
    "compatibility",
    "allowed-tools",
    "when_to_use",
    "argument-hint",
    "arguments",
    "disallowed-tools",
    "model",
    "context",
    "agent",
    "shell",
    "paths",
    "version",
)


def _spans(folder: SkillFolder) -> Iterator[tuple[str, FieldSpan]]:
    for key in _TEXT_KEYS:
        span = folder.span(key)
        if span is not None:
            yield key, span
    metadata = folder.span("metadata")
    if metadata is not None:
        for key, child in metadata.children.items():
            yield f"metadata.{key}", child


def _check(folder: SkillFolder) -> Iterator[LintDiagnostic]:
    if not folder.exists or not folder.frontmatter_ok:
        return
    for key, span in _spans(folder):
        kind = folder.yaml_type(span)
        if kind is None or not span.scalar:
            continue
        read = f"read as {kind}, not text"
        if _impossible(span):
            read = f"take for {kind} that does not exist, and may refuse the file for it"
        yield RULE.diagnostic(
            f"'{key}' is written as {span.scalar}, which YAML parsers {read}; quote it",
            range=span.value_range,
            file=folder.skill_md,
        )


def _impossible(span: FieldSpan) -> bool:
    """Whether the value looks like a date or an int that does not exist (``2025-02-29``,
    ``0x_``): PyYAML raises on those, the check reads them as text."""
    import yaml

    constructor = yaml.SafeLoader.yaml_constructors.get(span.tag)
    if constructor is None or span.tag.endswith(":null"):
        return False
    try:
        constructor(yaml.SafeLoader(""), yaml.ScalarNode(span.tag, span.scalar))
    except (ValueError, OverflowError):
        return True
    return False


def _fix(folder: SkillFolder, diagnostic: LintDiagnostic) -> Fix | None:
    for key, span in _spans(folder):
        if span.value_range == diagnostic.range and span.scalar:
            edit = TextEdit(span.value_range, anchored(span.anchor, quoted(span.scalar)))
            return Fix(title=f"Quote the value of '{key}'", edits=(edit,))
    return None


RULE = Rule(
    id="yaml-typed-scalar",
    severity="warning",
    summary="A text value is written unquoted so that YAML reads it as a number, boolean or date.",
    rationale=(
        "version: 1.10 becomes the number 1.1 and description: yes becomes true in most "
        "YAML parsers; strict validators keep the text. Quoting makes every host agree."
    ),
    bad="metadata:\n  version: 1.10",
    good='metadata:\n  version: "1.10"',
    check=_check,
    target="manifest",
    fix=_fix,
)
