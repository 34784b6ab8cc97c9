"""Completion of frontmatter values: the closed values of a key (``effort``, ``context``,
``model``, ``shell``, the booleans) and tool names in ``allowed-tools`` /
``disallowed-tools``, each with who reads the key and which hosts have the tool.

The values come from the key documentation (:func:`skill_lsp.skill_md.key_docs`, built on
the core's :mod:`skillkit_core.manifest.spec`), the readers of a key from
:func:`skill_lsp.skill_md.consumers_of`, the tools from the core's host inventory
(:mod:`skillkit_core.hosts`, the names the ``allowed-tools-unknown`` rule knows).
"""

from __future__ import annotations

import re

from lsprotocol import types

from skill_lsp.index import Snapshot
from skillkit_core.lint.diagnostic import SourceRange

TOOL_KEYS = ("allowed-tools", "disallowed-tools")
_KEY_VALUE = re.compile(r"^(?P<key>[A-Za-z_][\w-]*)\s*:[ \t]*(?P<rest>.*)$")
_LIST_ITEM = re.compile(r"^[ \t]+-[ \t]*(?P<rest>.*)$")
_TOP_KEY = re.compile(r"^(?P<key>[A-Za-z_][\w-]*)\s*:")
# Where one tool entry starts: after a space, a comma, a flow list's "[" or a quote that
# opens the value (not inside the parentheses of a rule such as "Bash(git diff:*)"); the
# same characters and a closing quote end it, so a completion keeps the value's quotes.
_ENTRY_BREAK = re.compile(r"[\s,\[\"']")


def readers_note(key: str) -> str:
    """Who reads ``key``, who ignores it and who refuses it, in one line per verdict."""
    from skill_lsp.skill_md import consumers_of

    groups: dict[str, list[str]] = {}
    for consumer, verdict in consumers_of(key):
        groups.setdefault(verdict.split(" (", 1)[0], []).append(consumer)
    wording = {"read": "Read by", "accepted": "Accepted by", "ignored": "Ignored by"}
    lines = [
        f"{wording.get(verdict, verdict.capitalize() + ' by')} {', '.join(consumers)}."
        for verdict, consumers in groups.items()
    ]
    return "\n\n".join(lines)


def _readers_short(key: str) -> str:
    from skill_lsp.skill_md import consumers_of

    hosts = [consumer for consumer, verdict in consumers_of(key) if verdict == "read"]
    return f"read by {', '.join(hosts)}" if hosts else "read by no known host"


def _key_at(snapshot: Snapshot, line: int, text: str) -> tuple[str, str, int] | None:
    """(key, typed value text, its column) for the cursor's line: ``key: value`` or a
    list item under ``key:``."""
    written = _KEY_VALUE.match(text)
    if written is not None:
        return written.group("key"), written.group("rest"), written.start("rest")
    item = _LIST_ITEM.match(text)
    if item is None:
        return None
    for above in range(line - 1, 0, -1):
        owner = _TOP_KEY.match(snapshot.lines[above])
        if owner is not None:
            return owner.group("key"), item.group("rest"), item.start("rest")
        if snapshot.lines[above][:1] not in (" ", "\t", ""):
            return None
    return None


def value_items(snapshot: Snapshot, line: int, column: int, host: str) -> list | None:
    """Values for the frontmatter key on the cursor's line (None: not a value position
    of a key with known values). ``host`` (the server's selected host) lists its tools
    first."""
    full = snapshot.lines[line]
    found = _key_at(snapshot, line, full[:column])
    if found is None:
        return None
    key, typed, start = found
    # Right after "key:" a value needs a space first ("effort:low" would be one string).
    lead = " " if start > 0 and full[start - 1] == ":" else ""
    if key in TOOL_KEYS:
        breaks = [match.end() for match in _ENTRY_BREAK.finditer(typed)]
        entry_start = start + (breaks[-1] if breaks else 0)
        if "(" in full[entry_start:column]:
            return None  # inside a rule's parentheses: Bash(git ...
        end = column
        while end < len(full) and not _ENTRY_BREAK.match(full[end]) and full[end] != "]":
            end += 1
        where = SourceRange(line, entry_start, line, end)
        present = set(re.findall(r"[\w.-]+", typed[: entry_start - start]))
        return _tool_items(snapshot, key, where, present, host, lead if not breaks else "")
    from skill_lsp.skill_md import key_docs

    doc = key_docs().get(key)
    if doc is None or not doc.values or not re.fullmatch(r"[\w\-\[\]\"']*", typed):
        return None
    end = len(full.rstrip())
    where = snapshot.map.range(SourceRange(line, start, line, max(end, column)))
    note = readers_note(key)
    short = _readers_short(key)
    return [
        types.CompletionItem(
            label=value,
            kind=types.CompletionItemKind.EnumMember,
            detail=f"{key} value · {short}",
            documentation=types.MarkupContent(
                kind=types.MarkupKind.Markdown, value=f"`{key}: {value}`\n\n{note}"
            ),
            sort_text=f"{order:02d}",
            filter_text=value,
            text_edit=types.TextEdit(range=where, new_text=lead + value),
        )
        for order, value in enumerate(doc.values)
    ]


