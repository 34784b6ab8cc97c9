"""Coverage: which steps, transitions and routes a set of simulated runs went through.

What could happen comes from the graph analysis: every edge (a callable ``next``'s edges
are read from the step names in its code, so some may never be taken) and every
registered sub-skill and topic of a composite.
"""

from __future__ import annotations

from collections.abc import Sequence

from skillkit_core.definitions import SUBSKILL_PREFIX, TOPIC_PREFIX, SkillDefinition
from skillkit_core.engine.graph_source import analyze_source
from skillkit_core.simulate.report import Coverage, GraphEdge, SimulatedRun


def coverage(definition: SkillDefinition, runs: Sequence[SimulatedRun]) -> Coverage:
    """Steps, transitions and routes that ``runs`` covered, against the graph."""
    found = Coverage()
    skills = [("", definition)] + [(f"{s.name}/", s.definition) for s in definition.subskills]
    for prefix, skill in skills:
        graph = analyze_source(skill)
        found.steps += [prefix + name for name in skill.steps]
        found.unreachable_steps += [
            prefix + name for name in skill.steps if name not in graph.reachable
        ]
        for edge in graph.edges:
            item = GraphEdge(prefix + edge.source, prefix + edge.target, edge.kind)
            if all(item.key != known.key for known in found.transitions):
                found.transitions.append(item)
    found.routes = [f"{SUBSKILL_PREFIX}{s.name}" for s in definition.subskills]
    found.routes += [f"{TOPIC_PREFIX}{t.name}" for t in definition.topics]
    visited = {name for run in runs for name in run.path}
    taken, routed = _taken(runs)
    found.uncovered_steps = [s for s in found.steps if s not in visited]
    found.uncovered_transitions = [e for e in found.transitions if e.key not in taken]
    found.uncovered_routes = [r for r in found.routes if r not in routed]
    return found


def _taken(runs: Sequence[SimulatedRun]) -> tuple[set[tuple[str, str, bool]], set[str]]:
    """``(from, to, by a guard)`` of every transition made, and every route taken."""
    taken: set[tuple[str, str, bool]] = set()
    routed: set[str] = set()
    for run in runs:
        for record in run.opening + [t for turn in run.turns for t in turn.transitions]:
            if record.target is None:
                continue
            if record.reason == "route":
                routed.add(record.target)
            elif record.reason == "max_visits" and record.intended:
                # A guard's edge runs from the step whose limit was reached to its fallback.
                taken.add((record.intended, record.target, True))
            else:
                taken.add((record.source, record.target, False))
    return taken, routed
