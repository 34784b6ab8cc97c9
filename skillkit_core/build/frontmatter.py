"""Block-style YAML for SKILL.md frontmatter, written by hand so every value stays text.

The strict spec validator parses frontmatter with StrictYAML (no flow lists, no
implicit types) and splits the file at the first ``---`` it finds anywhere; Claude Code
and most other hosts use ordinary YAML 1.1/1.2 parsers. The subset written here reads the
same in all of them:

- keys in a fixed order, one per line; lists as ``- item`` lines, mappings indented;
- strings in double quotes with JSON-style escapes (a valid YAML double-quoted scalar),
  so ``: ``, ``#``, quotes, newlines and leading symbols never change the meaning;
  line and paragraph separators are escaped too (YAML 1.1 treats them as line breaks),
  and runs of ``---`` are written as ``\\x2d`` escapes so no splitter sees a delimiter;
- a bare word only where it cannot be read as anything but that word (skill names);
- booleans as ``true``/``false``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence

FrontmatterValue = str | bool | Sequence[str] | Mapping[str, str]

# YAML 1.1 reads these bare words as booleans or null (bare names are lowercase).
_SPECIAL_WORDS = frozenset({"y", "n", "yes", "no", "on", "off", "true", "false", "null"})
_BARE = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
_UNSAFE = re.compile("[\u007f-\u009f\u2028\u2029\ufeff]")
_DASH_RUN = re.compile(r"-{3,}")


def quote(text: str) -> str:
    """``text`` as a YAML double-quoted scalar that every parser reads back unchanged."""
    quoted = json.dumps(text, ensure_ascii=False)
    quoted = _UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", quoted)
    return _DASH_RUN.sub(lambda m: "\\x2d" * len(m.group()), quoted)


def scalar(text: str) -> str:
    """A bare word when that is unambiguous, else :func:`quote`."""
    if _BARE.fullmatch(text) and text not in _SPECIAL_WORDS:
        return text
    return quote(text)


def render(fields: Sequence[tuple[str, FrontmatterValue]]) -> str:
    """The frontmatter block, delimiters included, for ``(key, value)`` pairs in order."""
    lines = ["---"]
    for key, value in fields:
        lines.extend(_field(key, value))
    lines.append("---")
    return "\n".join(lines) + "\n"


def _field(key: str, value: FrontmatterValue) -> list[str]:
    if isinstance(value, bool):
        return [f"{key}: {'true' if value else 'false'}"]
    if isinstance(value, str):
        return [f"{key}: {scalar(value) if key == 'name' else quote(value)}"]
    if isinstance(value, Mapping):
        return [f"{key}:"] + [f"  {scalar(k)}: {quote(v)}" for k, v in value.items()]
    return [f"{key}:"] + [f"  - {quote(item)}" for item in value]
