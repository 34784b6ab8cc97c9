"""Step namespaces and the literal step graph of an index.

A skill's steps share one namespace with the modules it ``.register``s; a module that no
skill of the file registers is *open*: its strings may name steps of a skill elsewhere.
Edges come from literal transitions only; a graph is *known* when no ``next`` of its
steps is dynamic, so that reachability may be judged.
"""

from __future__ import annotations

from dataclasses import dataclass

from skillkit_core.source.model import (
    TRANSITION_ROLES,
    NextKind,
    Role,
    SourceIndex,
    StepInfo,
    StepRef,
    Target,
)


@dataclass(frozen=True)
class Namespace:
    """The chains whose steps one skill can name, and whether that set is closed."""

    chains: frozenset[int]
    closed: bool  # False for a module no skill of this file registers


@dataclass(frozen=True)
class StepGraph:
    """Literal transitions between the steps of one skill (its namespace)."""

    entry: str | None
    outgoing: dict[str, tuple[str, ...]]
    incoming: dict[str, tuple[str, ...]]
    known: bool  # every transition of every step is a literal


def namespace(index: SourceIndex, chain: int) -> Namespace:
    """The namespace chain number ``chain`` names steps in."""
    info = index.chains[chain]
    if info.kind == "skill":
        members = {chain}
        members.update(
            registration.module_chain
            for registration in info.registrations
            if registration.module_chain is not None
        )
        return Namespace(frozenset(members), True)
    if info.kind == "module":
        owners = [
            other.index
            for other in index.chains
            if other.kind == "skill"
            and any(registration.module_chain == chain for registration in other.registrations)
        ]
        if owners:
            members: set[int] = set()
            for owner in owners:
                members |= namespace(index, owner).chains
            return Namespace(frozenset(members), True)
        return Namespace(frozenset({chain}), False)
    return Namespace(frozenset({chain}), True)


def steps_named(index: SourceIndex, name: str, chains: frozenset[int]) -> list[StepInfo]:
    """The steps called ``name`` in ``chains``, in source order."""
    return [
        index.steps[position]
        for chain in sorted(chains)
        for position in index.chains[chain].steps
        if index.steps[position].name == name
    ]


def ref_chains(ref: StepRef) -> set[int]:
    """The chains a reference belongs to: where it is written, or whose steps use it."""
    chains = {owner.chain for owner in ref.owners if owner.chain is not None}
    if ref.chain is not None:
        chains.add(ref.chain)
    return chains


def step_graph(index: SourceIndex, chain: int) -> StepGraph:
    """The literal step graph of the skill (or module) chain number ``chain``."""
    space = namespace(index, chain)
    members = [index.steps[p] for c in sorted(space.chains) for p in index.chains[c].steps]
    names = {step.name for step in members if step.name is not None}
    by_index = {step.index: step for step in members}
    outgoing: dict[str, set[str]] = {step.name: set() for step in members if step.name is not None}
    known = all(step.next_known and step.name is not None for step in members)
    for ref in index.refs:
        if ref.role not in TRANSITION_ROLES or ref.role == Role.ENTRY:
            continue
        for owner in ref.owners:
            source = by_index.get(owner.step) if owner.step is not None else None
            if source is None or source.name is None:
                continue
            if ref.target == Target.STEP and ref.name in names:
                outgoing[source.name].add(ref.name)
            elif ref.target == Target.STEP:
                # A misspelt target hides the edge it meant: judging reachability now
                # would add a warning per downstream step to the one real error.
                known = False
            elif ref.target == Target.SELF:
                outgoing[source.name].add(source.name)
    _add_parent_exits(index, space, by_index, outgoing, names)
    info = index.chains[chain]
    entry = info.entry.name if info.entry is not None and info.entry.target == Target.STEP else None
    incoming: dict[str, set[str]] = {name: set() for name in outgoing}
    for source, targets in outgoing.items():
        for target in targets:
            incoming.setdefault(target, set()).add(source)
    return StepGraph(
        entry=entry,
        outgoing={name: tuple(sorted(targets)) for name, targets in outgoing.items()},
        incoming={name: tuple(sorted(sources)) for name, sources in incoming.items()},
        known=known
        and space.closed
        and all(index.chains[c].complete and not index.chains[c].has_errors for c in space.chains),
    )


def _add_parent_exits(
    index: SourceIndex,
    space: Namespace,
    by_index: dict[int, StepInfo],
    outgoing: dict[str, set[str]],
    names: set[str],
) -> None:
    # A module step whose next is PARENT goes where the skill's .register(next=...) says.
    for chain in space.chains:
        for registration in index.chains[chain].registrations:
            target = registration.next
            if registration.module_chain is None or target is None or target.name not in names:
                continue
            for position in index.chains[registration.module_chain].steps:
                step = by_index.get(position)
                if step is not None and step.name is not None and _exits_to_parent(index, step):
                    outgoing[step.name].add(target.name)


def _exits_to_parent(index: SourceIndex, step: StepInfo) -> bool:
    if step.next == NextKind.PARENT:
        return True
    return any(
        ref.target == Target.PARENT and any(owner.step == step.index for owner in ref.owners)
        for ref in index.refs
        if ref.role in TRANSITION_ROLES
    )


def reachable(graph: StepGraph) -> set[str]:
    """Names reachable from the graph's entry (empty when there is no entry)."""
    if graph.entry is None or graph.entry not in graph.outgoing:
        return set()
    seen = {graph.entry}
    stack = [graph.entry]
    while stack:
        for target in graph.outgoing.get(stack.pop(), ()):
            if target not in seen:
                seen.add(target)
                stack.append(target)
    return seen
