"""Diagnostics that need no code execution: computed from the syntax index alone.

The language server publishes these on every keystroke; the semantic layer (which
imports the module) may report the same problems later with more certainty. Each check
stays silent where syntax cannot be sure: a step name that is not a literal, a module
imported from elsewhere, a ``next`` callable whose targets are not literals, or a chain
the parser could not read.
"""

from __future__ import annotations

from collections.abc import Iterable

from skillkit_core.lint.diagnostic import Fix, LintDiagnostic, TextEdit
from skillkit_core.source.graph import namespace, reachable, ref_chains, step_graph
from skillkit_core.source.model import (
    STORE_ROLES,
    TRANSITION_ROLES,
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


def structural_diagnostics(index: SourceIndex, *, file: str | None = None) -> list[LintDiagnostic]:
    """Unknown step targets, duplicate step names, ``/`` in dispatcher steps, unreachable
    steps: every finding with the range of the offending string, in document order."""
    found = [
        *_unknown_targets(index, file),
        *_duplicates(index, file),
        *_composite_names(index, file),
        *_unreachable(index, file),
    ]
    found.sort(key=lambda d: (d.range.line, d.range.column, d.rule) if d.range else (0, 0, d.rule))
    return found


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
        yield _unknown(index, ref, known, file)


class _NameSets:
    """The names each chain's strings may use, computed once per chain and kind."""

    def __init__(self, index: SourceIndex) -> None:
        self._index = index
        self._cache: dict[tuple[int, Target, bool], frozenset[str] | None] = {}

    def for_ref(self, ref: StepRef) -> frozenset[str] | None:
        """The names ``ref`` may use, or None when syntax cannot tell."""
        chains = ref_chains(ref)
        if not chains:
            return None
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


def _unknown(
    index: SourceIndex, ref: StepRef, known: frozenset[str], file: str | None
) -> LintDiagnostic:
    what = {Target.SUBSKILL: "sub-skill", Target.TOPIC: "topic"}.get(ref.target, "step")
    if ref.role in STORE_ROLES:
        message = f'no step named "{ref.name}": the store has no results for it'
    elif not ref.name:
        message = f"empty {what} name"
    else:
        message = f'no {what} named "{ref.name}"'
    import difflib

    fix = None
    suggestion = (
        difflib.get_close_matches(ref.name, sorted(known), n=1, cutoff=0.6) if ref.name else []
    )
    if suggestion:
        message += f' (did you mean "{suggestion[0]}"?)'
        fix = Fix(
            title=f'Change to "{suggestion[0]}"',
            edits=(TextEdit(range=ref.name_range, new_text=suggestion[0], file=file),),
        )
    return LintDiagnostic(
        rule=UNKNOWN_STEP,
        severity="error",
        message=message,
        step=_step_name(index, ref),
        file=file,
        range=ref.name_range,
        fix=fix,
    )


def _duplicates(index: SourceIndex, file: str | None) -> Iterable[LintDiagnostic]:
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
                message=f'step "{step.name}" is already defined on line {earlier.range.line + 1}',
                step=step.name,
                file=file,
                range=step.name_string.inner,
            )


def _composite_names(index: SourceIndex, file: str | None) -> Iterable[LintDiagnostic]:
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
                message=(
                    f'step "{step.name}" of a skill with sub-skills contains "/", which is '
                    "reserved for sub-skill step names (<subskill>/<step>)"
                ),
                step=step.name,
                file=file,
                range=step.name_string.inner,
            )


def _unreachable(index: SourceIndex, file: str | None) -> Iterable[LintDiagnostic]:
    # A step is unreachable when no skill whose namespace holds it can reach it, and
    # every such skill's graph is fully known.
    verdicts: dict[int, bool] = {}
    for chain in index.chains:
        if chain.kind != "skill":
            continue
        graph = step_graph(index, chain.index)
        judged = graph.known and graph.entry is not None and graph.entry in graph.outgoing
        reached = reachable(graph) if judged else set()
        for member in namespace(index, chain.index).chains:
            for position in index.chains[member].steps:
                step = index.steps[position]
                alive = not judged or step.name in reached
                verdicts[position] = verdicts.get(position, False) or alive
    for position, alive in sorted(verdicts.items()):
        step = index.steps[position]
        if alive or step.name_string is None:
            continue
        yield LintDiagnostic(
            rule=UNREACHABLE_STEP,
            severity="warning",
            message=f'step "{step.name}" is never reached from the entry step',
            step=step.name,
            file=file,
            range=step.name_string.inner,
        )
