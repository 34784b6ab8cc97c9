"""What a simulation found, as data: runs, turns, transitions, actions, coverage.

Every class has ``to_data()`` giving JSON-ready data (the ``--format json`` output); the
Markdown transcript is rendered from the same objects by ``simulate.markdown``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

DEFAULT_MAX_PATHS = 100


@dataclass(frozen=True)
class TransitionRecord:
    """A transition the engine made; ``target`` is ``None`` when the skill ended."""

    source: str
    target: str | None
    reason: str
    """``next``, ``max_visits`` (a loop guard redirected it), ``route`` or ``terminal``."""
    via: str
    intended: str | None = None
    """For ``max_visits``: the step the transition aimed at before the guard."""

    def to_data(self) -> dict[str, Any]:
        return {
            "from": self.source,
            "to": self.target,
            "reason": self.reason,
            "via": self.via,
            "intended": self.intended,
        }


@dataclass(frozen=True)
class ActionRecord:
    """An action's result; ``generated`` when it came from the output schema, not a run."""

    step: str
    action: str
    result: Any
    generated: bool

    def to_data(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "action": self.action,
            "result": self.result,
            "generated": self.generated,
        }


@dataclass(frozen=True)
class Decision:
    """The response given at one prompt and where it came from."""

    data: Any
    source: str
    """``fixture``, ``example``, ``choice``, ``path`` or ``explore``."""
    note: str
    label: str = "example"


@dataclass
class Turn:
    """One round trip: what the agent received, what it answered, what happened next."""

    step: str
    visit: int
    received: dict[str, Any]
    decision: Decision
    transitions: list[TransitionRecord] = field(default_factory=list)
    actions: list[ActionRecord] = field(default_factory=list)

    def to_data(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "visit": self.visit,
            "received": self.received,
            "response": self.decision.data,
            "responseSource": self.decision.source,
            "responseNote": self.decision.note,
            "transitions": [t.to_data() for t in self.transitions],
            "actions": [a.to_data() for a in self.actions],
        }


@dataclass
class SimulatedRun:
    """One run from start to end (or to the first error)."""

    turns: list[Turn]
    opening: list[TransitionRecord]
    opening_actions: list[ActionRecord]
    final: dict[str, Any] | None
    status: str
    """``done``, ``error`` (the engine returned an error result), ``stopped`` (turn limit)
    or ``unsimulated`` (an error after an action whose result the simulation could not
    make up: it declares no output schema, so its stand-in returned None)."""
    path: list[str]
    final_output: Any
    redirected_to: dict[str, str] | None
    params_choice: str | None = None
    """``params.field=value`` when the run explored other params than the report's."""
    stand_ins: tuple[str, ...] = ()
    """Steps whose action ran as a stand-in returning None (no output schema)."""

    @property
    def error(self) -> str | None:
        """The message of the error result the run ended with."""
        if self.status != "error":
            return None
        return self.error_text

    @property
    def error_text(self) -> str | None:
        """The message of the error result the engine returned last, whatever the status."""
        if not self.final or self.final.get("kind") != "error":
            return None
        return str(self.final.get("message") or self.final.get("error") or "error")

    @property
    def visits(self) -> dict[str, int]:
        return dict(Counter(self.path))

    @property
    def decisions(self) -> list[str]:
        """Each generated choice that shaped this run, e.g. ``verify: safe=false``."""
        chosen = [self.params_choice] if self.params_choice else []
        return chosen + [
            f"{t.step}: {t.decision.label}"
            for t in self.turns
            if t.decision.source != "fixture" and t.decision.label != "example"
        ]

    def to_data(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "path": self.path,
            "finalOutput": self.final_output,
            "visits": self.visits,
            "redirectedTo": self.redirected_to,
            "paramsChoice": self.params_choice,
            "decisions": self.decisions,
            "opening": {
                "transitions": [t.to_data() for t in self.opening],
                "actions": [a.to_data() for a in self.opening_actions],
            },
            "turns": [t.to_data() for t in self.turns],
            "final": self.final,
        }


