"""Diagnostics that need no code execution: computed from the syntax index alone.

The language server publishes these on every keystroke; the semantic layer (which
imports the module) may report the same problems later with more certainty. Each check
stays silent where syntax cannot be sure: a step name that is not a literal, a module
imported from elsewhere, a ``next`` callable whose targets are not literals, or a chain
the parser could not read.
"""

from __future__ import annotations

from collections.abc import Iterable

from skillkit_core.lint.closest import closest_name
from skillkit_core.lint.diagnostic import Fix, LintDiagnostic, SourceRange, TextEdit
from skillkit_core.source.graph import (
    StepGraph,
    namespace,
    reachable,
    ref_chains,
    step_graph,
)
from skillkit_core.source.model import (
    STORE_ROLES,
    TRANSITION_ROLES,
    NextKind,
    Role,
    SourceIndex,
    StepInfo,
    StepRef,
    Target,
)

UNKNOWN_STEP = "unknown-step"
DUPLICATE_STEP = "duplicate-step"
COMPOSITE_STEP_NAME = "composite-step-name"
UNREACHABLE_STEP = "unreachable-step"
CYCLE_GUARD = "cycle-guard"


def structural_diagnostics(index: SourceIndex, *, file: str | None = None) -> list[LintDiagnostic]:
    """Unknown step targets, duplicate step names, ``/`` in dispatcher steps, unreachable
    steps, unguarded cycles: every finding with the range of the offending string, in
    document order."""
    graphs = _Graphs(index)
    found = [
        *_unknown_targets(index, file),
        *_duplicates(index, file),
        *_composite_names(index, file),
        *_unreachable(index, file, graphs),
        *_unguarded_cycles(index, file, graphs),
    ]
    found.sort(key=lambda d: (d.range.line, d.range.column, d.rule) if d.range else (0, 0, d.rule))
    return found


class _Graphs:
    """Each skill chain's step graph, built once for all the checks of one index."""

    def __init__(self, index: SourceIndex) -> None:
        self._index = index
        self._built: dict[int, StepGraph] = {}

    def of(self, chain: int) -> StepGraph:
        graph = self._built.get(chain)
        if graph is None:
            graph = self._built[chain] = step_graph(self._index, chain)
        return graph


def _step_name(index: SourceIndex, ref: StepRef) -> str | None:
    for owner in ref.owners:
        if owner.step is not None:
            return index.steps[owner.step].name
    return None


def _unknown_targets(index: SourceIndex, file: str | None) -> Iterable[LintDiagnostic]:
    names = _NameSets(index)
    for ref in index.refs:
        if ref.role not in TRANSITION_ROLES and ref.role not in STORE_ROLES:
            continue
        if ref.target in (Target.SELF, Target.PARENT):
            continue
        known = names.for_ref(ref)
        if known is None or ref.name in known:
            continue
        if ref.role == Role.ENTRY and not known:
            continue  # a skill with no steps at all: invalid-definition says so, as the rules do
        yield _unknown(index, ref, known, file)


class _NameSets:
    """The names each chain's strings may use, computed once per chain and kind."""

    def __init__(self, index: SourceIndex) -> None:
        self._index = index
        self._cache: dict[tuple[int, Target, bool], frozenset[str] | None] = {}
        # The answer for each set of chains, target and role: most references share one.
        self._answers: dict[tuple[frozenset[int], Target, bool], frozenset[str] | None] = {}

    def for_ref(self, ref: StepRef) -> frozenset[str] | None:
        """The names ``ref`` may use, or None when syntax cannot tell."""
        chains = ref_chains(ref)
        if not chains:
            return None
        key = (frozenset(chains), ref.target, ref.role == Role.ENTRY)
        if key not in self._answers:
            self._answers[key] = self._names_for(chains, ref)
        return self._answers[key]

    def _names_for(self, chains: set[int], ref: StepRef) -> frozenset[str] | None:
        found: set[str] = set()
        for chain in chains:
            # A module's entry is one of its own steps; everything else sees the namespace.
            own_only = ref.role == Role.ENTRY and self._index.chains[chain].kind == "module"
            key = (chain, ref.target, own_only)
            if key not in self._cache:
                self._cache[key] = self._names(chain, ref.target, own_only)
            names = self._cache[key]
            if names is None:
                return None
            found |= names
        return frozenset(found)

    def _names(self, chain: int, target: Target, own_only: bool) -> frozenset[str] | None:
        index = self._index
        info = index.chains[chain]
        if target == Target.STEP:
            space = namespace(index, chain)
            if not space.closed or not all(index.chains[c].complete for c in space.chains):
                return None
            members = {chain} if own_only else space.chains
            return frozenset(
                name
                for member in members
                for position in index.chains[member].steps
                if (name := index.steps[position].name)
            )
        declarations = info.subskills if target == Target.SUBSKILL else info.topics
        if any(declaration.name is None for declaration in declarations):
            return None
        return frozenset(declaration.name for declaration in declarations if declaration.name)


