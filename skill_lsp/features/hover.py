"""Hovers: what an agent on the selected host sees of a step or an ``act.*`` call, what a
SKILL.md key means, and what a referenced file holds.

Step hovers join the syntax layer (where the step is, its literal transitions) with the
semantic layer's latest result for the document (the prompt rendered by the core's
preview for ``skillkit.host``, the response schema, guaranteed store entries, the visit
limit). Without a semantic result the hover says why and shows what syntax knows.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

from lsprotocol import types

from skill_lsp.index import DocumentKind, Snapshot, is_markdown
from skillkit_core.source.model import Target

_STRING = re.compile(r"""(?P<q>["'])(?P<value>[^"'\\\r\n]*)(?P=q)""")
PREVIEW_LINES = 12
MAX_SCHEMA_CHARS = 4000
MAX_PROMPT_CHARS = 100_000
"""A rendered prompt longer than this is cut in a hover: a prompt function returning
100 MB sent it whole, and the hovers and diagnostics of other files waited behind it."""


def register(server: Any) -> None:
    """Declare ``textDocument/hover``."""

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: Any, params: types.HoverParams) -> types.Hover | None:
        snapshot = ls.documents.get(params.text_document.uri)
        if snapshot is None:
            return None
        line, column = snapshot.map.code_point(params.position)
        if snapshot.kind == DocumentKind.PYTHON:
            text = python_hover(ls, snapshot, line, column)
        elif snapshot.kind == DocumentKind.SKILL_MD:
            from skill_lsp.skill_md_arguments import argument_hover
            from skill_lsp.skill_md_values import value_hover

            text = (
                argument_hover(snapshot, line, column)
                or skill_md_hover(snapshot, line, column)
                or value_hover(snapshot, line, column)
            )
        else:
            from skill_lsp.skill_md_links import reference_hover

            text = reference_hover(snapshot, line, column)
        if not text and is_markdown(snapshot.path):
            from skill_lsp.skill_md_symbols import skill_hover

            # A skill named here (/name, a mention): its description (needs the index).
            text = await skill_hover(ls, snapshot, line, column)
        if not text:
            return None
        return types.Hover(contents=types.MarkupContent(kind=_markup(ls), value=text))


def _markup(ls: Any) -> types.MarkupKind:
    from pygls.capabilities import get_capability

    formats = get_capability(ls.client_capabilities, "text_document.hover.content_format", None)
    if formats and types.MarkupKind.Markdown not in formats:
        return types.MarkupKind.PlainText
    return types.MarkupKind.Markdown


def fenced(text: str, language: str = "") -> str:
    """``text`` in a code fence longer than any backtick run inside it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text}\n{fence}"


# -- Python ---------------------------------------------------------------------------


def python_hover(ls: Any, snapshot: Snapshot, line: int, column: int) -> str | None:
    """The hover text at (line, column) of a Python skill file."""
    from skillkit_core.source.query import contains, definition_of, ref_at, step_at

    index = snapshot.index
    ref = ref_at(index, line, column)
    if ref is not None and ref.target in (Target.STEP, Target.SELF):
        step = definition_of(index, ref)
        if step is not None:
            return step_hover(ls, snapshot, step)
        return f"no step named `{ref.name}` in this skill"
    for call in index.act_calls:
        if contains(call.name_range, line, column):
            return act_hover(ls, snapshot, call)
    for guard in index.tool_guards:
        if guard.tool and contains(guard.range, line, column):
            return tool_hover(ls, guard.tool)
    step = step_at(index, line, column)
    if step is not None and contains(step.method_range, line, column):
        return step_hover(ls, snapshot, step)
    return file_hover_at(snapshot, line, column)


def _semantic_note(ls: Any, snapshot: Snapshot) -> str | None:
    result = snapshot.semantic
    if not ls.settings.semantic_enabled:
        return (
            "*Prompt previews are off: author code is not executed "
            "(untrusted workspace or `skillkit.executeCode` is false).*"
        )
    if result is None:
        return "*Analysing the module… the rendered prompt appears here once it is built.*"
    if result.problem:
        return f"*The module could not be analysed: {result.problem}*"
    if result.version != snapshot.version:
        return "*From the last analysis; the document has changed since.*"
    if result.definitions_from is not None:
        return "*From the last version that built: this one stops before building the skill.*"
    if result.host and result.host != ls.settings.host:
        return f"*Rendered for `{result.host}`; the preview for `{ls.settings.host}` is coming.*"
    return None


def _chain_of_step(snapshot: Snapshot, step: Any) -> Any:
    return snapshot.index.chains[step.chain]


def step_hover(ls: Any, snapshot: Snapshot, step: Any) -> str:
    """Markdown for a step: rendered prompt, schema, transitions, store, visit limit."""
    chain = _chain_of_step(snapshot, step)
    host = ls.settings.host
    result = snapshot.semantic
    info = None
    if result is not None and not result.disabled and step.name is not None:
        info = result.step_info(chain, step.name)
    parts = [f"**step `{step.name}`** · {chain.kind} `{chain.display_name}` · host `{host}`"]
    note = _semantic_note(ls, snapshot)
    if note:
        parts.append(note)
    if info is not None:
        parts.extend(_semantic_step_parts(info, host if result is None else result.host))
    else:
        parts.extend(_syntax_step_parts(step))
    parts.append(_transition_part(snapshot, step, info))
    return "\n\n".join(part for part in parts if part)


def _semantic_step_parts(info: dict[str, Any], host: str) -> list[str]:
    parts = []
    prompt = info.get("prompt")
    kind = info.get("prompt_kind")
    if prompt:
        label = f"Prompt on `{host}`"
        if kind == "dynamic":
            label += " (rendered against example data"
            example = info.get("example") or {}
            store = [
                entry.get("step") for entry in example.get("store", ()) if isinstance(entry, dict)
            ]
            label += f": example results of {', '.join(store)})" if store else ")"
        if len(prompt) > MAX_PROMPT_CHARS:
            more = len(prompt) - MAX_PROMPT_CHARS
            label += f", its first {MAX_PROMPT_CHARS:,} characters ({more:,} more: preview it)"
            prompt = prompt[:MAX_PROMPT_CHARS] + "\n…"
        parts.append(f"{label}:\n{fenced(prompt, 'xml')}")
    elif info.get("pending"):
        parts.append(f"*Rendering this dynamic prompt for `{host}` against example data…*")
    elif info.get("has_prompt") is False:
        parts.append("No prompt: the step runs without an agent round trip.")
    schema = info.get("schema")
    if schema is not None:
        text = json.dumps(schema, indent=2, ensure_ascii=False)
        if len(text) > MAX_SCHEMA_CHARS:
            text = text[:MAX_SCHEMA_CHARS] + "\n…"
        name = info.get("response") or "response"
        parts.append(f"Response `{name}` (JSON Schema):\n{fenced(text, 'json')}")
    guaranteed = info.get("guaranteed") or []
    if guaranteed:
        listed = ", ".join(f"`{name}`" for name in guaranteed)
        parts.append(f"Guaranteed in the store: {listed}")
    else:
        parts.append("Guaranteed in the store: nothing (no step runs on every path before it)")
    limit = info.get("visit_limit")
    if limit is not None:
        implicit = " (implicit: the step is on a cycle)" if info.get("visit_limit_implicit") else ""
        fallback = info.get("on_max_visits")
        then = f", then `{fallback}`" if fallback else ""
        parts.append(f"Visit limit: {limit}{implicit}{then}")
    for note in info.get("notes") or ():
        parts.append(f"*{note}*")
    return parts


def _syntax_step_parts(step: Any) -> list[str]:
    facts = [f"prompt: {step.prompt.value}"]
    if step.primitives:
        facts.append("primitives: " + ", ".join(f"`act.{p}`" for p in step.primitives))
    if step.response:
        facts.append(f"response: `{step.response}`")
    if step.max_visits:
        facts.append(f"max_visits: {step.max_visits}")
    return [" · ".join(facts)]


def _transition_part(snapshot: Snapshot, step: Any, info: dict[str, Any] | None) -> str:
    graph = snapshot.step_graph(step.chain)
    incoming = list(info.get("incoming") or ()) if info else []
    if not incoming:
        incoming = list(graph.incoming.get(step.name, ()))
    lines = []
    if graph.entry == step.name:
        lines.append("- entry step")
    if incoming:
        lines.append("- reached from " + ", ".join(f"`{name}`" for name in incoming))
    transitions = (info or {}).get("transitions") or []
    if transitions:
        for transition in transitions:
            lines.append("- " + _describe_transition(transition))
    else:
        outgoing = graph.outgoing.get(step.name, ())
        if outgoing:
            lines.append("- goes to " + ", ".join(f"`{name}`" for name in outgoing))
        elif step.next.value == "terminal":
            lines.append("- terminal: the skill ends here")
    return "Transitions:\n" + "\n".join(lines) if lines else ""


def _describe_transition(transition: dict[str, Any]) -> str:
    kind = transition.get("kind")
    target = transition.get("target")
    condition = transition.get("condition")
    if kind == "terminal":
        return "terminal: the skill ends here"
    head = f"→ `{target}`"
    if kind == "branch":
        when = f"when `{condition}`" if condition else "otherwise"
        return f"{head} (branch {transition.get('position')}) {when}"
    if kind == "dynamic":
        return f"{head} (`{condition}` may return it)"
    if kind == "max_visits":
        return f"{head} (loop guard: {condition})"
    if kind == "route":
        return f"{head} (route out of the dispatcher)"
    return head


def act_hover(ls: Any, snapshot: Snapshot, call: Any) -> str:
    """Markdown for an ``act.*`` call: its XML and its preamble row on the host."""
    host = ls.settings.host
    parts = [f"**`act.{call.primitive}`** · host `{host}`"]
    xml = _act_xml(snapshot, call)
    if xml:
        parts.append(f"Renders as:\n{fenced(xml, 'xml')}")
    else:
        note = _semantic_note(ls, snapshot)
        parts.append(note or "*Rendered inside a dynamic prompt: hover the step to see it.*")
    row = _preamble_row(call.primitive, host, ls.settings.tools)
    if row is not None:
        tool = row.tool or "— (plain conversation)"
        parts.append(
            "Preamble row on this host:\n\n| Tag | Tool | How to use |\n| --- | --- | --- |\n"
            f"| `{row.tag}` | {tool} | {row.how} |"
        )
    return "\n\n".join(parts)


def _act_xml(snapshot: Snapshot, call: Any) -> str | None:
    result = snapshot.semantic
    owner = next((o for o in call.owners if o.step is not None and o.slot == "prompt"), None)
    if result is None or owner is None:
        return None
    index = snapshot.index
    step = index.steps[owner.step]
    siblings = [
        other
        for other in index.act_calls
        if any(o.step == owner.step and o.slot == "prompt" for o in other.owners)
    ]
    position = next((i for i, other in enumerate(siblings) if other is call), None)
    info = result.step_info(index.chains[step.chain], step.name) if step.name else None
    acts = (info or {}).get("acts") or []
    if position is None or len(acts) != len(siblings):
        return None
    return acts[position]


def _preamble_row(primitive: str, host: str, tools: tuple[str, ...]) -> Any:
    from skillkit_core.hosts import Handshake, normalize_host
    from skillkit_core.preamble import preamble_rows
    from skillkit_core.primitives.registry import BY_KIND

    spec = BY_KIND.get(primitive)
    if spec is None:
        return None
    rows = preamble_rows(Handshake(normalize_host(host), tuple(tools)))
    tag = f"<{spec.tag}>"
    return next((row for row in rows if row.tag == tag), None)


def tool_hover(ls: Any, tool: str) -> str:
    """Which known hosts have ``tool``."""
    from skillkit_core.hosts import HOSTS

    having = [host.id for host in HOSTS if tool in host.tools]
    selected = ls.settings.host
    mark = "has" if selected in having else "does not list"
    listed = ", ".join(f"`{h}`" for h in having) or "no known host"
    return f"**tool `{tool}`**\n\n`{selected}` {mark} this tool. Hosts that have it: {listed}."


# -- files named in the text ----------------------------------------------------------


def file_hover_at(snapshot: Snapshot, line: int, column: int) -> str | None:
    """A hover for a quoted relative path under the cursor (``references/x.md`` ...)."""
    if snapshot.folder is None:
        return None
    text = snapshot.lines[line] if 0 <= line < len(snapshot.lines) else ""
    for match in _STRING.finditer(text):
        if match.start("value") <= column <= match.end("value"):
            return file_preview(snapshot.folder, match.group("value"))
    return None


def file_preview(folder: str, relative: str) -> str | None:
    """The first lines and a token estimate of a file inside ``folder``."""
    from skillkit_core.manifest.spec import estimate_tokens

    relative = relative.strip()
    if not relative or relative.startswith(("http:", "https:", "#")) or "\0" in relative:
        return None
    root = os.path.realpath(folder)
    for candidate in (relative, os.path.join("references", relative)):
        target = os.path.realpath(os.path.join(root, candidate))
        if not target.startswith(root + os.sep) or not os.path.isfile(target):
            continue
        try:
            with open(target, encoding="utf-8", errors="replace") as stream:
                content = stream.read(256 * 1024)
        except OSError:
            return None
        head = content.splitlines()[:PREVIEW_LINES]
        shown = os.path.relpath(target, root)
        tokens = estimate_tokens(content)
        more = "\n…" if len(content.splitlines()) > PREVIEW_LINES else ""
        return f"**`{shown}`** · ~{tokens} tokens\n\n{fenced(chr(10).join(head) + more)}"
    return None


# -- SKILL.md -------------------------------------------------------------------------


def skill_md_hover(snapshot: Snapshot, line: int, column: int) -> str | None:
    """Frontmatter key docs, or a path's preview (a script's interpreter and first lines,
    another file's first lines): the path is looked for on the cursor's line only."""
    from skill_lsp.skill_md import key_hover
    from skill_lsp.skill_md_links import reference_hover
    from skillkit_core.source.query import contains

    for key, span in snapshot.skill_md.fields.items():
        if contains(span.key_range, line, column):
            return key_hover(key)
    return reference_hover(snapshot, line, column)
