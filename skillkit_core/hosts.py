"""Known agent hosts and their tool inventories, and the handshake a run starts with.

Pure data plus a few lookups: this module is imported on the ``scripts/run`` hot path,
so it must stay free of heavy imports.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

GENERIC = "generic"


@dataclass(frozen=True)
class Handshake:
    """What the calling agent told us about itself.

    ``host`` is a host id from the registry (unknown ids are treated as ``generic``),
    ``tools_available`` the tools the agent reported, ``is_subagent`` whether the caller
    is a subagent whose reported tools are authoritative.
    """

    host: str = "generic"
    tools_available: tuple[str, ...] = field(default_factory=tuple)
    is_subagent: bool = False


@dataclass(frozen=True)
class HostInfo:
    """One known host: its id (the ``--host`` value), a display name and its tools."""

    id: str
    name: str
    tools: tuple[str, ...]


# The Cline family shares one inventory (its forks add a few tools of their own that
# none of our primitives use).
_CLINE_FAMILY_TOOLS = (
    "execute_command",
    "read_file",
    "write_to_file",
    "edit_file",
    "apply_diff",
    "apply_patch",
    "search_files",
    "list_files",
    "codebase_search",
    "ask_followup_question",
    "attempt_completion",
    "new_task",
    "switch_mode",
    "update_todo_list",
)

HOSTS: tuple[HostInfo, ...] = (
    HostInfo(
        "claude-code",
        "Claude Code",
        (
            "AskUserQuestion",
            "EnterPlanMode",
            "ExitPlanMode",
            "TaskCreate",
            "TaskUpdate",
            "TaskList",
            "TaskGet",
            "Agent",
            "Skill",
            "Read",
            "Edit",
            "Write",
            "Bash",
            "Glob",
            "Grep",
            "WebFetch",
            "WebSearch",
            "TodoWrite",
            "SendMessage",
            "Monitor",
            "LSP",
            "NotebookEdit",
            "EnterWorktree",
            "ExitWorktree",
        ),
    ),
    HostInfo(
        "codex",
        "Codex CLI",
        (
            "shell",
            "apply_patch",
            "update_plan",
            "web_search",
            "view_image",
            "exec_command",
            "write_stdin",
            "ToolRequestUserInput",
            "CollabAgent",
        ),
    ),
    HostInfo(
        "opencode",
        "OpenCode",
        (
            "bash",
            "read",
            "write",
            "edit",
            "apply_patch",
            "glob",
            "grep",
            "codesearch",
            "lsp",
            "webfetch",
            "websearch",
            "question",
            "todo",
            "task",
            "plan",
            "skill",
        ),
    ),
    HostInfo(
        "gemini-cli",
        "Gemini CLI",
        (
            "shell",
            "read-file",
            "write-file",
            "edit",
            "glob",
            "grep",
            "web-search",
            "web-fetch",
            "ask-user",
            "enter-plan-mode",
            "exit-plan-mode",
            "write-todos",
            "agent",
            "tracker-create-task",
            "tracker-update-task",
            "memory",
            "activate-skill",
            "complete-task",
        ),
    ),
    HostInfo("cline", "Cline", _CLINE_FAMILY_TOOLS),
    HostInfo("roo-code", "Roo Code", _CLINE_FAMILY_TOOLS),
    HostInfo("kilo-code", "Kilo Code", _CLINE_FAMILY_TOOLS),
    HostInfo(
        "cursor",
        "Cursor",
        (
            "codebase_search",
            "read_file",
            "edit_file",
            "run_terminal_command",
            "file_search",
            "grep_search",
            "list_dir",
        ),
    ),
    HostInfo("amp", "Amp", ("shell", "read", "write", "edit")),
    HostInfo(GENERIC, "Generic agent", ()),
)

HOSTS_BY_ID: dict[str, HostInfo] = {host.id: host for host in HOSTS}

KNOWN_HOST_IDS: tuple[str, ...] = tuple(host.id for host in HOSTS)

# Every tool name any known host has (used by the unknown-tool-names lint rule).
KNOWN_TOOL_NAMES: frozenset[str] = frozenset(tool for host in HOSTS for tool in host.tools)

_warned_hosts: set[str] = set()


def is_known_host(name: str) -> bool:
    """Whether ``name`` (case and surrounding space ignored) is a known host id."""
    return name.strip().lower() in HOSTS_BY_ID


def normalize_host(name: str | None) -> str:
    """Return the registry id for ``name``; unknown names become ``generic``.

    An empty or missing name is silently ``generic``. An unknown name is accepted too
    (a new host must never crash a run) but a one-line warning goes to stderr, once per
    name and process.
    """
    if name is None or not name.strip():
        return GENERIC
    key = name.strip().lower()
    if key in HOSTS_BY_ID:
        return key
    if key not in _warned_hosts:
        _warned_hosts.add(key)
        known = ", ".join(KNOWN_HOST_IDS)
        print(
            f"skillkit: warning: unknown host {name!r}, treating it as '{GENERIC}' "
            f"(known hosts: {known})",
            file=sys.stderr,
        )
    return GENERIC


def host_info(name: str | None) -> HostInfo:
    """The registry entry for ``name`` (``generic``, with a warning, when unknown)."""
    return HOSTS_BY_ID[normalize_host(name)]