_NOT_FOUND = {
    Target.STEP: "is not a step",
    Target.SUBSKILL: "names no registered sub-skill",
    Target.TOPIC: "names no registered topic",
}
_WRITTEN_PREFIX = {Target.SUBSKILL: "subskill:", Target.TOPIC: "topic:"}


def unknown_name_message(
    role: Role, step: str | None, written: str, kind: Target, hint: str | None
) -> str:
    """How a name that matches no step, sub-skill or topic is reported: the same words
    from the syntax layer as from the unknown-step and cycle-guard rules, so an editor
    shows one finding whichever layer saw it first. ``written`` is the string as written
    (``topic:x`` included); ``step`` is the step the string belongs to."""
    problem = _NOT_FOUND[kind]
    at = f"step '{step}': " if step else ""
    if role == Role.ENTRY:
        text = f"entry '{written}' {problem}"
    elif role == Role.BRANCH:
        text = f"{at}a branch to '{written}' {problem}"
    elif role == Role.ON_MAX_VISITS:
        text = f"{at}on_max_visits='{written}' {problem}"
    elif role == Role.NEXT_RETURN:
        text = f"{at}next returns '{written}', which {problem}"
    elif role in STORE_ROLES:
        text = f"{at}the store lookup '{written}' names no step, so it never finds a result"
    else:
        text = f"{at}next '{written}' {problem}"
    return text + (f"; did you mean '{hint}'?" if hint else "")


def _unknown(
    index: SourceIndex, ref: StepRef, known: frozenset[str], file: str | None
) -> LintDiagnostic:
    hint = closest_name(ref.name, sorted(known)) if ref.name else None
    step = _step_name(index, ref)
    written = _WRITTEN_PREFIX.get(ref.target, "") + ref.name
    fix = None
    if hint is not None:
        # The rules' titles: cycle-guard's for a guard, unknown-step's for the rest.
        if ref.role == Role.ON_MAX_VISITS:
            title = f"Change on_max_visits to '{_WRITTEN_PREFIX.get(ref.target, '') + hint}'"
        else:
            title = f"Change '{ref.name}' to '{hint}'"
        fix = Fix(
            title=title,
            edits=(TextEdit(range=ref.name_range, new_text=hint, file=file),),
        )
    # An unknown on_max_visits target is a broken loop guard: cycle-guard's finding.
    return LintDiagnostic(
        rule=CYCLE_GUARD if ref.role == Role.ON_MAX_VISITS else UNKNOWN_STEP,
        severity="error",
        message=unknown_name_message(ref.role, step, written, ref.target, hint),
        step=step,
        file=file,
        range=ref.name_range,
        fix=fix,
    )


def _duplicates(index: SourceIndex, file: str | None) -> Iterable[LintDiagnostic]:
    from skillkit_core.lint.rules.workflow_duplicate_step import duplicate_message

    reported: set[int] = set()
    spaces = {namespace(index, chain.index).chains for chain in index.chains}
    for chains in sorted(spaces, key=sorted):
        first: dict[str, StepInfo] = {}
        members = sorted(
            (index.steps[p] for c in chains for p in index.chains[c].steps),
            key=lambda step: (step.range.line, step.range.column),
        )
        for step in members:
            if step.name is None or step.name_string is None:
                continue
            earlier = first.setdefault(step.name, step)
            if earlier is step or step.index in reported:
                continue
            reported.add(step.index)
            yield LintDiagnostic(
                rule=DUPLICATE_STEP,
                severity="error",
                message=duplicate_message(step.name, earlier.range.line + 1),
                step=step.name,
                file=file,
                range=step.name_string.inner,
            )


def _composite_names(index: SourceIndex, file: str | None) -> Iterable[LintDiagnostic]:
    from skillkit_core.lint.rules.workflow_composite_step_name import slash_name_message

    for chain in index.chains:
        if not chain.subskills:
            continue
        for position in chain.steps:
            step = index.steps[position]
            if step.name is None or "/" not in step.name or step.name_string is None:
                continue
            yield LintDiagnostic(
                rule=COMPOSITE_STEP_NAME,
                severity="error",
                message=slash_name_message(step.name),
                step=step.name,
                file=file,
                range=step.name_string.inner,
            )


