"""undeclared-argument: ``$name`` and ``$N`` placeholders match the declared ``arguments``."""

from __future__ import annotations

import re
from collections.abc import Iterator

from skillkit_core.lint.diagnostic import LintDiagnostic, SourceRange
from skillkit_core.lint.rule import Rule
from skillkit_core.manifest.arguments import argument_index
from skillkit_core.manifest.folder import SkillFolder

_PLACEHOLDER = re.compile(r"(?<![\w$\\])\$(?:(\d+)|([A-Za-z_][A-Za-z0-9_]*))")
_ENVIRONMENT_STYLE = r"[A-Z][A-Z0-9_]*"  # compiled on first use: few skills have placeholders


def declared_arguments(folder: SkillFolder) -> list[str] | None:
    """The names ``arguments`` declares (``None`` when the key is absent or malformed)."""
    value = folder.frontmatter.get("arguments")
    if isinstance(value, str):
        return [part for part in re.split(r"[\s,]+", value) if part]
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return list(value)
    return None


def _placeholders(folder: SkillFolder) -> Iterator[tuple[re.Match[str], int]]:
    scan = folder.body_scan
    for line in range(folder.parsed.body_start_line, len(folder.lines)):
        text = folder.lines[line]
        if line in scan.code_lines or "$" not in text:
            continue
        spans = scan.inline_code.get(line, [])
        for match in _PLACEHOLDER.finditer(text):
            if not any(start <= match.start() < end for start, end in spans):
                yield match, line


def _check(folder: SkillFolder) -> Iterator[LintDiagnostic]:
    if not folder.exists or not folder.frontmatter_ok:
        return
    names = declared_arguments(folder)
    takes_arguments = "argument-hint" in folder.frontmatter or "$ARGUMENTS" in folder.parsed.body
    for match, line in _placeholders(folder):
        where = SourceRange(line, match.start(), line, match.end())
        number, name = match.group(1), match.group(2)
        if name is not None and (name == "ARGUMENTS" or re.fullmatch(_ENVIRONMENT_STYLE, name)):
            continue
        if names is None:
            if name is not None and takes_arguments:
                yield RULE.diagnostic(
                    f"'${name}' looks like an argument placeholder but the frontmatter "
                    f"declares no 'arguments'; add 'arguments: {name}'",
                    range=where,
                    file=folder.skill_md,
                )
            continue
        if name is not None and name not in names:
            declared = ", ".join(names) or "none"
            yield RULE.diagnostic(
                f"'${name}' is not declared in 'arguments' (declared: {declared})",
                range=where,
                file=folder.skill_md,
            )
        elif number is not None and argument_index(number) >= len(names):
            yield RULE.diagnostic(
                f"'${number}' is argument {argument_index(number) + 1} "
                f"but 'arguments' declares {len(names)}",
                range=where,
                file=folder.skill_md,
            )


RULE = Rule(
    id="undeclared-argument",
    severity="warning",
    summary="A $name or $N placeholder is not declared in the frontmatter's arguments.",
    rationale=(
        "Claude Code substitutes $name and $N from the declared arguments; an undeclared "
        "placeholder reaches the agent as literal text, or as an empty string."
    ),
    bad=(
        "---\nname: summarise\ndescription: Summarise a file. Use when asked for a summary.\n"
        "arguments: file\n---\nSummarise $path."
    ),
    good=(
        "---\nname: summarise\ndescription: Summarise a file. Use when asked for a summary.\n"
        "arguments: file\n---\nSummarise $file."
    ),
    check=_check,
    target="manifest",
)
