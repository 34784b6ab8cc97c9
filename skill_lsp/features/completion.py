"""Completion: step names wherever a step is named, routes, store reads (guaranteed steps
first), host tool names in ``tools_available`` guards, host names, ``act.`` primitives
with snippets; in a SKILL.md, frontmatter keys and values (:mod:`skill_lsp.skill_md_values`)
and ``$`` argument placeholders (:mod:`skill_lsp.skill_md_arguments`).

The core's cursor context (``node_at``) says what the cursor is in, even on half-typed
code; items replace exactly the string's content it reports.
"""

from __future__ import annotations

import inspect
import re
from typing import Any

from lsprotocol import types
from pygls.capabilities import get_capability

from skill_lsp.index import DocumentKind, Snapshot, is_markdown
from skillkit_core.lint.diagnostic import SourceRange
from skillkit_core.source.model import STORE_ROLES, Role

_TARGET_ROLES = frozenset(
    {Role.ENTRY, Role.NEXT, Role.BRANCH, Role.ON_MAX_VISITS, Role.NEXT_RETURN}
)
_ROUTE_ROLES = frozenset({Role.NEXT, Role.BRANCH, Role.NEXT_RETURN})
# A string compared with, or assigned to, a host name (``ctx.host.host == "codex"``,
# ``Handshake(host="codex")``, ``run_skill(..., host="codex")``).
_HOST_HEAD = re.compile(
    r"(?:\.host\s*(?:==|!=)|\bhost\s*=(?!=)|\bhost\s+(?:not\s+)?in\s*[(\[{][^)\]}]*)\s*$"
)
_OPEN_STRING = re.compile(r"""(?P<q>["'])(?P<typed>[^"'\\]*)$""")
_KEY_LINE = re.compile(r"^(?P<key>[A-Za-z_][\w-]*)?$")
_KEY_VALUE = re.compile(r"^(?P<key>[A-Za-z_][\w-]*)\s*:")
_VALUE_LINE = re.compile(r"^(?P<key>[A-Za-z_][\w-]*)\s*:\s*(?P<typed>[\w-]*)$")
# The rest of a key already written after the cursor, through its colon and one space.
_KEY_REST = re.compile(r"[\w-]*\s*:[ \t]?")


def register(server: Any) -> None:
    """Declare ``textDocument/completion``."""
    options = types.CompletionOptions(trigger_characters=['"', "'", ".", ":", "/", "$", "("])

    @server.feature(types.TEXT_DOCUMENT_COMPLETION, options)
    async def completion(ls: Any, params: types.CompletionParams) -> types.CompletionList | None:
        snapshot = ls.documents.get(params.text_document.uri)
        if snapshot is None:
            return None
        line, column = snapshot.map.code_point(params.position)
        if snapshot.kind == DocumentKind.PYTHON:
            items = python_items(ls, snapshot, line, column)
        else:
            from skill_lsp.skill_md_links import completion_items

            # Paths in a link target or after references/ (SKILL.md and reference files).
            items = completion_items(snapshot, line, column)
            if items is None and is_markdown(snapshot.path):
                from skill_lsp.skill_md_symbols import slash_items

                # /name of the workspace's skills (SKILL.md bodies and reference files).
                items = await slash_items(ls, snapshot, line, column)
            if items is None and snapshot.kind == DocumentKind.SKILL_MD:
                items = skill_md_items(ls, snapshot, line, column)
            elif items is None:
                items = []
        if items is None:
            return None
        return types.CompletionList(is_incomplete=False, items=items)


def _snippets(ls: Any) -> bool:
    return bool(
        get_capability(
            ls.client_capabilities,
            "text_document.completion.completion_item.snippet_support",
            False,
        )
    )


def _edit(snapshot: Snapshot, where: SourceRange, text: str) -> types.TextEdit:
    return types.TextEdit(range=snapshot.map.range(where), new_text=text)


def _item(
    snapshot: Snapshot,
    label: str,
    where: SourceRange,
    kind: types.CompletionItemKind,
    detail: str | None = None,
    sort: str | None = None,
    documentation: str | types.MarkupContent | None = None,
) -> types.CompletionItem:
    return types.CompletionItem(
        label=label,
        kind=kind,
        detail=detail,
        sort_text=sort,
        filter_text=label,
        documentation=documentation,
        text_edit=_edit(snapshot, where, label),
    )


# -- Python ---------------------------------------------------------------------------


def python_items(ls: Any, snapshot: Snapshot, line: int, column: int) -> list | None:
    """Items for the cursor in a Python skill file (None: nothing to complete here)."""
    from skillkit_core.source.query import node_at

    index = snapshot.index
    context = node_at(index, line, column)
    if context is None:
        return _host_items(ls, snapshot, line, column)
    # A string the cursor is in may end past the line (unterminated); stay on the line.
    where = context.replace
    if where.end_line != where.line:
        where = SourceRange(where.line, where.column, where.line, column)
    if context.role in _TARGET_ROLES:
        return _target_items(snapshot, context, where)
    if context.role in STORE_ROLES:
        return _store_items(snapshot, context, where)
    if context.role == Role.TOOL_GUARD:
        return _tool_items(ls, snapshot, where)
    if context.role == Role.ACT_MEMBER:
        return _act_items(ls, snapshot, where)
    return None


