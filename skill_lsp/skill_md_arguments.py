"""Arguments in a SKILL.md body: completion after ``$`` and hovers saying what Claude Code
puts in place of ``$ARGUMENTS``, ``$ARGUMENTS[N]``, ``$N`` and a declared ``$name``.

The substitution rules are the core's (:mod:`skillkit_core.manifest.arguments`, which
cites Claude Code's skills documentation, https://code.claude.com/docs/en/skills, "Pass
arguments to skills"); the declared names are read as the ``undeclared-argument`` rule
reads them.
"""

from __future__ import annotations

import os
import re
from typing import Any

from lsprotocol import types

from skill_lsp.index import Snapshot
from skillkit_core.lint.diagnostic import SourceRange

# A placeholder being typed: "$", "$fi", "$ARGUMENTS[", "$1".
_TYPING = re.compile(r"\$[\w\[\]]*$")
_AFTER = re.compile(r"[\w\[\]]*")
# Groups of an argument-hint such as "[topic] <file>": each is one positional argument.
_HINT_GROUP = re.compile(r"\[[^\[\]]*\]|<[^<>]*>")


def _declared(snapshot: Snapshot) -> list[str]:
    from skillkit_core.lint.rules.manifest_undeclared_argument import declared_arguments
    from skillkit_core.manifest.folder import SkillFolder

    folder = SkillFolder(snapshot.folder or ".", snapshot.skill_md)
    return [name for name in declared_arguments(folder) or [] if not name.isdigit()]


def _in_body(snapshot: Snapshot, line: int) -> bool:
    parsed = snapshot.skill_md
    return line >= parsed.body_start_line if parsed.has_frontmatter else True


def _skill_name(snapshot: Snapshot) -> str:
    name = snapshot.skill_md.frontmatter.get("name")
    if isinstance(name, str) and name.strip():
        return name.strip()
    return os.path.basename(snapshot.folder or "") or "name"


def _ordinal(number: int) -> str:
    if 10 <= number % 100 <= 20:
        suffix = "th"
    else:
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


def _positional_count(snapshot: Snapshot, declared: list[str]) -> int:
    hint = snapshot.skill_md.frontmatter.get("argument-hint")
    groups = len(_HINT_GROUP.findall(hint)) if isinstance(hint, str) else 0
    return max(len(declared), groups, 1)


def _position_text(index: int, declared: list[str]) -> str:
    named = f"; `arguments` names it `{declared[index]}`" if index < len(declared) else ""
    return f"the {_ordinal(index + 1)} argument (index {index}{named})"


# -- completion -----------------------------------------------------------------------


def argument_items(snapshot: Snapshot, line: int, column: int) -> list | None:
    """Placeholders to complete after a ``$`` in the body (None: not typing one)."""
    if not _in_body(snapshot, line) or not 0 <= line < len(snapshot.lines):
        return None
    text = snapshot.lines[line]
    typing = _TYPING.search(text[:column])
    if typing is None:
        return None
    after = _AFTER.match(text, column)
    end = after.end() if after else column
    where = snapshot.map.range(SourceRange(line, typing.start(), line, end))
    declared = _declared(snapshot)
    invoked = f"/{_skill_name(snapshot)}"
    choices: list[tuple[str, str, str]] = []
    for index, name in enumerate(declared):
        choices.append(
            (f"${name}", f"argument {index + 1} (`arguments`)", _position_text(index, declared))
        )
    choices.append(("$ARGUMENTS", "all arguments", f"everything typed after `{invoked}`"))
    for index in range(_positional_count(snapshot, declared)):
        about = _position_text(index, declared)
        choices.append((f"${index}", f"argument {index + 1}", about))
        choices.append((f"$ARGUMENTS[{index}]", f"argument {index + 1}", about))
    items = []
    for order, (label, detail, about) in enumerate(choices):
        items.append(
            types.CompletionItem(
                label=label,
                kind=types.CompletionItemKind.Variable,
                detail=detail,
                documentation=types.MarkupContent(
                    kind=types.MarkupKind.Markdown,
                    value=f"Claude Code puts {about} here when the skill is invoked.",
                ),
                sort_text=f"{order:03d}",
                filter_text=label,
                text_edit=types.TextEdit(range=where, new_text=label),
            )
        )
    return items


# -- hover ----------------------------------------------------------------------------


def argument_hover(snapshot: Snapshot, line: int, column: int) -> str | None:
    """What Claude Code substitutes for the placeholder under the cursor (body only)."""
    from skillkit_core.manifest.arguments import ALL, INDEX, placeholder_at

    if not _in_body(snapshot, line) or not 0 <= line < len(snapshot.lines):
        return None
    text = snapshot.lines[line]
    if "$" not in text:
        return None
    declared = _declared(snapshot)
    found = placeholder_at(text, column, declared)
    if found is None:
        return None
    invoked = f"`/{_skill_name(snapshot)}`"
    head = f"**`{found.written}`** · skill argument"
    if found.kind == ALL:
        body = (
            f"Claude Code replaces it with the whole argument string typed after {invoked}, "
            "as typed (empty when there is none). A body without `$ARGUMENTS` gets "
            "`ARGUMENTS: <value>` appended instead."
        )
    elif found.index is None:
        listed = ", ".join(f"`{name}`" for name in declared) or "none"
        return (
            f"{head}\n\n`{found.written}` is not declared in `arguments` (declared: {listed}): "
            "Claude Code leaves it as written."
        )
    else:
        same = [f"`${found.index}`", f"`$ARGUMENTS[{found.index}]`"]
        if found.index < len(declared):
            same.append(f"`${declared[found.index]}`")
        others = ", ".join(form for form in same if form != f"`{found.written}`")
        body = (
            f"Claude Code replaces it with {_position_text(found.index, declared)} typed "
            f"after {invoked}: arguments are split at spaces, quotes keep words together; "
            f"{_when_not_given(found)} The same as {others}."
        )
        if found.kind == INDEX and declared and found.index >= len(declared):
            body += f" `arguments` declares only {len(declared)}."
    parts = [head, body]
    from skillkit_core.manifest.folder import SkillFolder

    scan = SkillFolder(snapshot.folder or ".", snapshot.skill_md).body_scan
    if line in scan.code_lines:
        parts.append(
            "*In a code block too: Claude Code substitutes the whole body before the agent "
            "reads it (`argument-in-code`).*"
        )
    return "\n\n".join(parts)


def _when_not_given(found: Any) -> str:
    """What Claude Code leaves of a placeholder whose argument was not given: a declared
    name becomes empty; an index stays as written in recent versions (2.1.251 and later,
    per the reports cited in :mod:`skillkit_core.manifest.arguments`; older ones emptied
    it)."""
    from skillkit_core.manifest.arguments import NAME

    if found.kind == NAME:
        return "Empty when fewer are given."
    return "Left as written when fewer are given (empty in older versions)."
