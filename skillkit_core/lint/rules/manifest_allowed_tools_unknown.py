"""allowed-tools-unknown: each ``allowed-tools`` entry names a tool some known host has.

The names are the host inventory's (``skillkit_core/hosts_data.py``, read by
``skillkit_core/tool_names.py``): every model-facing name read in a host's source or
documentation, current, older or removed. An entry's name is the part before its
parentheses (``Bash(git diff:*)`` names ``Bash``). MCP tools (``mcp__server__tool``) and
patterns (``*``, ``server/tool``) are left alone: their names come from the servers and
hosts a skill is used with.
"""

from __future__ import annotations

from collections.abc import Iterator

from skillkit_core.lint.diagnostic import LintDiagnostic
from skillkit_core.lint.rule import Rule
from skillkit_core.lint.rules.manifest_allowed_tools_broad import allowed_tool_entries
from skillkit_core.manifest.folder import SkillFolder


def tool_name(entry: str) -> str | None:
    """The tool an entry names, or None for an MCP tool or a pattern."""
    name = entry.split("(", 1)[0].strip()
    if not name or name.startswith("mcp__") or any(c in name for c in "*/:?[]{}"):
        return None
    return name


def _check(folder: SkillFolder) -> Iterator[LintDiagnostic]:
    if not folder.exists or not folder.frontmatter_ok or "allowed-tools" not in folder.frontmatter:
        return
    # The tool names and the name matcher load only for a skill that lists tools.
    from skillkit_core.lint.closest import closest_name
    from skillkit_core.tool_names import KNOWN_TOOL_NAMES

    for entry, where in allowed_tool_entries(folder):
        name = tool_name(entry)
        if name is None or name in KNOWN_TOOL_NAMES:
            continue
        hint = closest_name(name, KNOWN_TOOL_NAMES)
        yield RULE.diagnostic(
            f"'{name}' is not a tool of any known host, so this entry allows nothing"
            + (f"; did you mean '{hint}'?" if hint else ""),
            range=where,
            file=folder.skill_md,
        )


RULE = Rule(
    id="allowed-tools-unknown",
    severity="warning",
    summary="An allowed-tools entry names a tool no known host has.",
    rationale=(
        "allowed-tools pre-approves the tools it names. A name that no known host's tools "
        "have (as read in each host's source or documentation, current, older or removed) "
        "is usually a typo or a wrong case, and approves nothing. MCP tools "
        "(mcp__server__tool) and patterns are not checked."
    ),
    bad="allowed-tools: Read Grepp WebFetch",
    good="allowed-tools: Read Grep WebFetch mcp__sentry__search_issues",
    check=_check,
    target="manifest",
)