def _namespace_steps(snapshot: Snapshot, chain: int | None) -> list[Any]:
    from skillkit_core.source.graph import namespace

    index = snapshot.index
    if chain is None or not 0 <= chain < len(index.chains):
        chains = range(len(index.chains))
    else:
        chains = sorted(namespace(index, chain).chains)
    seen: dict[str, Any] = {}
    for member in chains:
        for position in index.chains[member].steps:
            step = index.steps[position]
            if step.name is not None and step.name not in seen:
                seen[step.name] = step
    return list(seen.values())


def _own_step(snapshot: Snapshot, context: Any) -> Any:
    index = snapshot.index
    if context.step is None or not 0 <= context.step < len(index.steps):
        return None
    return index.steps[context.step]


def _target_items(snapshot: Snapshot, context: Any, where: SourceRange) -> list:
    own = _own_step(snapshot, context)
    items = []
    for order, step in enumerate(_namespace_steps(snapshot, context.chain)):
        detail = f"step · {step.prompt.value}" + (f" → {step.response}" if step.response else "")
        if own is not None and step.name == own.name:
            detail += " (this step)"
        items.append(
            _item(
                snapshot,
                step.name,
                where,
                types.CompletionItemKind.EnumMember,
                detail,
                f"0{order:04d}",
            )
        )
    if context.role in _ROUTE_ROLES:
        if own is not None:
            items.append(
                _item(
                    snapshot,
                    "self",
                    where,
                    types.CompletionItemKind.Keyword,
                    "this step again",
                    "1",
                )
            )
        chain = context.chain
        index = snapshot.index
        if chain is not None and 0 <= chain < len(index.chains):
            info = index.chains[chain]
            for declaration in info.subskills:
                if declaration.name:
                    label = f"subskill:{declaration.name}"
                    items.append(
                        _item(
                            snapshot,
                            label,
                            where,
                            types.CompletionItemKind.Module,
                            "sub-skill route",
                            "2",
                        )
                    )
            for declaration in info.topics:
                if declaration.name:
                    label = f"topic:{declaration.name}"
                    items.append(
                        _item(
                            snapshot,
                            label,
                            where,
                            types.CompletionItemKind.File,
                            "topic route",
                            "3",
                        )
                    )
    return items


def _store_items(snapshot: Snapshot, context: Any, where: SourceRange) -> list:
    own = _own_step(snapshot, context)
    guaranteed: list[str] | None = None
    result = snapshot.semantic
    if own is not None and own.name is not None and result is not None and not result.disabled:
        info = result.step_info(snapshot.index.chains[own.chain], own.name)
        if info is not None and "guaranteed" in info:
            guaranteed = list(info.get("guaranteed") or ())
    items = []
    for order, step in enumerate(_namespace_steps(snapshot, context.chain)):
        if guaranteed is None:
            detail, rank = "store entry (order not known until the module is analysed)", 1
        elif step.name in guaranteed:
            detail, rank = "guaranteed: runs on every path before this step", 0
        else:
            detail, rank = "optional: may not have run here (use .get())", 1
        if own is not None and step.name == own.name:
            detail += " · this step's earlier visit"
        items.append(
            _item(
                snapshot,
                step.name,
                where,
                types.CompletionItemKind.Field,
                detail,
                f"{rank}{order:04d}",
            )
        )
    return items


def _tool_items(ls: Any, snapshot: Snapshot, where: SourceRange) -> list:
    from skillkit_core.hosts import HOSTS, normalize_host

    host = normalize_host(ls.settings.host)
    owners: dict[str, list[str]] = {}
    for info in HOSTS:
        for tool in info.tools:
            owners.setdefault(tool, []).append(info.id)
    items = []
    for tool in sorted(owners):
        on_host = host in owners[tool]
        detail = f"{'on ' + host if on_host else 'not on ' + host} · {', '.join(owners[tool])}"
        items.append(
            _item(
                snapshot,
                tool,
                where,
                types.CompletionItemKind.Value,
                detail,
                f"{0 if on_host else 1}{tool}",
            )
        )
    return items


