"""Questions the language server asks an index: what is here, where is it named.

Positions are 0-based lines and code-point columns, like every range of the index.
"""

from __future__ import annotations

from skillkit_core.lint.diagnostic import SourceRange
from skillkit_core.source.graph import namespace, ref_chains, steps_named
from skillkit_core.source.model import (
    ChainInfo,
    CursorContext,
    SourceIndex,
    StepInfo,
    StepRef,
    Symbol,
    Target,
)


def contains(span: SourceRange, line: int, column: int) -> bool:
    """Whether (line, column) lies in ``span``, both ends included (a cursor at a
    string's closing quote is still typing that string)."""
    return (span.line, span.column) <= (line, column) <= (span.end_line, span.end_column)


def step_at(index: SourceIndex, line: int, column: int) -> StepInfo | None:
    """The innermost ``.step(...)`` / ``.extend(...)`` whose call holds the position."""
    best: StepInfo | None = None
    for step in index.steps:
        if contains(step.range, line, column) and (
            best is None or _starts_after(step.range, best.range)
        ):
            best = step
    return best


def chain_at(index: SourceIndex, line: int, column: int) -> ChainInfo | None:
    """The chain whose statement holds the position, else the nearest one above it."""
    inside = [chain for chain in index.chains if contains(chain.extent, line, column)]
    if inside:
        return max(inside, key=lambda chain: (chain.extent.line, chain.extent.column))
    above = [
        chain
        for chain in index.chains
        if (chain.statement_range.line, chain.statement_range.column) <= (line, column)
    ]
    if above:
        return max(
            above, key=lambda chain: (chain.statement_range.line, chain.statement_range.column)
        )
    return index.chains[0] if index.chains else None


def chain_named(index: SourceIndex, name: str) -> ChainInfo | None:
    """The chain whose ``name=`` is ``name`` (else whose variable is), for mapping a built
    definition back to its source; the first one when several match."""
    for chain in index.chains:
        if chain.name is not None and chain.name.value == name:
            return chain
    return next((chain for chain in index.chains if name in chain.names), None)


def step_named(index: SourceIndex, step: str, *, skill: str | None = None) -> StepInfo | None:
    """The definition of step ``step`` (of skill ``skill`` when given): where a linter puts
    a diagnostic about that step."""
    chain = chain_named(index, skill) if skill is not None else None
    if skill is not None and chain is None:
        return None
    found = definitions(index, step, chain=chain.index if chain is not None else None)
    return found[0] if found else None


def ref_at(index: SourceIndex, line: int, column: int) -> StepRef | None:
    """The step-naming string (definition included) under the position."""
    for ref in index.refs:
        if contains(ref.range, line, column):
            return ref
    return None


def name_refs(
    index: SourceIndex, step_name: str, *, chain: int | None = None
) -> tuple[StepRef, ...]:
    """Every string naming step ``step_name``: definitions, transitions, store reads.

    With ``chain``, only the namespace of that chain (a skill and the modules it
    registers); strings that belong to no chain (a helper no step uses) are kept, since
    they cannot belong to another skill either. ``subskill:``/``topic:`` routes and
    ``"self"`` are not references to a step of that name.
    """
    chains = namespace(index, chain).chains if chain is not None else None
    found: list[StepRef] = []
    for ref in index.refs:
        if ref.target != Target.STEP or ref.name != step_name:
            continue
        if chains is not None:
            where = ref_chains(ref)
            if where and not where & chains:
                continue
        found.append(ref)
    return tuple(found)


def definitions(
    index: SourceIndex, step_name: str, *, chain: int | None = None
) -> tuple[StepInfo, ...]:
    """The steps called ``step_name`` (in the namespace of ``chain`` when given)."""
    chains = (
        namespace(index, chain).chains if chain is not None else frozenset(range(len(index.chains)))
    )
    return tuple(steps_named(index, step_name, chains))


def definition_of(index: SourceIndex, ref: StepRef) -> StepInfo | None:
    """The step a reference names, in the reference's own namespace (first one wins)."""
    if ref.target == Target.SELF:
        owner = next((owner.step for owner in ref.owners if owner.step is not None), None)
        return index.steps[owner] if owner is not None else None
    if ref.target != Target.STEP:
        return None
    chains = ref_chains(ref)
    candidates: list[StepInfo] = []
    for chain in sorted(chains) or [None]:
        candidates.extend(definitions(index, ref.name, chain=chain))
    return candidates[0] if candidates else None


def symbols(index: SourceIndex) -> tuple[Symbol, ...]:
    """Document symbols: each chain with its steps, sub-skills and topics."""
    found: list[Symbol] = []
    for chain in index.chains:
        children: list[Symbol] = [_step_symbol(index.steps[p]) for p in chain.steps]
        for declaration in (*chain.subskills, *chain.topics):
            selection = (
                declaration.name_string.inner if declaration.name_string else declaration.range
            )
            children.append(
                Symbol(
                    name=declaration.name or "?",
                    kind=declaration.kind,
                    detail=declaration.kind,
                    range=declaration.range,
                    selection_range=selection,
                )
            )
        children.sort(key=lambda symbol: (symbol.range.line, symbol.range.column))
        found.append(
            Symbol(
                name=chain.display_name,
                kind=chain.kind,
                detail=chain.var or "",
                range=chain.extent,
                selection_range=chain.name.inner if chain.name is not None else chain.range,
                children=tuple(children),
            )
        )
    return tuple(found)


def _step_symbol(step: StepInfo) -> Symbol:
    detail = step.prompt.value
    if step.primitives:
        detail += f" ({', '.join(step.primitives)})"
    if step.response:
        detail += f" → {step.response}"
    return Symbol(
        name=step.name if step.name is not None else "?",
        kind="step",
        detail=detail,
        range=step.range,
        selection_range=step.name_string.inner
        if step.name_string is not None
        else step.method_range,
    )


def _starts_after(a: SourceRange, b: SourceRange) -> bool:
    return (a.line, a.column) > (b.line, b.column)


def node_at(index: SourceIndex, line: int, column: int) -> CursorContext | None:
    """What kind of string (or ``act.`` member) the cursor is in, for completion.

    Works on half-typed code: when the parser could not make a string of it, the text
    of the line before the cursor decides (``next="`` / ``branch("`` / ``.steps["`` /
    ``"X" in ctx.host.tools_available`` ...).
    """
    from skillkit_core.source.cursor import context_at

    return context_at(index, line, column)


def joined_strings(index: SourceIndex, value: str) -> list[SourceRange]:
    """Where strings written next to each other (``"gre" "et"``) make ``value``: Python
    joins them into one string, which the index does not read as a step name (a rename
    could not edit it as one)."""
    from skillkit_core.source.strings import read_string

    state = index._state
    if state is None:
        return []
    found: list[SourceRange] = []
    stack = [state.tree.root_node]
    while stack:
        node = stack.pop()
        if node.type == "concatenated_string":
            strings = [child for child in node.named_children if child.type != "comment"]
            parts = [read_string(child, state.data) for child in strings]
            values = [part.value if part is not None else None for part in parts]
            if all(isinstance(v, str) for v in values) and "".join(values) == value:
                found.append(state.lines.range(node.start_byte, node.end_byte))
            continue
        stack.extend(node.children)
    return found
