"""frontmatter-invalid-yaml: the frontmatter parses as YAML.

Safe fix: when a plain value holds ``: `` or `` #`` (the usual cause: an unquoted
description such as ``description: Use when: ...``), quote that value, provided the file
then parses.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from skillkit_core.lint.diagnostic import Fix, LintDiagnostic, SourceRange, TextEdit
from skillkit_core.lint.rule import Rule
from skillkit_core.manifest.folder import SkillFolder
from skillkit_core.manifest.parse import parse_skill_md
from skillkit_core.manifest.yaml_text import quoted

_CODES = ("invalid-yaml", "too-complex")
# Compiled on first use (``re`` keeps it): only a frontmatter that fails to parse needs it.
_PLAIN_ENTRY = r"^([A-Za-z_][\w\-]*):[ \t]+([^\s'\"\[\]{}|>&*!#%@`].*?)[ \t]*$"


def _check(folder: SkillFolder) -> Iterator[LintDiagnostic]:
    for problem in folder.parsed.problems:
        if problem.code in _CODES:
            yield RULE.diagnostic(problem.message, range=problem.range, file=folder.skill_md)


def _fix(folder: SkillFolder, diagnostic: LintDiagnostic) -> Fix | None:
    """Quote the plain value nearest above the error that makes the file parse."""
    if diagnostic.range is None or not diagnostic.message.startswith("invalid YAML:"):
        return None
    parsed = folder.parsed
    last = parsed.frontmatter_end_line or 0
    lines = folder.lines
    for line in range(min(diagnostic.range.line, last - 1), 0, -1):
        edit = _quote_edit(lines, line, last)
        if edit is None:
            continue
        patched = list(lines)
        patched[line] = patched[line][: edit.range.column] + edit.new_text
        reparsed = parse_skill_md("\n".join(patched))
        if not any(p.code in _CODES for p in reparsed.problems):
            key = re.match(_PLAIN_ENTRY, lines[line])
            name = key.group(1) if key else "value"
            return Fix(title=f"Quote the value of '{name}'", edits=(edit,))
    return None


def _quote_edit(lines: list[str], line: int, last: int) -> TextEdit | None:
    match = re.match(_PLAIN_ENTRY, lines[line])
    if match is None or (": " not in match.group(2) and " #" not in match.group(2)):
        return None
    following = lines[line + 1] if line + 1 < last else ""
    if following[:1] in (" ", "\t") and following.strip():
        return None  # a multi-line plain value; quoting one line would break it
    start, end = match.start(2), match.end(2)
    return TextEdit(SourceRange(line, start, line, end), quoted(match.group(2)))


RULE = Rule(
    id="frontmatter-invalid-yaml",
    severity="error",
    summary="The frontmatter is not valid YAML.",
    rationale=(
        "A frontmatter that does not parse gives hosts no name and no description; the "
        "skill is skipped or fails to load. A colon followed by a space inside an unquoted "
        "value is the most common cause."
    ),
    bad="---\nname: pdf\ndescription: Extract text. Use when: the user sends a PDF\n---",
    good='---\nname: pdf\ndescription: "Extract text. Use when: the user sends a PDF"\n---',
    check=_check,
    target="manifest",
    fix=_fix,
    spec=True,
)
