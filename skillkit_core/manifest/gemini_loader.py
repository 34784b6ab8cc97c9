"""Whether Gemini CLI's skill loader takes a SKILL.md, and why not: its own reading.

Facts from google-gemini/gemini-cli, ``packages/core/src/skills/skillLoader.ts`` at
04fbf507 (``FRONTMATTER_REGEX``, ``parseFrontmatter``, ``parseSimpleFrontmatter``,
``loadSkillFromFile``; read 2026-11-29):

- The file is read as UTF-8 text (bytes that are not UTF-8 become U+FFFD; nothing fails).
- It must start with ``---`` and a line break, and a later line must start with ``---``
  (a pattern: ``^---\\r?\\n(...)\\r?\\n---``); a byte-order mark before the first ``---``
  hides the frontmatter.
- The frontmatter is read with js-yaml; when that fails, or ``name`` or ``description`` is
  not a string, a line reader takes the last ``name:`` and ``description:`` lines (with
  the indented lines after the latter). The skill loads when both are found, whatever
  they hold: no length, format or folder check.
- The name's ``: \\ / < > * ? " |`` become ``-``.

Checked against the real Gemini CLI (0.61.0, ``gemini skills list``, 2026-11-29), which
also showed: js-yaml 4 reads YAML 1.2 (``yes`` is text, ``0o17`` a number) and refuses a
repeated key; U+2028, U+2029 and U+0085 are no line breaks to it, nor is U+0085 or
U+001C white space to JavaScript's ``\\s``; its scan (``SKILL.md`` and ``*/SKILL.md``
under a skills folder) finds only ``SKILL.md`` spelt so (on Linux), follows a symbolic
link wherever it leads and reads a file of any size.
"""

from __future__ import annotations

import re

from skillkit_core.manifest.parse import ParsedSkillMd

READS = ("name", "description")
"""The frontmatter keys Gemini CLI reads; it ignores every other."""

_FRONTMATTER = re.compile(r"---\r?\n([\s\S]*?)\r?\n---(?:\r?\n([\s\S]*))?")
# JavaScript's \s (ECMA-262 WhiteSpace and LineTerminator), narrower than Python's: no
# U+001C..U+001F, no U+0085.
_JS_SPACE = "[\t\n\v\f\r \xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]"
# JavaScript's "." stops at any line terminator, lone CR and U+2028/9 included.
_NAME_LINE = re.compile(f"{_JS_SPACE}*name:{_JS_SPACE}*[^\n\r\u2028\u2029]*")
_DESCRIPTION_LINE = re.compile(f"{_JS_SPACE}*description:{_JS_SPACE}*[^\n\r\u2028\u2029]*")
_CONTINUATION = re.compile(r"[ \t]+\S")


def gemini_skips(folder_name: str, manifest_name: str) -> list[str]:
    """Why Gemini CLI's scan of a skills folder would not find this skill's file."""
    if manifest_name != "SKILL.md":
        return [f"Gemini CLI looks for a file named SKILL.md (on Linux, not {manifest_name})"]
    if folder_name.startswith("."):
        return ["Gemini CLI passes over folders whose names start with a dot"]
    return []


def gemini_refusals(parsed: ParsedSkillMd) -> list[str]:
    """Why Gemini CLI would skip this SKILL.md (empty when it loads it)."""
    if parsed.had_bom:
        return [
            "Gemini CLI finds no frontmatter behind a byte-order mark (the file must start "
            "with '---')"
        ]
    match = _FRONTMATTER.match(parsed.text)
    if match is None:
        return [
            "Gemini CLI finds no frontmatter: the file must start with a '---' line, and a "
            "later line must start with '---'"
        ]
    if _yaml_strings(match.group(1)) or _lines_found(match.group(1)):
        return []
    return ["Gemini CLI skips a skill without both a name and a description"]


def _yaml_strings(frontmatter: str) -> bool:
    """Whether js-yaml 4 reads a string ``name`` and ``description``."""
    from skillkit_core.manifest.yaml12 import load_js_yaml_4

    try:
        data = load_js_yaml_4(frontmatter)
    except Exception:  # any failure: the line reader decides
        return False
    if not isinstance(data, dict):
        return False
    return isinstance(data.get("name"), str) and isinstance(data.get("description"), str)


def _lines_found(frontmatter: str) -> bool:
    """Whether the line reader finds a ``name:`` and a ``description:`` line (the
    indented lines after a description are its own, not lines of their own)."""
    lines = re.split(r"\r?\n", frontmatter)
    name = description = False
    index = 0
    while index < len(lines):
        if _NAME_LINE.fullmatch(lines[index]):
            name = True
        elif _DESCRIPTION_LINE.fullmatch(lines[index]):
            description = True
            while index + 1 < len(lines) and _CONTINUATION.match(lines[index + 1]):
                index += 1
        index += 1
    return name and description
