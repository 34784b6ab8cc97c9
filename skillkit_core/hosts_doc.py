"""The hosts' documentation pages, generated from the host inventory (like the rule
pages): an index with the tool each tag maps to on each host, and one page per host with
its names, the evidence for each, and how it is detected."""

from __future__ import annotations

from skillkit_core.hosts import HOSTS, HOSTS_BY_ID, Evidence, HostInfo
from skillkit_core.hosts_data import DETECT_ORDER, NOT_LISTED, READ_ON, TAGS

NO_TOOL = "—"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def source_link(evidence: Evidence) -> str:
    """A Markdown link to the place: the file at its commit, or the page (with date)."""
    if evidence.repo:
        url = f"https://github.com/{evidence.repo}/blob/{evidence.commit}/{evidence.path}"
        return f"[{evidence.repo}: `{evidence.path}` @ `{evidence.commit[:12]}`]({url})"  # type: ignore[index]
    return f"[{evidence.url}]({evidence.url}) (as stored on {evidence.date})"


def _tag_tool(host: HostInfo, tag: str) -> str:
    mapping = host.tags.get(tag)
    if mapping is None:
        return NO_TOOL
    return ", ".join(f"`{tool}`" for tool in mapping.tools)


def index_markdown() -> str:
    """The hosts index: which tool serves each tag on each host."""
    header = "| Host | " + " | ".join(f"`<{tag}>`" for tag in TAGS) + " |"
    rows = [
        f"| [{host.name}]({host.id}.md) (`{host.id}`) | "
        + " | ".join(_tag_tool(host, tag) for tag in TAGS)
        + " |"
        for host in HOSTS
    ]
    detected = [
        f"- `{variable}`: [{HOSTS_BY_ID[host_id].name}]({host_id}.md)"
        for host_id in DETECT_ORDER
        for variable, _ in HOSTS_BY_ID[host_id].detect
    ]
    unlisted = [f"- {name.title()}: {_cell(why)}" for name, why in NOT_LISTED.items()]
    return "\n".join(
        [
            "# Hosts",
            "",
            "The preamble of a run tells the agent which of its own tools serves each tag. "
            "Every tool name below was read in the host's own source or documentation; "
            "each host's page cites the place (repository, path and commit, or page and "
            f"date) and the version it was read from (read on {READ_ON}). "
            f"{NO_TOOL} means the host has no such tool and the agent works in plain "
            "conversation. The data is `skillkit_core/hosts_data.py`; this page is "
            "generated from it.",
            "",
            header,
            "| --- | " + " | ".join("---" for _ in TAGS) + " |",
            *rows,
            "",
            "## Detection",
            "",
            "Without `--host`, `scripts/run` looks for a variable that a host is documented "
            "(or seen in its source) to set for the commands it runs, says on stderr which "
            "host it found and why, and otherwise uses `generic`. `--host` always wins. "
            "Checked in this order:",
            "",
            *detected,
            "",
            "## Not listed",
            "",
            *unlisted,
            "",
        ]
    )


def host_markdown(host: HostInfo) -> str:
    """One host's page: version, tag mapping, names with evidence, detection, sources."""
    lines = [f"# {host.name}", "", f"`--host {host.id}`", ""]
    if host.version:
        lines += [f"Read from: {host.version}.", ""]
    if host.no_names:
        lines += [f"No tool names are listed: {host.no_names}", ""]
    lines += ["## Tags", "", "| Tag | Tool | Note |", "| --- | --- | --- |"]
    for tag in TAGS:
        mapping = host.tags.get(tag)
        note = mapping.note if mapping and mapping.note else ""
        lines.append(f"| `<{tag}>` | {_tag_tool(host, tag)} | {_cell(note)} |")
    lines.append("")
    if host.tools:
        lines += ["## Tool names", "", "| Name | Read in |", "| --- | --- |"]
        for tool in host.tools:
            lines.append(f"| `{tool}` | {source_link(host.evidence[tool])} |")
        lines.append("")
    if host.renamed:
        lines += [
            "## Older names",
            "",
            "A `--tools` list with an older name still serves the tag of its current tool.",
            "",
            "| Older name | Current name | Read in |",
            "| --- | --- | --- |",
        ]
        for old, new in host.renamed.items():
            lines.append(f"| `{old}` | `{new}` | {source_link(host.evidence[old])} |")
        lines.append("")
    retired = [
        name for name in host.evidence if name not in host.tools and name not in host.renamed
    ]
    if retired:
        lines += ["## Removed tools", "", "| Name | Read in |", "| --- | --- |"]
        for name in retired:
            lines.append(f"| `{name}` | {source_link(host.evidence[name])} |")
        lines.append("")
    if host.detect:
        lines += ["## Detection", ""]
        for variable, evidence in host.detect:
            lines.append(f"- `{variable}`: {source_link(evidence)}")
        lines.append("")
    if host.sources:
        lines += ["## Sources", ""]
        for evidence in host.sources.values():
            facts = f": {_cell(evidence.facts)}" if evidence.facts else ""
            lines.append(f"- {source_link(evidence)}{facts}")
        lines.append("")
    return "\n".join(lines)


def pages() -> dict[str, str]:
    """Every hosts page by its path under the docs root."""
    result = {"hosts/index.md": index_markdown()}
    for host in HOSTS:
        result[f"hosts/{host.id}.md"] = host_markdown(host)
    return result
