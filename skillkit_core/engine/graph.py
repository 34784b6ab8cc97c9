"""The workflow as a graph: successors, reachability, cycles and guaranteed steps.

Edges come from literal targets (``next="x"``, branches, ``on_max_visits``) and, for a
callable ``next``, from the strings it can return that name a step or a
``subskill:``/``topic:`` route (see `returned_strings`), and every registered sub-skill or
topic when it builds a route from the bare prefix (``f"subskill:{intent}"``). The
engine, the linter and the language server all read it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
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


SourceReader = Callable[[CodeType], "tuple[set[str], bool] | None"]
"""Reads a callable's returned literals from its source: ``(literals, complete)``, or None
when it cannot tell (see ``skillkit_core.engine.graph_source``)."""


def returned_strings(fn: Callable[..., Any], reader: SourceReader | None = None) -> set[str]:
    """The string constants a ``next`` callable can return, as far as can be told.

    With a ``reader`` that knows the callable's source, the literals it returns (a
    lambda's body, a ``def``'s ``return`` statements) are those; where the source cannot
    tell them all (``return target``), the bytecode reading below is added. Without one,
    the compiled code is read: every string
    constant counts, except one that is plainly consumed where it is used (an argument
    of a call, a subscript, an operand of a comparison or operator, an attribute's
    owner), so ``ctx.store.steps.ran("a")`` does not make ``a`` a successor.
    """
    while hasattr(fn, "__wrapped__"):
        fn = fn.__wrapped__
    code = getattr(fn, "__code__", None)
    if not isinstance(code, CodeType):
        return set()
    if reader is not None:
        known = reader(code)
        if known is not None:
            found, complete = known
            return found if complete else found | _bytecode_returns(code)
    return _bytecode_returns(code)


# Instructions that only push (the value under study stays where it is).
_PUSHES = frozenset(
    {
        "LOAD_CONST",
        "LOAD_NAME",
        "LOAD_GLOBAL",
        "LOAD_DEREF",
        "LOAD_CLOSURE",
        "LOAD_CLASSDEREF",
        "LOAD_SMALL_INT",
        "PUSH_NULL",
        "KW_NAMES",
        "NOP",
        "RESUME",
        "CACHE",
        "EXTENDED_ARG",
        "MAKE_CELL",
        "COPY_FREE_VARS",
    }
)
# Instructions whose result is a new value: a string they consume is not returned as is.
_CONSUMES = frozenset(
    {
        "PRECALL",
        "CALL",
        "CALL_KW",
        "CALL_FUNCTION_EX",
        "BINARY_SUBSCR",
        "STORE_SUBSCR",
        "DELETE_SUBSCR",
        "COMPARE_OP",
        "CONTAINS_OP",
        "IS_OP",
        "BINARY_OP",
        "FORMAT_VALUE",
        "FORMAT_SIMPLE",
        "FORMAT_WITH_SPEC",
        "CONVERT_VALUE",
        "BUILD_STRING",
        "POP_TOP",
    }
)
_PUSHES_NOTHING = frozenset({"PRECALL", "STORE_SUBSCR", "DELETE_SUBSCR", "POP_TOP"})
_ATTRIBUTES = frozenset({"LOAD_ATTR", "LOAD_METHOD"})
_KEEPS = frozenset(
    {"RETURN_VALUE", "STORE_FAST", "STORE_NAME", "STORE_DEREF", "STORE_GLOBAL", "YIELD_VALUE"}
)
_JUMPS = frozenset(
    {"JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_NO_INTERRUPT", "JUMP_BACKWARD_NO_INTERRUPT", "JUMP"}
)
_SCAN_LIMIT = 64


def _bytecode_returns(code: CodeType) -> set[str]:
    """String constants of ``code`` (nested code included) not plainly consumed in place."""
    import dis

    found: set[str] = set()
    instructions = list(dis.get_instructions(code))
    at = {ins.offset: index for index, ins in enumerate(instructions)}
    for index, ins in enumerate(instructions):
        if not isinstance(ins.argval, str):
            continue
        if ins.opname == "RETURN_CONST" or (
            ins.opname == "LOAD_CONST" and not _consumed(instructions, at, index + 1)
        ):
            found.add(ins.argval)
    for const in code.co_consts:
        if isinstance(const, CodeType):
            found |= _bytecode_returns(const)
    return found


def _consumed(instructions: list[Any], at: dict[int, int], index: int) -> bool:
    """Whether the value pushed just before ``instructions[index]`` is plainly used up by
    a call, subscript, operator or attribute (False whenever the flow is unclear)."""
    import dis

    above = 0  # values pushed on top of it
    for _ in range(_SCAN_LIMIT):
        if index >= len(instructions):
            return False
        ins = instructions[index]
        name = ins.opname
        if name in _JUMPS:
            target = at.get(ins.argval) if isinstance(ins.argval, int) else None
            if target is None:
                return False
            index = target
            continue
        if name in _KEEPS:
            if above == 0:
                return False
            above -= 1
        elif name in _ATTRIBUTES:
            if above == 0:
                return True
            above += _effect(dis, ins)
        elif name in _PUSHES or name.startswith("LOAD_FAST"):
            above += _effect(dis, ins)
        elif name in _CONSUMES:
            effect = _effect(dis, ins)
            pops = (0 if name in _PUSHES_NOTHING else 1) - effect
            if pops > above:
                return True
            above += effect
        else:  # branches, stack shuffles, anything else: do not guess
            return False
        index += 1
    return False


def _effect(dis: Any, ins: Any) -> int:
    if ins.opcode >= dis.HAVE_ARGUMENT:
        return dis.stack_effect(ins.opcode, ins.arg or 0, jump=False)
    return dis.stack_effect(ins.opcode)


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


def analyze(definition: SkillDefinition, *, reader: SourceReader | None = None) -> SkillGraph:
    """The graph of a definition (cached on the definition, per reader).

    The engine reads compiled code only: a run must not depend on whether the source is
    beside it, nor pay for parsing it. Tooling passes the source reader of
    ``skillkit_core.engine.graph_source`` (see its ``analyze_source``), which the engine
    never imports, so neither a run nor a built skill carries tree-sitter.
    """
    key = "_graph" if reader is None else f"_graph_{id(reader):x}"
    cached = definition.__dict__.get(key)
    if cached is None:
        cached = _build(definition, reader)
        object.__setattr__(definition, key, cached)
    return cached


def _step_edges(
    step: StepDefinition,
    names: frozenset[str],
    reader: SourceReader | None,
    registered: tuple[str, ...] = (),
) -> tuple[list[Edge], list[str], bool]:
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
        strings = returned_strings(nxt, reader)
        hits = [s for s in strings if s in names or s == "self" or _is_route(s)]
        hits += _built_routes(nxt, registered)
        for s in sorted(set(hits)):
            add(s, "dynamic")
        opaque = not hits
    if step.on_max_visits is not None:
        add(step.on_max_visits, "max_visits")
    return edges, routes, opaque


def _built_routes(fn: Callable[..., Any], registered: tuple[str, ...]) -> list[str]:
    """The registered routes a callable can build at run time: ``f"subskill:{name}"`` (or
    ``"topic:" + name``) compiles to the bare prefix, which then reaches every sub-skill
    (or topic) registered."""
    prefixes = {s for s in callable_strings(fn) if s in (SUBSKILL_PREFIX, TOPIC_PREFIX)}
    return [route for route in registered if route.startswith(tuple(prefixes))] if prefixes else []


def _is_route(value: str) -> bool:
    for prefix in (SUBSKILL_PREFIX, TOPIC_PREFIX):
        if value.startswith(prefix) and len(value) > len(prefix):
            return True
    return False


def _build(definition: SkillDefinition, reader: SourceReader | None) -> SkillGraph:
    steps = definition.steps
    names = frozenset(steps)
    edges: list[Edge] = []
    routes: dict[str, tuple[str, ...]] = {}
    opaque: set[str] = set()
    registered = tuple(f"{SUBSKILL_PREFIX}{s.name}" for s in definition.subskills) + tuple(
        f"{TOPIC_PREFIX}{t.name}" for t in definition.topics
    )
    for step in steps.values():
        step_edges, step_routes, step_opaque = _step_edges(step, names, reader, registered)
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
    return tuple(tuple(sorted(component)) for component in cyclic_components(successors))


def cyclic_components(successors: Mapping[str, Iterable[str]]) -> list[set[str]]:
    """The strongly connected components of a graph that hold a cycle (a self-loop
    counts), by Tarjan's algorithm, iteratively; linear in nodes plus edges. Targets that
    are not keys of ``successors`` are ignored. The engine, the linter and the syntax
    layer all find loops with this one function."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[set[str]] = []

    def targets(node: str) -> Iterator[str]:
        return (t for t in successors[node] if t in successors)

    for root in successors:
        if root in index:
            continue
        work = [(root, targets(root))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, targets(child)))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: set[str] = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1 or node in successors[node]:
                    found.append(component)
    return found


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
