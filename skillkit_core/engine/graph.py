"""The workflow as a graph: successors, reachability, cycles and guaranteed steps.

Edges come from literal targets (``next="x"``, branches, ``on_max_visits``) and, for a
callable ``next``, from the string constants in its code that name a step or a
``subskill:``/``topic:`` route. The engine, the linter and the language server all read it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from types import CodeType
from typing import Any, Literal

from skillkit_core.definitions import (
    SUBSKILL_PREFIX,
    TOPIC_PREFIX,
    SkillDefinition,
    StepDefinition,
    Terminal,
)

IMPLICIT_MAX_VISITS = 10
EdgeKind = Literal["next", "branch", "dynamic", "max_visits"]


def literal_targets(step: StepDefinition) -> list[tuple[str, str]]:
    """``(role, target)`` for every target written as a literal in the step."""
    found: list[tuple[str, str]] = []
    if isinstance(step.next, str):
        found.append(("next", step.next))
    elif isinstance(step.next, tuple):
        found.extend((f"branch to '{b.to}'", b.to) for b in step.next)
    if step.on_max_visits is not None:
        found.append(("on_max_visits", step.on_max_visits))
    return found


def callable_strings(fn: Callable[..., Any]) -> set[str]:
    """Every string constant in a callable's code, nested functions included."""
    while hasattr(fn, "__wrapped__"):
        fn = fn.__wrapped__
    code = getattr(fn, "__code__", None)
    return set(_code_strings(code)) if isinstance(code, CodeType) else set()


def _code_strings(code: CodeType) -> Iterator[str]:
    for const in code.co_consts:
        if isinstance(const, str):
            yield const
        elif isinstance(const, CodeType):
            yield from _code_strings(const)


@dataclass(frozen=True)
class Edge:
    """A possible transition."""

    source: str
    target: str
    kind: EdgeKind


@dataclass(frozen=True)
class SkillGraph:
    """What can follow what, computed once per definition."""

    entry: str
    edges: tuple[Edge, ...]
    successors: dict[str, tuple[str, ...]]
    routes: dict[str, tuple[str, ...]]
    """Per step, the ``subskill:``/``topic:`` routes it can take."""
    dynamic: frozenset[str]
    """Steps with a callable ``next`` (their successors are a best guess)."""
    opaque: frozenset[str]
    """Steps with a callable ``next`` whose targets could not be read at all."""
    terminal: frozenset[str]
    reachable: frozenset[str]
    on_cycle: frozenset[str]
    cycles: tuple[tuple[str, ...], ...]
    guaranteed: dict[str, frozenset[str]] = field(repr=False)

    def visit_limit(self, step: StepDefinition) -> int | None:
        """The step's own limit, or the implicit one when it lies on a cycle."""
        if step.max_visits is not None:
            return step.max_visits
        return IMPLICIT_MAX_VISITS if step.name in self.on_cycle else None

    def guaranteed_before(self, step: str) -> frozenset[str]:
        """Steps that have run on every path from the entry to ``step``."""
        return self.guaranteed.get(step, frozenset())


def analyze(definition: SkillDefinition) -> SkillGraph:
    """The graph of a definition (cached on the definition)."""
    cached = definition.__dict__.get("_graph")
    if cached is None:
        cached = _build(definition)
        object.__setattr__(definition, "_graph", cached)
    return cached


def _step_edges(step: StepDefinition, names: frozenset[str]) -> tuple[list[Edge], list[str], bool]:
    edges: list[Edge] = []
    routes: list[str] = []
    opaque = False

    def add(target: str, kind: EdgeKind) -> None:
        target = step.name if target == "self" else target
        if target.startswith((SUBSKILL_PREFIX, TOPIC_PREFIX)):
            routes.append(target)
        elif target in names:
            edges.append(Edge(step.name, target, kind))

    nxt = step.next
    if isinstance(nxt, str):
        add(nxt, "next")
    elif isinstance(nxt, tuple):
        for b in nxt:
            add(b.to, "branch")
    elif callable(nxt) and not isinstance(nxt, Terminal):
        strings = callable_strings(nxt)
        hits = [s for s in strings if s in names or s == "self" or _is_route(s)]
        for s in sorted(hits):
            add(s, "dynamic")
        opaque = not hits
    if step.on_max_visits is not None:
        add(step.on_max_visits, "max_visits")
    return edges, routes, opaque


def _is_route(value: str) -> bool:
    for prefix in (SUBSKILL_PREFIX, TOPIC_PREFIX):
        if value.startswith(prefix) and len(value) > len(prefix):
            return True
    return False


def _build(definition: SkillDefinition) -> SkillGraph:
    steps = definition.steps
    names = frozenset(steps)
    edges: list[Edge] = []
    routes: dict[str, tuple[str, ...]] = {}
    opaque: set[str] = set()
    for step in steps.values():
        step_edges, step_routes, step_opaque = _step_edges(step, names)
        edges.extend(step_edges)
        routes[step.name] = tuple(dict.fromkeys(step_routes))
        if step_opaque:
            opaque.add(step.name)
    successors = {
        name: tuple(dict.fromkeys(e.target for e in edges if e.source == name)) for name in steps
    }
    reachable = _reachable(definition.entry, successors)
    cycles = _cycles(successors)
    on_cycle = frozenset(name for cycle in cycles for name in cycle)
    return SkillGraph(
        entry=definition.entry,
        edges=tuple(edges),
        successors=successors,
        routes=routes,
        dynamic=frozenset(n for n, s in steps.items() if callable(s.next) and not s.is_terminal),
        opaque=frozenset(opaque),
        terminal=frozenset(n for n, s in steps.items() if s.is_terminal),
        reachable=reachable,
        on_cycle=on_cycle,
        cycles=cycles,
        guaranteed=_dominators(definition.entry, successors, reachable),
    )


def _reachable(entry: str, successors: dict[str, tuple[str, ...]]) -> frozenset[str]:
    if entry not in successors:
        return frozenset()
    seen = {entry}
    stack = [entry]
    while stack:
        for nxt in successors[stack.pop()]:
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return frozenset(seen)


def _cycles(successors: dict[str, tuple[str, ...]]) -> tuple[tuple[str, ...], ...]:
    """Strongly connected components that contain a cycle (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[tuple[str, ...]] = []
    counter = 0
    for root in successors:
        if root in index:
            continue
        work = [(root, iter(successors[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(successors[child])))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in successors[node]:
                    found.append(tuple(sorted(component)))
    return tuple(found)


def _dominators(
    entry: str, successors: dict[str, tuple[str, ...]], reachable: frozenset[str]
) -> dict[str, frozenset[str]]:
    """For each reachable step, the other steps on every path from the entry to it."""
    if entry not in reachable:
        return {}
    order = [n for n in successors if n in reachable]
    preds: dict[str, list[str]] = {n: [] for n in order}
    for src in order:
        for dst in successors[src]:
            preds[dst].append(src)
    everything = frozenset(order)
    dom: dict[str, frozenset[str]] = {n: everything for n in order}
    dom[entry] = frozenset({entry})
    changed = True
    while changed:
        changed = False
        for node in order:
            if node == entry:
                continue
            incoming = [dom[p] for p in preds[node]]
            new = frozenset.intersection(*incoming) | {node} if incoming else frozenset({node})
            if new != dom[node]:
                dom[node] = new
                changed = True
    return {node: doms - {node} for node, doms in dom.items()}
