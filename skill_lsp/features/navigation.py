"""Step navigation from the syntax index: definition, references, highlights, rename.
In markdown (SKILL.md and reference files) the same requests treat skills as symbols
(:mod:`skill_lsp.skill_md_symbols`).

Any string that names a step (``entry=``, ``next=``, ``branch(...)``, ``on_max_visits=``,
literals a ``next`` function returns, ``ctx.store.steps[...]`` and friends, and the
``.step("...")`` name itself) leads to the step's definition and to every other use in
the same skill's namespace (the skill and the modules it registers).
"""

from __future__ import annotations

import asyncio
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from skill_lsp.index import DocumentKind, Snapshot, is_markdown
from skill_lsp.rpc import RequestFailed
from skillkit_core.source.model import Role, StepRef, Target

# Characters a step name cannot hold: "/" is reserved for sub-skill steps; the others
# would need escaping inside the string literals being rewritten.
_FORBIDDEN = ("/", '"', "'", "\\", "\n", "\r", "\t")


def register(server: Any) -> None:
    """Declare definition, references, highlights, prepareRename and rename."""

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    async def definition(ls: Any, params: types.DefinitionParams) -> list[types.Location] | None:
        paths = await _path_definition(ls, params)
        if paths is not None:
            return paths
        markdown, line, column = _markdown_at(ls, params)
        if markdown is not None:
            from skill_lsp import skill_md_symbols

            return await skill_md_symbols.definition(ls, markdown, line, column)
        snapshot, line, column = _python_at(ls, params)
        if snapshot is None:
            return None
        index = snapshot.index
        ref = _ref_at(index, line, column)
        if ref is None:
            return None
        target = _target_range(index, ref)
        if target is None:
            return None
        return [types.Location(uri=snapshot.uri, range=snapshot.map.range(target))]

    @server.feature(types.TEXT_DOCUMENT_REFERENCES)
    async def references(ls: Any, params: types.ReferenceParams) -> list[types.Location] | None:
        markdown, line, column = _markdown_at(ls, params)
        if markdown is not None:
            from skill_lsp import skill_md_symbols

            include = params.context.include_declaration
            return await skill_md_symbols.references(ls, markdown, line, column, include)
        snapshot, line, column = _python_at(ls, params)
        if snapshot is None:
            return None
        refs = step_refs_at(snapshot, line, column)
        if refs is None:
            return None
        include = params.context.include_declaration
        return [
            types.Location(uri=snapshot.uri, range=snapshot.map.range(ref.name_range))
            for ref in refs
            if include or ref.role != Role.DEFINITION
        ]

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT)
    async def highlight(
        ls: Any, params: types.DocumentHighlightParams
    ) -> list[types.DocumentHighlight] | None:
        markdown, line, column = _markdown_at(ls, params)
        if markdown is not None:
            from skill_lsp import skill_md_symbols

            return await skill_md_symbols.highlights(ls, markdown, line, column)
        snapshot, line, column = _python_at(ls, params)
        if snapshot is None:
            return None
        refs = step_refs_at(snapshot, line, column)
        if refs is None:
            return None
        return [
            types.DocumentHighlight(
                range=snapshot.map.range(ref.name_range),
                kind=types.DocumentHighlightKind.Write
                if ref.role == Role.DEFINITION
                else types.DocumentHighlightKind.Read,
            )
            for ref in refs
        ]

    @server.feature(types.TEXT_DOCUMENT_RENAME, types.RenameOptions(prepare_provider=True))
    async def rename(ls: Any, params: types.RenameParams) -> types.WorkspaceEdit | None:
        markdown, line, column = _markdown_at(ls, params)
        if markdown is not None:
            from skill_lsp import skill_md_symbols

            return await skill_md_symbols.rename(ls, markdown, line, column, params.new_name)
        snapshot, line, column = _python_at(ls, params)
        if snapshot is None:
            return None
        ref = _renameable(snapshot, line, column)
        if ref is None:
            raise RequestFailed("there is no step name here to rename")
        new_name = params.new_name
        problem = rename_problem(snapshot, ref, new_name)
        if problem:
            raise JsonRpcInvalidParams(problem)
        refs = step_refs_at(snapshot, line, column) or ()
        edits = [
            types.TextEdit(range=snapshot.map.range(r.name_range), new_text=new_name) for r in refs
        ]
        return types.WorkspaceEdit(changes={snapshot.uri: edits})

    @server.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
    async def prepare_rename(
        ls: Any, params: types.PrepareRenameParams
    ) -> types.PrepareRenamePlaceholder | None:
        markdown, line, column = _markdown_at(ls, params)
        if markdown is not None:
            from skill_lsp import skill_md_symbols

            return await skill_md_symbols.prepare_rename(ls, markdown, line, column)
        snapshot, line, column = _python_at(ls, params)
        if snapshot is None:
            return None
        ref = _renameable(snapshot, line, column)
        if ref is None:
            return None
        return types.PrepareRenamePlaceholder(
            range=snapshot.map.range(ref.name_range), placeholder=ref.name
        )