@dataclass(frozen=True)
class GraphEdge:
    """A transition the graph says can happen; ``kind`` as in the graph analysis
    (``next``, ``branch``, ``dynamic`` or ``max_visits`` for a loop guard's fallback)."""

    source: str
    target: str
    kind: str

    @property
    def key(self) -> tuple[str, str, bool]:
        """What a run must do to cover it: go ``source`` → ``target``, by a guard or not."""
        return (self.source, self.target, self.kind == "max_visits")

    def to_data(self) -> dict[str, Any]:
        return {"from": self.source, "to": self.target, "kind": self.kind}


@dataclass
class Coverage:
    """What a set of runs covered, against what the graph says can happen."""

    steps: list[str] = field(default_factory=list)
    uncovered_steps: list[str] = field(default_factory=list)
    unreachable_steps: list[str] = field(default_factory=list)
    transitions: list[GraphEdge] = field(default_factory=list)
    uncovered_transitions: list[GraphEdge] = field(default_factory=list)
    routes: list[str] = field(default_factory=list)
    uncovered_routes: list[str] = field(default_factory=list)

    def to_data(self) -> dict[str, Any]:
        return {
            "steps": self.steps,
            "uncoveredSteps": self.uncovered_steps,
            "unreachableSteps": self.unreachable_steps,
            "transitions": [e.to_data() for e in self.transitions],
            "uncoveredTransitions": [e.to_data() for e in self.uncovered_transitions],
            "routes": self.routes,
            "uncoveredRoutes": self.uncovered_routes,
        }


@dataclass(frozen=True)
class Unvaried:
    """A routing choice whose values the runs did not all try."""

    choice: str
    """``step.field`` or ``params.field``."""
    missing: tuple[Any, ...]
    """The values no run gave it."""
    reason: str

    def to_data(self) -> dict[str, Any]:
        return {"choice": self.choice, "missing": list(self.missing), "reason": self.reason}


@dataclass
class Exploration:
    """Whether ``all_paths`` explored every alternative, and what it left out if not."""

    unvaried: list[Unvaried] = field(default_factory=list)
    unreached: list[str] = field(default_factory=list)
    """Steps the graph can reach that no run reached."""
    untaken: list[GraphEdge] = field(default_factory=list)
    """Transitions of reached steps no run took (a callable's read from its code)."""
    opaque: list[str] = field(default_factory=list)
    """Reached steps whose callable ``next`` names no step: their alternatives are unknown."""
    bound_reached: bool = False

    @property
    def complete(self) -> bool:
        return not (
            self.unvaried or self.unreached or self.untaken or self.opaque or self.bound_reached
        )

    def to_data(self) -> dict[str, Any]:
        return {
            "complete": self.complete,
            "unvaried": [u.to_data() for u in self.unvaried],
            "unreached": self.unreached,
            "untaken": [e.to_data() for e in self.untaken],
            "opaque": self.opaque,
        }


@dataclass
class SimulationReport:
    """Everything ``simulate`` found: the runs, and coverage for ``all_paths``."""

    skill: str
    host: str
    tools: tuple[str, ...]
    subagent: bool
    seed: int
    run_actions: bool
    params: Any
    params_generated: bool
    runs: list[SimulatedRun]
    coverage: Coverage = field(default_factory=Coverage)
    all_paths: bool = False
    bound_reached: bool = False
    max_paths: int = DEFAULT_MAX_PATHS
    notes: list[str] = field(default_factory=list)
    schema_gaps: list[str] = field(default_factory=list)
    """Steps without a response schema whose answer routing reads (see ``routing``)."""
    exploration: Exploration | None = None
    """For ``all_paths``: what was and was not explored."""

    @property
    def ok(self) -> bool:
        """Every run reached the end, or stopped where only running its actions could
        tell what comes next."""
        return all(run.status in ("done", "unsimulated") for run in self.runs)

    def to_data(self) -> dict[str, Any]:
        return {
            "skill": self.skill,
            "host": self.host,
            "tools": list(self.tools),
            "subagent": self.subagent,
            "seed": self.seed,
            "runActions": self.run_actions,
            "params": self.params,
            "paramsGenerated": self.params_generated,
            "allPaths": self.all_paths,
            "boundReached": self.bound_reached,
            "maxPaths": self.max_paths,
            "notes": self.notes,
            "schemaGaps": self.schema_gaps,
            "exploration": self.exploration.to_data() if self.exploration else None,
            "runs": [run.to_data() for run in self.runs],
            "coverage": self.coverage.to_data(),
        }
