"""Whether OpenCode lists a skill, and why not: its own reading of SKILL.md.

Observed with OpenCode 1.18.33 (npm ``opencode-ai``, ``opencode debug skill``, 2026-11-29;
its frontmatter reader is gray-matter with js-yaml 3's ``safeLoad``):

- It finds files named exactly ``SKILL.md`` (at any depth under a skills folder).
- A byte-order mark is dropped. The first line must be ``---`` (spaces after it are
  taken); the frontmatter ends at the next line that starts with ``---``, or with the
  file.
- The YAML is js-yaml 3's (:func:`~skillkit_core.manifest.yaml12.load_js_yaml_3`): a
  repeated key fails it; U+2028, U+0085 and leading tabs do not. When it fails, a plain
  value holding a colon YAML takes for a mapping's (``Use when: X``, ``Ends with:``) is
  made a block scalar and it is read once more.
- The skill is kept when ``name`` is text (any text, empty too) and ``description`` is
  text or absent; it is dropped without a word otherwise. A skill without a description
  is left out of the model's list of skills.
"""

from __future__ import annotations

import re
from typing import Any

from skillkit_core.manifest.parse import ParsedSkillMd


def opencode_skips(manifest_name: str) -> list[str]:
    """Why OpenCode's scan would not find the skill's file."""
    if manifest_name != "SKILL.md":
        return [f"OpenCode looks for a file named exactly SKILL.md, not {manifest_name}"]
    return []


def opencode_reading(parsed: ParsedSkillMd) -> tuple[list[str], list[str]]:
    """``(why OpenCode drops this SKILL.md, notes on a skill it keeps)``; the first is
    empty when it lists the skill."""
    frontmatter = _frontmatter(parsed.text)
    if frontmatter is None:
        return [
            "OpenCode finds no frontmatter it can read: the file must start with a '---' "
            "line, closed by a line starting with '---' (an indented '---' does not close it)"
        ], []
    data, problem = _read(frontmatter)
    if problem is not None:
        return [f"OpenCode cannot read the frontmatter, and drops the skill: {problem}"], []
    if not isinstance(data, dict):
        return ["OpenCode drops a skill whose frontmatter is not a mapping of keys"], []
    if not isinstance(data.get("name"), str):
        return ["OpenCode drops a skill whose name is missing or is not text"], []
    if "description" not in data:
        return [], ["OpenCode leaves a skill without a description out of the model's list"]
    if not isinstance(data["description"], str):
        return ["OpenCode drops a skill whose description is not text"], []
    return [], []


def _frontmatter(text: str) -> str | None:
    """The frontmatter's text; without a closing line, all that follows the opening one
    (gray-matter reads it all as YAML: a body of comments and blank lines still loads)."""
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    if not lines or not lines[0].startswith("---") or lines[0][3:].strip(" \t"):
        return None
    for index, line in enumerate(lines[1:], start=1):
        if line.startswith("---"):
            return "\n".join(lines[1:index])
    # An indented '---' there starts a second YAML document to js-yaml 3, which
    # safeLoad refuses (seen: such a skill is dropped).
    if any(line.lstrip().startswith("---") for line in lines[1:]):
        return None
    return "\n".join(lines[1:])


def _read(frontmatter: str) -> tuple[Any, str | None]:
    import yaml

    from skillkit_core.manifest.yaml12 import load_js_yaml_3

    try:
        return load_js_yaml_3(frontmatter), None
    except (yaml.YAMLError, ValueError, RecursionError) as error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else "invalid YAML"
        repaired = _colon_values_as_blocks(frontmatter)
        if repaired == frontmatter:
            return None, first
        try:
            return load_js_yaml_3(repaired), None
        except (yaml.YAMLError, ValueError, RecursionError):
            return None, first


# A colon YAML would take for a mapping's: before a space or tab, or at the end.
_MAPPING_COLON = re.compile(r":(?:[ \t]|$)")


def _colon_values_as_blocks(frontmatter: str) -> str:
    """Each top-level ``key: value`` whose plain value holds a colon YAML reads as a
    mapping's (``Use when: X``, ``Ends with:``) as a ``|-`` block."""
    out = []
    for line in frontmatter.split("\n"):
        key, colon, value = line.partition(": ")
        plain = value.strip()
        if (
            colon
            and key
            and not key[0].isspace()
            and _MAPPING_COLON.search(plain)
            and plain[0] not in "'\"[{|>"
        ):
            out.append(f"{key}: |-\n  {plain}")
        else:
            out.append(line)
    return "\n".join(out)