def _act_items(ls: Any, snapshot: Snapshot, where: SourceRange) -> list:
    from skillkit_core.primitives import ActBuilder
    from skillkit_core.primitives.registry import PRIMITIVES

    snippets = _snippets(ls)
    items = []
    for order, spec in enumerate(PRIMITIVES):
        method = getattr(ActBuilder, spec.kind, None)
        if method is None:
            continue
        doc = inspect.getdoc(method) or ""
        signature = str(inspect.signature(method)).replace("(self, ", "(").replace("(self)", "()")
        text = _call_snippet(spec.kind, method) if snippets else spec.kind
        items.append(
            types.CompletionItem(
                label=spec.kind,
                kind=types.CompletionItemKind.Method,
                detail=f"act.{spec.kind}{signature} → <{spec.tag}>",
                documentation=types.MarkupContent(kind=types.MarkupKind.Markdown, value=doc)
                if doc
                else None,
                sort_text=f"{order:02d}",
                filter_text=spec.kind,
                insert_text_format=types.InsertTextFormat.Snippet
                if snippets
                else types.InsertTextFormat.PlainText,
                text_edit=_edit(snapshot, where, text),
            )
        )
    return items


def _call_snippet(name: str, method: Any) -> str:
    """``name(required=${1:required}, ...)`` from the method's required parameters."""
    pieces = []
    number = 1
    for parameter in list(inspect.signature(method).parameters.values())[1:]:
        if parameter.default is not inspect.Parameter.empty:
            continue
        annotation = str(parameter.annotation)
        placeholder = f"${{{number}:{parameter.name}}}"
        if "str" in annotation and "Sequence" not in annotation:
            value = f'"{placeholder}"'
        elif "Sequence" in annotation:
            value = f"[{placeholder}]"
        else:
            value = placeholder
        keyword = parameter.kind == inspect.Parameter.KEYWORD_ONLY
        pieces.append(f"{parameter.name}={value}" if keyword else value)
        number += 1
    return f"{name}({', '.join(pieces)})$0"


def _host_items(ls: Any, snapshot: Snapshot, line: int, column: int) -> list | None:
    from skillkit_core.hosts import HOSTS

    text = snapshot.lines[line] if 0 <= line < len(snapshot.lines) else ""
    before = text[:column]
    opened = _OPEN_STRING.search(before)
    if opened is None or not _HOST_HEAD.search(before[: opened.start()]):
        return None
    start = opened.start("typed")
    end = column
    while end < len(text) and text[end] not in "\"'":
        end += 1
    where = SourceRange(line, start, line, end)
    return [
        _item(snapshot, host.id, where, types.CompletionItemKind.EnumMember, host.name, f"{i:02d}")
        for i, host in enumerate(HOSTS)
    ]


# -- SKILL.md -------------------------------------------------------------------------


def skill_md_items(ls: Any, snapshot: Snapshot, line: int, column: int) -> list | None:
    """``$`` argument placeholders in the body; in the frontmatter, keys at the start of
    a line and values after ``key:`` (closed values, tool names) with who reads them."""
    from skill_lsp.skill_md import key_docs
    from skill_lsp.skill_md_arguments import argument_items
    from skill_lsp.skill_md_values import readers_note, value_items
    from skillkit_core.manifest.spec import SPEC_KEYS

    parsed = snapshot.skill_md
    end = parsed.frontmatter_end_line
    inside = parsed.has_frontmatter and end is not None and 0 < line < end
    # An unclosed frontmatter is being typed: keys still complete below the opening line.
    opening = end is None and line > 0 and snapshot.lines[0].strip() == "---"
    if not (inside or opening):
        return argument_items(snapshot, line, column)
    text = snapshot.lines[line][:column]
    docs = key_docs()
    if ":" in text or text.lstrip().startswith("-"):
        return value_items(snapshot, line, column, ls.settings.host)
    key = _KEY_LINE.match(text)
    if key is None:
        return None
    # Half-typed YAML does not parse: read the keys written so far from the lines too.
    last = end if end is not None else len(snapshot.lines)
    present = set(parsed.fields) | {
        match.group("key")
        for number, written in enumerate(snapshot.lines[1:last], start=1)
        if number != line
        and (match := _VALUE_LINE.match(written.rstrip()) or _KEY_VALUE.match(written))
    }
    # On a key line already written (the cursor in or before its key), the item replaces
    # that key and keeps its value: inserted in front, it made `license: argument-hint: …`.
    rest = _KEY_REST.match(snapshot.lines[line], column)
    where = SourceRange(line, 0, line, rest.end() if rest else column)
    items = []
    for order, doc in enumerate(docs.values()):
        if doc.key in present:
            continue
        spec_key = doc.key in SPEC_KEYS
        detail = "Agent Skills specification" if spec_key else "host extension (not in the spec)"
        item = _item(
            snapshot,
            doc.key,
            where,
            types.CompletionItemKind.Property,
            detail,
            f"{0 if spec_key else 1}{order:02d}",
            types.MarkupContent(
                kind=types.MarkupKind.Markdown, value=f"{doc.meaning}\n\n{readers_note(doc.key)}"
            ),
        )
        item.text_edit = _edit(snapshot, where, f"{doc.key}: ")
        items.append(item)
    return items
