"""Every tool name a known host has or had, read from the host inventory's data.

The SKILL.md rules only ask whether a name is a known tool: this answers without
building the host objects of :mod:`skillkit_core.hosts` (and importing what they need).
"""

from __future__ import annotations

from skillkit_core import hosts_data as _data


def known_tool_names() -> frozenset[str]:
    """Current, older (``renamed``) and retired names of every host's tools."""
    names: set[str] = set()
    for entry in _data.HOSTS:
        names.update(entry["tools"])
        names.update(entry["renamed"])
        names.update(entry.get("retired", {}))
    return frozenset(names)


KNOWN_TOOL_NAMES: frozenset[str] = known_tool_names()
