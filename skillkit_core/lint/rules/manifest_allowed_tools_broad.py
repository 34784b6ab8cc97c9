"""allowed-tools-broad: ``allowed-tools`` does not pre-approve every shell command."""

from __future__ import annotations

import re
from collections.abc import Iterator

from skillkit_core.lint.diagnostic import LintDiagnostic, SourceRange
from skillkit_core.lint.rule import Rule
from skillkit_core.manifest.folder import SkillFolder

# Compiled on first use (``re`` keeps it): most skills have no allowed-tools.
_BROAD = r"\*|Bash|Bash\(\s*:?\s*\*+\s*\)|PowerShell|PowerShell\(\s*:?\s*\*+\s*\)"


def split_tools(text: str) -> list[tuple[str, int]]:
    """Tool entries of an allowed-tools string with their offsets.

    Entries are separated by spaces or commas outside parentheses, so
    ``Bash(git diff:*)`` stays one entry.
    """
    entries: list[tuple[str, int]] = []
    depth, start = 0, None
    for index, char in enumerate(text + " "):
        if char == "(":
            depth += 1
        elif char == ")":
            depth = max(0, depth - 1)
        if depth == 0 and (char.isspace() or char == ","):
            if start is not None:
                entries.append((text[start:index], start))
                start = None
        elif start is None:
            start = index
    return entries


def allowed_tool_entries(folder: SkillFolder) -> Iterator[tuple[str, SourceRange]]:
    """Each tool entry of ``allowed-tools`` with where it is written. A list's items are
    split like the string form: Claude Code reads ``- Read, Grep`` as two tools (2.1.332's
    bundled source splits every item at commas and spaces outside parentheses)."""
    span = folder.span("allowed-tools")
    value = folder.frontmatter.get("allowed-tools")
    if span is None:
        return
    if isinstance(value, list):
        for item, where in zip(value, span.items, strict=False):
            if isinstance(item, str):
                yield from _located(folder, item, where)
        return
    if isinstance(value, str):
        yield from _located(folder, value, span.value_range)


def _located(
    folder: SkillFolder, text: str, where: SourceRange
) -> Iterator[tuple[str, SourceRange]]:
    line_text = folder.lines[where.line] if where.line < len(folder.lines) else ""
    for entry, _offset in split_tools(text):
        column = line_text.find(entry, where.column)
        if where.line == where.end_line and column >= 0:
            yield entry, SourceRange(where.line, column, where.line, column + len(entry))
        else:
            yield entry, where


def _check(folder: SkillFolder) -> Iterator[LintDiagnostic]:
    if not folder.exists or not folder.frontmatter_ok:
        return
    for entry, where in allowed_tool_entries(folder):
        if re.fullmatch(_BROAD, entry):
            yield RULE.diagnostic(
                f"'{entry}' pre-approves every command; name the commands the skill needs, "
                "such as Bash(git diff:*)",
                range=where,
                file=folder.skill_md,
            )


RULE = Rule(
    id="allowed-tools-broad",
    severity="warning",
    summary="allowed-tools pre-approves any shell command (Bash, Bash(*)).",
    rationale=(
        "Tools in allowed-tools run without asking the user while the skill is active; an "
        "unrestricted shell turns any instruction the skill carries into a command."
    ),
    bad="allowed-tools: Read Bash",
    good="allowed-tools: Read Bash(git diff:*) Bash(git log:*)",
    check=_check,
    target="manifest",
)
