"""How Claude Code reads a skill folder, where that differs from the spec's reading.

From Claude Code 2.1.332 (npm ``@anthropic-ai/claude-code``; the skill loader and the
frontmatter reader in the source bundled in its binary, run offline here with ``claude
-p`` against a local stub, 2026-11-29):

- A skill is a folder holding a file named exactly ``SKILL.md``, of at most 1,000,000
  bytes (``skipping …: N bytes exceeds 1000000 byte limit``).
- The skill is named after its folder; the frontmatter's ``name`` is only shown beside
  it. A folder name Claude Code does not offer is left out: "a name may not hold hidden,
  direction-changing or blank-like characters, < or >, or be over 256 characters", and a
  space next to a colon, or a colon at either end, is refused too.
- The frontmatter is what lies between the opening ``---`` and the next ``---``
  *anywhere* (in the middle of a value too). A YAML error is retried with plain values
  quoted and leading tabs made spaces; when that fails too, the frontmatter is ignored and
  the skill still loads, as when there is none or it is no mapping. Bytes that are not
  UTF-8 are read as U+FFFD.
- Without a usable ``description``, the listing shows the first line of the body.
"""

from __future__ import annotations

import re
import unicodedata

from skillkit_core.manifest.parse import ParsedSkillMd

SIZE_MAX = 1_000_000
NAME_MAX = 256

# A space after the start or a colon, before a colon or the end; a colon at either end.
_COLON_SPACING = re.compile(r"(?:^|:) | (?::|$)|^:|:$")
# Hidden and direction-changing characters: format, private-use, unassigned and control.
_HIDDEN = frozenset({"Cf", "Co", "Cn", "Cc"})


# What Claude Code's switch reader (disable-model-invocation, user-invocable) takes as
# true and as false, in any case.
_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})


def switch_value(value: object) -> bool | None:
    """``value`` as Claude Code reads a switch: a boolean, or a string or number that
    reads as one; ``None`` for anything else (it then ignores the key)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # JavaScript writes 1.0 as "1"
    text = str(value).lower() if isinstance(value, str | int) else None
    return True if text in _TRUE else False if text in _FALSE else None


def claude_code_skips(folder_name: str, manifest_name: str, size: int | None) -> list[str]:
    """Why Claude Code would not load the skill at all (empty when it loads it)."""
    if manifest_name != "SKILL.md":
        return [f"Claude Code reads only a file named exactly SKILL.md, not {manifest_name}"]
    if size is not None and size > SIZE_MAX:
        return [f"Claude Code skips a SKILL.md over {SIZE_MAX:,} bytes (this one has {size:,})"]
    problem = folder_name_problem(folder_name)
    if problem is not None:
        return [f"Claude Code does not offer a skill whose folder name {problem}"]
    return []


def folder_name_problem(name: str) -> str | None:
    """Why Claude Code refuses ``name`` as a skill's name, or ``None``."""
    if len(name) > NAME_MAX:
        return f"is over {NAME_MAX} characters"
    if "<" in name or ">" in name:
        return "holds < or >"
    if "  " in name or _COLON_SPACING.search(name):
        return "has a space beside a colon, two spaces, or a colon at an end"
    for char in name:
        category = unicodedata.category(char)
        if category in _HIDDEN:
            return f"holds a hidden or direction-changing character (U+{ord(char):04X})"
        if category.startswith("Z") and char != " ":
            return f"holds a blank-like character (U+{ord(char):04X})"
    return None


def claude_code_reading(parsed: ParsedSkillMd, fatal: bool) -> list[str]:
    """What Claude Code makes of the frontmatter where it differs from the spec's reading
    (notes: the skill loads). ``fatal``: the frontmatter does not parse as the spec's."""
    notes = []
    if any(problem.code == "not-utf8" for problem in parsed.problems):
        notes.append("Claude Code reads the bytes that are not UTF-8 as U+FFFD")
    cut = _early_close(parsed)
    if cut is not None:
        notes.append(
            f"Claude Code ends the frontmatter at the first '---', inside line {cut}: "
            "what follows it there is not read as frontmatter"
        )
    if fatal:
        notes.append(
            "Claude Code still loads the skill: it retries broken YAML with plain values "
            "quoted and leading tabs made spaces, and where that fails (or there is no "
            "frontmatter) it ignores the frontmatter, so the skill is listed under its "
            "folder's name, described by the first line of its body, with none of its keys"
        )
    return notes


def _early_close(parsed: ParsedSkillMd) -> int | None:
    """The 1-based line of a ``---`` inside the frontmatter's YAML (not a line of its
    own), where Claude Code's pattern ends the frontmatter; ``None`` when there is none."""
    if not parsed.has_frontmatter or "---" not in parsed.yaml_text:
        return None
    for index, line in enumerate(parsed.yaml_text.split("\n")):
        if "---" in line:
            return parsed.yaml_start_line + index + 1
    return None