def _tool_items(
    snapshot: Snapshot, key: str, where: SourceRange, present: set[str], host: str, lead: str
) -> list:
    from skillkit_core.hosts import HOSTS

    having: dict[str, list[str]] = {}
    for info in HOSTS:
        for tool in info.tools:
            having.setdefault(tool, []).append(info.id)
    names = {info.id: info.name for info in HOSTS}
    note = readers_note(key)
    edit_range = snapshot.map.range(where)
    items = []
    ordered = sorted(having, key=lambda tool: (host not in having[tool], tool.lower()))
    for order, tool in enumerate(ordered):
        if tool in present:
            continue
        hosts = ", ".join(names[host_id] for host_id in having[tool])
        items.append(
            types.CompletionItem(
                label=tool,
                kind=types.CompletionItemKind.Function,
                detail=f"tool of {hosts}",
                documentation=types.MarkupContent(
                    kind=types.MarkupKind.Markdown,
                    value=f"**`{tool}`**: a tool of {hosts}.\n\n`{key}`: {note}",
                ),
                sort_text=f"{order:04d}",
                filter_text=tool,
                text_edit=types.TextEdit(range=edit_range, new_text=lead + tool),
            )
        )
    return items


def value_hover(snapshot: Snapshot, line: int, column: int) -> str | None:
    """A hover on a frontmatter value: an ``allowed-tools`` entry (the hosts that have
    the tool), or the value of a key with known values (the others, who reads it)."""
    from skill_lsp.skill_md import key_docs
    from skillkit_core.source.query import contains

    parsed = snapshot.skill_md
    for key, span in parsed.fields.items():
        if not contains(span.value_range, line, column) or span.style == "empty":
            continue
        if key == "allowed-tools":
            return _entry_hover(snapshot, line, column)
        doc = key_docs().get(key)
        written = parsed.frontmatter.get(key)
        if doc is None or not doc.values:
            return None
        shown = str(written).lower() if isinstance(written, bool) else str(written)
        known = shown in doc.values
        values = ", ".join(f"`{value}`" for value in doc.values)
        verdict = "one of" if known else "not one of"
        return f"**`{key}: {shown}`** is {verdict} {values}.\n\n{readers_note(key)}"
    return None


def _entry_hover(snapshot: Snapshot, line: int, column: int) -> str | None:
    from skillkit_core.hosts import hosts_with_tool
    from skillkit_core.lint.rules.manifest_allowed_tools_broad import allowed_tool_entries
    from skillkit_core.lint.rules.manifest_allowed_tools_unknown import tool_name
    from skillkit_core.manifest.folder import SkillFolder
    from skillkit_core.source.query import contains

    folder = SkillFolder(snapshot.folder or ".", snapshot.skill_md)
    for entry, where in allowed_tool_entries(folder):
        if not contains(where, line, column):
            continue
        name = tool_name(entry)
        if name is None:
            return f"**`{entry}`**: an MCP tool or a pattern; the host's servers name it."
        hosts = [host.name for host in hosts_with_tool(name)]
        having = ", ".join(hosts) if hosts else "no known host (see `allowed-tools-unknown`)"
        return f"**`{entry}`** · tool `{name}`\n\nHosts with this tool: {having}."
    return None
