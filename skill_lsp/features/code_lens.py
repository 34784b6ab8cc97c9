"""Code lenses: actions above each ``skill(...)``/``reference(...)``, transitions above
each step, and a SKILL.md's disclosure tiers (:mod:`skill_lsp.skill_md_structure`).

Lenses come from the syntax index only (no waiting on the worker), anchored on the first
line of the builder call or ``.step(...)``, so they stay put while typing. They are sent
without commands and resolved lazily: the title of a step's lens is computed from the
document's latest snapshot when the client asks for it.
"""

from __future__ import annotations

import asyncio
from typing import Any

from lsprotocol import types

from skill_lsp.index import DocumentKind, Snapshot
from skillkit_core.lint.diagnostic import SourceRange

SIMULATE = "skillkit.simulate"
PREVIEW = "skillkit.preview"
BUILD = "skillkit.build"
CHECK = "skillkit.check"
_ACTIONS = (
    (SIMULATE, "▶ Simulate ({host})"),
    (PREVIEW, "Preview"),
    (BUILD, "Build"),
    (CHECK, "Check"),
)


def register(server: Any) -> None:
    """Declare ``textDocument/codeLens`` and ``codeLens/resolve``."""

    @server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=True))
    async def code_lens(ls: Any, params: types.CodeLensParams) -> list[types.CodeLens] | None:
        snapshot = ls.documents.get(params.text_document.uri)
        if snapshot is None:
            return None
        if snapshot.kind == DocumentKind.SKILL_MD:
            from skill_lsp.skill_md_structure import tier_lens

            # The folder is read and the serving rules run: off the event loop.
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(None, tier_lens, snapshot)
        if snapshot.kind != DocumentKind.PYTHON:
            return None
        return lenses(snapshot)

    @server.feature(types.CODE_LENS_RESOLVE)
    def resolve(ls: Any, lens: types.CodeLens) -> types.CodeLens:
        if lens.command is not None:
            return lens  # sent resolved (a SKILL.md's tiers)
        data = lens.data if isinstance(lens.data, dict) else {}
        lens.command = resolve_command(ls, data)
        return lens


def _anchor(snapshot: Snapshot, where: SourceRange) -> types.Range:
    line_range = SourceRange(where.line, where.column, where.line, where.column)
    return snapshot.map.range(line_range)


def lenses(snapshot: Snapshot) -> list[types.CodeLens]:
    """Unresolved lenses for a Python document."""
    index = snapshot.index
    found: list[types.CodeLens] = []
    for chain in index.chains:
        target = chain.var or (chain.name.value if chain.name is not None else None)
        if chain.kind in ("skill", "reference") and target:
            where = _anchor(snapshot, chain.range)
            for command, _ in _ACTIONS:
                if command == SIMULATE and chain.kind != "skill":
                    continue
                data = {"uri": snapshot.uri, "action": command, "skill": target}
                found.append(types.CodeLens(range=where, data=data))
        if chain.kind == "reference":
            continue
        for position in chain.steps:
            step = index.steps[position]
            if step.name is None:
                continue
            data = {
                "uri": snapshot.uri,
                "action": "transitions",
                "chain": chain.index,
                "step": step.name,
                # A skill's step lens opens that step's preview; a module's shows text only.
                "skill": target if chain.kind == "skill" else None,
            }
            found.append(types.CodeLens(range=_anchor(snapshot, step.range), data=data))
    return found


def resolve_command(ls: Any, data: dict[str, Any]) -> types.Command:
    """The command (and title) of one lens."""
    action = data.get("action")
    uri = data.get("uri")
    if action == "transitions":
        title = _transitions_title(ls.documents.get(uri), data)
        if data.get("skill"):
            arguments = [{"uri": uri, "skill": data["skill"], "step": data.get("step")}]
            return types.Command(title=title, command=PREVIEW, arguments=arguments)
        return types.Command(title=title, command="")
    for command, label in _ACTIONS:
        if command == action:
            title = label.format(host=ls.settings.host)
            arguments = [{"uri": uri, "skill": data.get("skill")}]
            return types.Command(title=title, command=command, arguments=arguments)
    return types.Command(title="", command="")


def _transitions_title(snapshot: Snapshot | None, data: dict[str, Any]) -> str:
    if snapshot is None:
        return ""
    index = snapshot.index
    chain = data.get("chain")
    step = data.get("step")
    if not isinstance(chain, int) or not 0 <= chain < len(index.chains):
        return ""
    graph = snapshot.step_graph(chain)
    incoming = list(graph.incoming.get(step, ()))
    outgoing = list(graph.outgoing.get(step, ()))
    parts = []
    if graph.entry == step:
        parts.append("entry")
    if incoming:
        parts.append("reached from " + ", ".join(incoming))
    elif graph.entry != step:
        parts.append("reached from nowhere" if graph.known else "reached from ?")
    info = next(
        (index.steps[p] for p in index.chains[chain].steps if index.steps[p].name == step), None
    )
    if outgoing:
        parts.append("goes to " + ", ".join(outgoing))
    elif info is not None and info.next.value == "terminal":
        parts.append("ends the skill")
    elif info is not None and not info.next_known:
        parts.append("goes to ? (decided at run time)")
    return " · ".join(parts) or step or ""