async def _path_definition(ls: Any, params: Any) -> list[types.Location] | None:
    """A path in skill markdown opens its file (:mod:`skill_lsp.skill_md_links`)."""
    snapshot = ls.documents.get(params.text_document.uri)
    if snapshot is None or snapshot.kind == DocumentKind.PYTHON:
        return None
    from skill_lsp.skill_md_links import definition

    line, column = snapshot.map.code_point(params.position)
    # Paths are looked up and a linked file may be read (a megabyte): off the event loop.
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(None, definition, snapshot, line, column)


def _markdown_at(ls: Any, params: Any) -> tuple[Snapshot | None, int, int]:
    """A SKILL.md or other markdown document (skills are symbols there:
    :mod:`skill_lsp.skill_md_symbols`), and the cursor in code points."""
    snapshot = ls.documents.get(params.text_document.uri)
    if snapshot is None or snapshot.kind == DocumentKind.PYTHON:
        return None, 0, 0
    if snapshot.kind != DocumentKind.SKILL_MD and not is_markdown(snapshot.path):
        return None, 0, 0
    line, column = snapshot.map.code_point(params.position)
    return snapshot, line, column


def _python_at(ls: Any, params: Any) -> tuple[Snapshot | None, int, int]:
    snapshot = ls.documents.get(params.text_document.uri)
    if snapshot is None or snapshot.kind != DocumentKind.PYTHON:
        return None, 0, 0
    line, column = snapshot.map.code_point(params.position)
    return snapshot, line, column


def _ref_at(index: Any, line: int, column: int) -> StepRef | None:
    from skillkit_core.source.query import ref_at

    return ref_at(index, line, column)


def _target_range(index: Any, ref: StepRef) -> Any:
    """Where a reference leads: the step's name, or a ``subskill``/``topic`` declaration."""
    from skillkit_core.source.query import definition_of

    if ref.target in (Target.SUBSKILL, Target.TOPIC):
        kind = "subskill" if ref.target == Target.SUBSKILL else "topic"
        for chain in index.chains:
            declared = chain.subskills if kind == "subskill" else chain.topics
            for declaration in declared:
                if declaration.name == ref.name:
                    string = declaration.name_string
                    return string.range if string is not None else declaration.range
        return None
    step = definition_of(index, ref)
    if step is None:
        return None
    return step.name_string.range if step.name_string is not None else step.method_range


def _chain_of(ref: StepRef) -> int | None:
    from skillkit_core.source.graph import ref_chains

    chains = sorted(ref_chains(ref))
    return chains[0] if chains else None


def step_refs_at(snapshot: Snapshot, line: int, column: int) -> tuple[StepRef, ...] | None:
    """Every string naming the step under the cursor, in its namespace (None: no step)."""
    from skillkit_core.source.query import name_refs

    index = snapshot.index
    ref = _ref_at(index, line, column)
    if ref is None:
        return None
    if ref.target == Target.SELF:
        from skillkit_core.source.query import definition_of

        step = definition_of(index, ref)
        if step is None or step.name is None:
            return None
        return name_refs(index, step.name, chain=step.chain)
    if ref.target != Target.STEP:
        return None
    return name_refs(index, ref.name, chain=_chain_of(ref))


def _renameable(snapshot: Snapshot, line: int, column: int) -> StepRef | None:
    ref = _ref_at(snapshot.index, line, column)
    if ref is None or ref.target != Target.STEP or not ref.name:
        return None
    return ref


def rename_problem(snapshot: Snapshot, ref: StepRef, new_name: str) -> str | None:
    """Why ``new_name`` cannot replace the step ``ref`` names (None when it can)."""
    from skillkit_core.source.query import definitions, joined_strings

    if not new_name.strip():
        return "a step name cannot be empty"
    bad = [char for char in _FORBIDDEN if char in new_name]
    if bad:
        shown = ", ".join(repr(char) for char in bad)
        reason = " ('/' is reserved for sub-skill steps)" if "/" in bad else ""
        return f"a step name cannot contain {shown}{reason}"
    if new_name in ("self", "__parent__") or new_name.startswith(("subskill:", "topic:")):
        return f"'{new_name}' has a special meaning in transitions"
    if new_name == ref.name:
        return None
    if definitions(snapshot.index, new_name, chain=_chain_of(ref)):
        return f"a step named '{new_name}' already exists in this skill"
    joined = joined_strings(snapshot.index, ref.name)
    if joined:
        return (
            f"'{ref.name}' is also written as strings side by side on line {joined[0].line + 1}"
            ", which Python joins but a rename cannot follow: write it as one string first"
        )
    return None