def _unreachable(index: SourceIndex, file: str | None, graphs: _Graphs) -> Iterable[LintDiagnostic]:
    # A step is unreachable when no skill whose namespace holds it can reach it, and
    # every such skill's graph is fully known.
    from skillkit_core.lint.rules.workflow_unreachable_step import unreachable_message

    verdicts: dict[int, bool] = {}
    entries: dict[int, str] = {}  # the entry of a skill the step is unreachable from
    for chain in index.chains:
        if chain.kind != "skill":
            continue
        graph = graphs.of(chain.index)
        judged = graph.known and graph.entry is not None and graph.entry in graph.outgoing
        reached = reachable(graph) if judged else set()
        for member in namespace(index, chain.index).chains:
            for position in index.chains[member].steps:
                step = index.steps[position]
                alive = not judged or step.name in reached
                verdicts[position] = verdicts.get(position, False) or alive
                if not alive and graph.entry is not None:
                    entries.setdefault(position, graph.entry)
    for position, alive in sorted(verdicts.items()):
        step = index.steps[position]
        if alive or step.name_string is None:
            continue
        yield LintDiagnostic(
            rule=UNREACHABLE_STEP,
            severity="warning",
            message=unreachable_message(step.name, entries[position]),
            step=step.name,
            file=file,
            range=step.name_string.inner,
        )


# ---------------------------------------------------------------- unguarded cycles
#
# The semantic ``cycle-guard`` rule's check on the literal graph: same rule id, severity,
# message, place (the head step's name) and fix, so that the server shows one finding
# when both layers report a loop. Silent unless the graph is known and is the graph the
# built definition will have: no callable or computed ``next``, and no ``.extend`` step
# on the loop (its template may carry the guard).


def _unguarded_cycles(
    index: SourceIndex, file: str | None, graphs: _Graphs
) -> Iterable[LintDiagnostic]:
    reported: set[int] = set()
    for chain in index.chains:
        if chain.kind != "skill":
            continue
        graph = graphs.of(chain.index)
        steps = _definition_order(index, chain.index)
        if not graph.known or steps is None or not all(map(_literal_next, steps.values())):
            continue
        for finding in _chain_cycles(index, graph, steps, file):
            if finding[0] not in reported:
                reported.add(finding[0])
                yield finding[1]


def _definition_order(index: SourceIndex, chain: int) -> dict[str, StepInfo] | None:
    """The skill's steps by name in the order the built definition holds them (a
    registered module's steps where it is registered); None when names repeat."""
    info = index.chains[chain]

    def start(where: SourceRange) -> tuple[int, int]:
        return (where.line, where.column)

    calls: list[tuple[tuple[int, int], tuple[int, ...]]] = [
        (start(index.steps[p].range), (p,)) for p in info.steps
    ]
    calls += [
        (start(r.range), index.chains[r.module_chain].steps)
        for r in info.registrations
        if r.module_chain is not None
    ]
    steps: dict[str, StepInfo] = {}
    for _, positions in sorted(calls):
        for position in positions:
            step = index.steps[position]
            if step.name is None or step.name in steps:
                return None
            steps[step.name] = step
    return steps


def _literal_next(step: StepInfo) -> bool:
    if step.next == NextKind.STRING:
        given = next((a for a in step.arguments if a.name == "next"), None)
        return given is None or given.string is not None  # not ``"a" if x else "b"``
    return step.next != NextKind.CALLABLE


def _has_max_visits(step: StepInfo) -> bool:
    return step.max_visits is not None and step.max_visits != "None"


def _guarded(step: StepInfo) -> bool:
    return _has_max_visits(step) and any(
        a.name == "on_max_visits" and a.text != "None" for a in step.arguments
    )


def _chain_cycles(
    index: SourceIndex, graph: StepGraph, steps: dict[str, StepInfo], file: str | None
) -> Iterable[tuple[int, LintDiagnostic]]:
    # Importing the engine package costs ~25 ms: load it only when a chain has steps.
    from skillkit_core.engine.graph import cyclic_components

    order = {name: position for position, name in enumerate(steps)}
    outgoing = {name: graph.outgoing.get(name, ()) for name in steps}
    for cycle in cyclic_components(outgoing):
        members = {name for name in cycle if not _guarded(steps[name])}
        inner = {name: tuple(t for t in outgoing[name] if t in members) for name in members}
        for loop in cyclic_components(inner):
            if any(steps[name].method == "extend" for name in loop):
                continue
            head = _head(graph, steps, loop, order)
            step = steps[head]
            if step.name_string is None:
                continue
            yield step.index, _cycle_finding(index, graph, steps, loop, cycle, head, order, file)


def _head(
    graph: StepGraph, steps: dict[str, StepInfo], loop: set[str], order: dict[str, int]
) -> str:
    """The step to guard, chosen as the semantic rule does: one that already has
    max_visits, else where the loop is entered (from outside or as the entry)."""
    started = [name for name in loop if _has_max_visits(steps[name])]
    if started:
        return min(started, key=order.__getitem__)
    entered = {
        target
        for source, targets in graph.outgoing.items()
        if source not in loop
        for target in targets
        if target in loop
    }
    if graph.entry in loop:
        entered.add(graph.entry)
    return min(entered or loop, key=order.__getitem__)


