"""The tool names read straight from the host data are the host objects' names."""

from skillkit_core.hosts import HOSTS, KNOWN_TOOL_NAMES
from skillkit_core.tool_names import known_tool_names


def test_known_tool_names_are_every_name_some_host_has_evidence_for() -> None:
    names = frozenset(name for host in HOSTS for name in host.evidence)
    assert known_tool_names() == names == KNOWN_TOOL_NAMES
    assert {"Bash", "Read"} <= names  # Claude Code's, for one
