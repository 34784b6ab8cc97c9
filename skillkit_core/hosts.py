"""Known agent hosts and their tool inventories, and the handshake a run starts with.

Pure data plus a few lookups: this module is imported on the ``scripts/run`` hot path,
so it must stay free of heavy imports.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from skillkit_core import hosts_data as _data
from skillkit_core.tool_names import known_tool_names as _known_tool_names

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


class Evidence(NamedTuple):
    """Where a name was read: a repository file at a commit, or a documentation page
    (``url``) with the date of the copy that was read; ``facts`` says what it shows."""

    key: str
    repo: str | None = None
    path: str | None = None
    commit: str | None = None
    url: str | None = None
    date: str | None = None
    facts: str | None = None

    def cite(self) -> str:
        """One line naming the place (repository, path and commit, or page and date)."""
        if self.repo:
            return f"{self.repo}: {self.path} @ {self.commit}"
        return f"{self.url} (read {self.date})"


class TagTools(NamedTuple):
    """The host's tools for one primitive tag, in order of preference, and the note the
    preamble adds when it names one of them from the inventory."""

    tools: tuple[str, ...]
    note: str | None = None


@dataclass(frozen=True)
class HostInfo:
    """One known host: its id (the ``--host`` value), a display name and its tools.

    ``tools`` are the model-facing names the host's source or documentation shows;
    ``evidence`` maps each of them (and each older name in ``renamed``, and each name of
    a tool the host removed) to where it was read; ``tags`` maps each primitive tag to
    the host's tools for it (None: the host has none, the agent works in plain
    conversation); ``detect`` lists environment variables the host sets for the
    commands it runs.
    """

    id: str
    name: str
    tools: tuple[str, ...]
    renamed: dict[str, str] = field(default_factory=dict)
    tags: dict[str, TagTools | None] = field(default_factory=dict)
    evidence: dict[str, Evidence] = field(default_factory=dict)
    sources: dict[str, Evidence] = field(default_factory=dict)
    detect: tuple[tuple[str, Evidence], ...] = ()
    version: str = ""
    no_names: str | None = None

    def names_for(self, tool: str) -> tuple[str, ...]:
        """``tool`` and every older name the host used for it."""
        return (tool, *(old for old, new in self.renamed.items() if new == tool))


def _host(entry: dict) -> HostInfo:
    sources = {key: Evidence(key, **fields) for key, fields in entry["sources"].items()}
    evidence = {name: sources[key] for name, key in entry["tools"].items()}
    renamed = {}
    for old, (new, key) in entry["renamed"].items():
        renamed[old] = new
        evidence[old] = sources[key]
    for name, key in entry.get("retired", {}).items():
        evidence[name] = sources[key]
    tags = {
        tag: None if value is None else TagTools(tuple(value["tools"]), value["note"])
        for tag, value in entry["tags"].items()
    }
    return HostInfo(
        id=entry["id"],
        name=entry["name"],
        tools=tuple(entry["tools"]),
        renamed=renamed,
        tags=tags,
        evidence=evidence,
        sources=sources,
        detect=tuple((variable, sources[key]) for variable, key in entry["detect"]),
        version=entry["version"],
        no_names=entry.get("no_names"),
    )


HOSTS: tuple[HostInfo, ...] = tuple(_host(entry) for entry in _data.HOSTS)

HOSTS_BY_ID: dict[str, HostInfo] = {host.id: host for host in HOSTS}

KNOWN_HOST_IDS: tuple[str, ...] = tuple(host.id for host in HOSTS)

# Every tool name any known host has or had: current, older and retired names (used by
# the tool-name lint rules: a guard on an older name is still a real name). The names a
# host's ``evidence`` holds, read from the data in one place (skillkit_core.tool_names).
KNOWN_TOOL_NAMES: frozenset[str] = _known_tool_names()


# Every environment variable host detection reads.
DETECTION_VARIABLES: tuple[str, ...] = tuple(
    variable for host in HOSTS for variable, _evidence in host.detect
)


def hosts_with_tool(tool: str) -> list[HostInfo]:
    """The hosts that have ``tool`` under this name, now or formerly."""
    return [host for host in HOSTS if tool in host.evidence]


def tag_candidates(tag: str) -> tuple[str, ...]:
    """Every host's tools for ``tag`` (and their older names), in registry order."""
    names: dict[str, None] = {}
    for host in HOSTS:
        mapping = host.tags.get(tag)
        for tool in mapping.tools if mapping else ():
            for name in host.names_for(tool):
                names.setdefault(name)
    return tuple(names)


def _reported_as(host: HostInfo, tool: str, reported: tuple[str, ...]) -> str | None:
    """The name under which ``reported`` holds ``host``'s ``tool``, if it does."""
    return next((name for name in host.names_for(tool) if name in reported), None)


def choose_tool(handshake: Handshake, tag: str) -> tuple[str | None, str | None]:
    """The tool serving ``tag`` for ``handshake`` and the note to add, or ``(None,
    None)`` when the agent should work in plain conversation.

    1. a tool the host's entry maps to the tag that the agent reported (under its
       current or an older name: the reported name is the one returned);
    2. unless the agent is a subagent (whose reported tools are all it has), the host's
       first tool for the tag, from the inventory, with the entry's note;
    3. a tool the agent reported that some other host maps to the tag (hosts in
       registry order).
    """
    host = host_info(handshake.host)
    reported = tuple(handshake.tools_available or ())
    mapping = host.tags.get(tag)
    if mapping is not None and reported:
        for tool in mapping.tools:
            name = _reported_as(host, tool, reported)
            if name is not None:
                return name, None
    if mapping is not None and not (reported and handshake.is_subagent):
        return mapping.tools[0], mapping.note
    if reported:
        for other in HOSTS:
            other_mapping = other.tags.get(tag)
            for tool in other_mapping.tools if other_mapping else ():
                name = _reported_as(other, tool, reported)
                if name is not None:
                    return name, None
    return None, None


def _why(host: HostInfo, evidence: Evidence) -> str:
    facts = evidence.facts or ""
    for clause in facts.split("; "):
        if any(variable in clause for variable, _ in host.detect):
            return clause
    return "it sets this for the commands it runs"


def detect_host(environ: Mapping[str, str] | None = None) -> tuple[str, str] | None:
    """The host whose documented environment variable is set, and why, or None.

    Only hosts whose source or documentation shows them setting a variable for the
    commands they run are detected; the reason names the variable and the evidence.
    """
    env = os.environ if environ is None else environ
    for host_id in _data.DETECT_ORDER:
        host = HOSTS_BY_ID[host_id]
        for variable, evidence in host.detect:
            if env.get(variable):
                why = _why(host, evidence)
                return host.id, f"{variable} is set ({host.name}: {why}; {evidence.cite()})"
    return None


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