def _cycle_finding(
    index: SourceIndex,
    graph: StepGraph,
    steps: dict[str, StepInfo],
    loop: set[str],
    cycle: set[str],
    head: str,
    order: dict[str, int],
    file: str | None,
) -> LintDiagnostic:
    from skillkit_core.lint.rules.workflow_cycle_guard import unguarded_message

    step = steps[head]
    assert step.name_string is not None
    loop_names = sorted(loop, key=order.__getitem__)
    max_visits = step.max_visits if _has_max_visits(step) else None
    message = unguarded_message(head, loop_names, max_visits)
    exits = _exits(index, graph, steps, cycle, order)
    fix, suggestions = None, ()
    if len(exits) == 1 and exits[0][1]:
        fix = _guard_fix(index, steps, head, exits[0][0], file, "")
    else:
        # Ways out reached under a condition: one guard each, for a person to choose.
        found = (
            _guard_fix(index, steps, head, leave, file, " (reached when a condition holds)")
            for leave, _ in exits
        )
        suggestions = tuple(f for f in found if f is not None)
    return LintDiagnostic(
        rule=CYCLE_GUARD,
        severity="warning",
        message=message,
        step=head,
        file=file,
        range=step.name_string.range,
        fix=fix,
        suggestions=suggestions,
    )


def _exits(
    index: SourceIndex,
    graph: StepGraph,
    steps: dict[str, StepInfo],
    cycle: set[str],
    order: dict[str, int],
) -> list[tuple[str, bool]]:
    """The steps outside ``cycle`` it can go to (terminal ones first), each with whether
    it is reached only as a fallback (``next="x"``, or a ``branch`` that closes right
    after its target: no ``when``), as the semantic rule judges them."""
    fallback: dict[str, bool] = {}
    lines = index.text.split("\n")
    for ref in index.refs:
        if ref.role not in (Role.NEXT, Role.BRANCH, Role.NEXT_RETURN) or ref.target != Target.STEP:
            continue
        if ref.name in cycle or ref.name not in steps:
            continue
        for owner in ref.owners:
            source = index.steps[owner.step] if owner.step is not None else None
            if source is None or source.name not in cycle or steps.get(source.name) is not source:
                continue
            by_fallback = ref.role == Role.NEXT or (
                ref.role == Role.BRANCH and _closes_after(lines, ref.range)
            )
            fallback[ref.name] = fallback.get(ref.name, True) and by_fallback
    outside = [t for name in cycle for t in graph.outgoing.get(name, ()) if t not in cycle]
    for target in outside:
        fallback.setdefault(target, False)  # an edge no literal shows (a parent's exit)
    return sorted(
        fallback.items(),
        key=lambda item: (steps[item[0]].next != NextKind.TERMINAL, order[item[0]]),
    )


def _closes_after(lines: list[str], where: SourceRange) -> bool:
    """True when the call holding the literal at ``where`` closes right after it."""
    rest = lines[where.end_line][where.end_column :] if where.end_line < len(lines) else ""
    following = lines[where.end_line + 1 :]
    for text in (rest, *following):
        stripped = text.split("#", 1)[0].strip()
        if stripped:
            return stripped.startswith(")")
    return False


def _guard_fix(
    index: SourceIndex,
    steps: dict[str, StepInfo],
    head: str,
    leave: str,
    file: str | None,
    note: str,
) -> Fix | None:
    """``max_visits``/``on_max_visits`` added to the head, leaving for ``leave``, written
    like the semantic rule's fix."""
    from skillkit_core.engine.graph import IMPLICIT_MAX_VISITS
    from skillkit_core.lint.workflow import string_literal

    step = steps[head]
    if not step.arguments:
        return None
    arguments = [] if _has_max_visits(step) else [f"max_visits={IMPLICIT_MAX_VISITS}"]
    arguments.append(f"on_max_visits={string_literal(leave)}")
    last = step.arguments[-1].range
    at = SourceRange(last.end_line, last.end_column, last.end_line, last.end_column)
    if last.line == step.range.line:
        text = "".join(f", {a}" for a in arguments)
    else:
        line = index.text.split("\n", last.line + 1)[last.line]
        indent = line[: len(line) - len(line.lstrip())]
        text = "".join(f",\n{indent}{a}" for a in arguments)
    title = f"Limit '{head}' and leave the loop for '{leave}'{note}"
    return Fix(title=title, edits=(TextEdit(range=at, new_text=text, file=file),))
