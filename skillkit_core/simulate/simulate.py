"""Simulate whole runs on the real engine, with fixture or generated responses.

The engine is the one ``scripts/run`` uses (``WorkflowEngine``, or ``CompositeEngine``
for a dispatcher with sub-skills and topics), driving an instrumented copy of the
definition (see :mod:`skillkit_core.simulate.stubs`). Every transcript entry keeps the
exact wire JSON the agent would have received.

Responses come from a fixture (the map ``mock_model`` takes) or are generated from each
step's response schema. Branches are steered by ``choose`` (a field value, or the step to
go to next) or by ``path``; to pick a response that leads somewhere, the simulator tries
candidates on a throw-away engine restored from a snapshot (never with real actions).
``all_paths`` enumerates distinct paths up to a bound and reports what none covered: the
routing choices (closed fields routing reads, see ``routing``) not given every value, and
the steps and transitions no run reached; with generated params it explores again for
each value of a params field routing reads.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from skillkit_core.composite import CompositeEngine, split_step
from skillkit_core.definitions import SkillDefinition, StepDefinition
from skillkit_core.engine.graph_source import analyze_source
from skillkit_core.engine.results import DoneResult, ErrorResult, PromptResult
from skillkit_core.engine.workflow import WorkflowEngine
from skillkit_core.hosts import Handshake, normalize_host
from skillkit_core.safe_text import code_span
from skillkit_core.simulate.coverage import coverage
from skillkit_core.simulate.errors import SimulationError
from skillkit_core.simulate.examples import canonical, example_value, is_valid, seed_for, with_value
from skillkit_core.simulate.examples import variants as example_variants
from skillkit_core.simulate.report import (
    DEFAULT_MAX_PATHS,
    Decision,
    Exploration,
    SimulatedRun,
    SimulationReport,
    Turn,
    Unvaried,
)
from skillkit_core.simulate.responses import NO_ANSWER, fixture_answer, load_responses
from skillkit_core.simulate.routing import MISSING, PARAMS, Routing, routing, value_at
from skillkit_core.simulate.steering import PathGuide, resolve_choices
from skillkit_core.simulate.stubs import CopyOptions, Recorder, simulation_copy
from skillkit_core.simulate.transcript import records

DEFAULT_MAX_TURNS = 500


def simulate(
    definition: SkillDefinition,
    host: str | Handshake = "generic",
    responses: Mapping[str, Any] | str | Path | None = None,
    choose: Mapping[str, Any] | None = None,
    seed: int = 0,
    path: Sequence[str] | None = None,
    all_paths: bool = False,
    run_actions: bool = False,
    params: Any = None,
    *,
    tools: Sequence[str] = (),
    subagent: bool = False,
    refs: Any = None,
    max_paths: int = DEFAULT_MAX_PATHS,
    max_turns: int = DEFAULT_MAX_TURNS,
) -> SimulationReport:
    """Run ``definition`` on the real engine as an agent on ``host`` would see it.

    ``responses`` is the map ``mock_model`` takes (or a ``.json``/``.py`` file holding
    it); steps it does not answer get generated examples. ``choose`` maps ``step`` (or
    ``step.field``) to a value: a value of one of the response's closed fields
    (``Literal``/``Enum``/``bool``), or the name of the step (or ``subskill:X`` /
    ``topic:X`` route) to go to next. ``path`` lists steps to follow (prompt-less steps may
    be left out). ``all_paths`` explores distinct paths, up to ``max_paths``. Actions run
    only with ``run_actions``; otherwise their output is generated from their ``output=``
    schema and marked so (None without one: a run that then fails is ``unsimulated``).
    Without ``params`` an example is generated from the params schema (said in the notes).
    """
    return asyncio.run(
        simulate_async(
            definition,
            host,
            responses,
            choose,
            seed,
            path,
            all_paths,
            run_actions,
            params,
            tools=tools,
            subagent=subagent,
            refs=refs,
            max_paths=max_paths,
            max_turns=max_turns,
        )
    )


async def simulate_async(
    definition: SkillDefinition,
    host: str | Handshake = "generic",
    responses: Mapping[str, Any] | str | Path | None = None,
    choose: Mapping[str, Any] | None = None,
    seed: int = 0,
    path: Sequence[str] | None = None,
    all_paths: bool = False,
    run_actions: bool = False,
    params: Any = None,
    *,
    tools: Sequence[str] = (),
    subagent: bool = False,
    refs: Any = None,
    max_paths: int = DEFAULT_MAX_PATHS,
    max_turns: int = DEFAULT_MAX_TURNS,
) -> SimulationReport:
    """The coroutine behind :func:`simulate` (for callers inside an event loop)."""
    _check_request(definition, all_paths, run_actions, path, max_paths)
    handshake = _handshake(host, tools, subagent)
    fixture = load_responses(responses)

    def simulator_for(given_params: Any) -> Simulator:
        return Simulator(
            definition,
            handshake,
            params=given_params,
            responses=fixture,
            choose=choose or {},
            seed=seed,
            path=path or (),
            run_actions=run_actions,
            refs=refs,
            max_turns=max_turns,
        )

    simulator = simulator_for(params)
    report = SimulationReport(
        skill=definition.name,
        host=handshake.host,
        tools=handshake.tools_available,
        subagent=handshake.is_subagent,
        seed=seed,
        run_actions=run_actions,
        params=simulator.params,
        params_generated=simulator.params_generated,
        runs=[],
        all_paths=all_paths,
        max_paths=max_paths,
        notes=simulator.notes(),
        schema_gaps=[gap.describe() for gap in simulator.routing.gaps],
    )
    if all_paths:
        report.runs, report.bound_reached = await simulator.explore(max_paths)
        if simulator.params_generated:
            await _explore_params(simulator, simulator_for, report)
    else:
        report.runs = [(await simulator.run())[0]]
    report.coverage = coverage(definition, report.runs)
    if all_paths:
        report.exploration = exploration(simulator, report)
    return report


async def _explore_params(
    simulator: Simulator, simulator_for: Any, report: SimulationReport
) -> None:
    """With generated params, explore again for each other value of a params field that
    routing reads (``params.mode="deep"``), adding the runs not found yet."""
    schema = simulator.definition.params
    seen = {_run_key(run) for run in report.runs}
    for choice in simulator.routing.params:
        for value in choice.point.values:
            varied = with_value(simulator.params, choice.point.path, value)
            if varied is None or varied == simulator.params or not is_valid(schema, varied):
                continue
            left = report.max_paths - len(report.runs)
            if left < 1:
                report.bound_reached = True
                return
            other = simulator_for(varied)
            runs, bound = await other.explore(left)
            report.bound_reached |= bound
            label = f"{choice.label}={json.dumps(value)}"
            for run in runs:
                if _run_key(run) not in seen:
                    seen.add(_run_key(run))
                    run.params_choice = label
                    report.runs.append(run)
            for step, decisions in other.given.items():
                simulator.given.setdefault(step, []).extend(decisions)
            simulator.params_tried.append(varied)


def _run_key(run: SimulatedRun) -> tuple[Any, ...]:
    moves = tuple((t.source, t.target, t.reason) for turn in run.turns for t in turn.transitions)
    return (tuple(run.path), moves, run.status, canonical(run.final_output))


def exploration(simulator: Simulator, report: SimulationReport) -> Exploration:
    """What ``all_paths`` left out: routing choices not given every value, steps the
    graph can reach that no run reached, reached steps whose routing names no step."""
    found = Exploration(bound_reached=report.bound_reached)
    given = simulator.given
    for choice in simulator.routing.choices:
        if choice.owner == PARAMS:
            tried = [value_at(p, choice.point.path) for p in simulator.params_tried]
            reason = (
                "the given params stay the same in every run; simulate again with --params "
                "giving it each value"
                if not simulator.params_generated
                else "no valid params example gave it (a validator may tie it to other "
                "fields); give it with --params"
            )
        else:
            decisions = given.get(choice.owner, [])
            if not decisions:
                continue  # the step itself stayed unreached: reported as such
            tried = [value_at(d.data, choice.point.path) for d in decisions]
            fixed = any(d.source == "fixture" for d in decisions)
            reason = (
                "the responses fixture answers this step"
                if fixed
                else "no valid generated answer gave it (a validator may tie it to other "
                "fields); give one in a responses fixture"
            )
        missing = tuple(v for v in choice.point.values if v not in tried and v is not MISSING)
        if missing:
            readers = ", ".join(code_span(r) for r in choice.readers)
            found.unvaried.append(
                Unvaried(choice.label, missing, f"{reason} (read by the routing of {readers})")
            )
    unreachable = set(report.coverage.unreachable_steps)
    found.unreached = [s for s in report.coverage.uncovered_steps if s not in unreachable]
    visited = {name for run in report.runs for name in run.path}
    # A callable's edges are read from its code: one never taken may be impossible, but
    # nothing shows that it is, so it counts too (worded as a maybe).
    found.untaken = [e for e in report.coverage.uncovered_transitions if e.source in visited]
    found.opaque = [name for name in simulator.opaque_steps() if name in visited]
    return found


def _check_request(
    definition: Any, all_paths: bool, run_actions: bool, path: Any, max_paths: int
) -> None:
    if not isinstance(definition, SkillDefinition):
        raise SimulationError(
            f"'{getattr(definition, 'name', definition)}' is a reference skill: it has topics "
            "but no workflow to simulate (preview shows its topics)"
        )
    if all_paths and run_actions:
        raise SimulationError(
            "all paths means one run per path, so with run_actions every action would run "
            "many times; run actions on one path at a time (steer it with path or choose)"
        )
    if all_paths and path:
        raise SimulationError("give either all_paths or a path, not both")
    if max_paths < 1:
        raise SimulationError("max_paths must be at least 1")


def _handshake(host: str | Handshake, tools: Sequence[str], subagent: bool) -> Handshake:
    if isinstance(host, Handshake):
        return host
    return Handshake(normalize_host(host), tuple(tools), subagent)


async def first_prompt_at(
    definition: SkillDefinition,
    handshake: Handshake,
    params: Any,
    step: str,
    *,
    seed: int = 0,
    refs: Any = None,
) -> tuple[str, list[tuple[str, Any]]]:
    """The prompt of ``step`` the first time a run reaches it with generated responses
    (each picked so that ``step`` stays reachable), and the ``(step, response)`` pairs
    given on the way. Preview uses it to render a dynamic prompt against a store a real
    run could have. Raises ``SimulationError`` when no such run is found."""
    simulator = Simulator(definition, handshake, params=params, seed=seed, refs=refs, max_turns=200)
    run, _ = await simulator.run(_Plan(stop_at=step))
    last = run.turns[-1] if run.turns else None
    if run.status != "stopped" or last is None or last.step != step:
        raise SimulationError(f"no run with generated responses reached step '{step}'")
    given = [(turn.step, turn.decision.data) for turn in run.turns[:-1]]
    return last.received["prompt"], given


@dataclass(frozen=True)
class _Plan:
    forced: tuple[Decision, ...] = ()
    """Decisions for the first turns (re-running a prefix while exploring)."""
    explore: bool = False
    stop_at: str | None = None
    """Steer towards this step and stop when its prompt arrives (the turn is kept,
    unanswered)."""


def _schema_less_actions(events: list[dict[str, Any]]) -> list[str]:
    """The steps whose stubbed action had no output schema to make an example from (its
    stand-in result was None)."""
    return [e["step"] for e in events if e["kind"] == "action" and e.get("schema_less")]


def _reads_none(result: Any) -> bool:
    """Whether an error result is code failing on None (``'NoneType' object is not
    subscriptable``, ``… has no attribute``): what reading a None stand-in raises. A
    validation error, or any other failure, is the skill's or the fixture's own."""
    return (
        isinstance(result, ErrorResult)
        and not result.retry
        and "'NoneType' object" in (result.message or "")
    )


@dataclass(frozen=True)
class _Outcome:
    """Where a candidate response leads (from a probe)."""

    kind: str
    entered: tuple[str, ...]
    moves: tuple[tuple[str, str, str], ...]
    """``(from, to, reason)`` of each transition, so a loop guard's redirect differs
    from a branch to the same step."""
    route: str | None
    error: str | None
    retry: bool

    @property
    def key(self) -> tuple[Any, ...]:
        return (self.kind, self.entered, self.moves, self.route, self.error)


class Simulator:
    """Drives the engine for one simulation request; one instance, many runs."""

    def __init__(
        self,
        definition: SkillDefinition,
        handshake: Handshake,
        *,
        params: Any = None,
        responses: Mapping[str, Any] | None = None,
        choose: Mapping[str, Any] | None = None,
        seed: int = 0,
        path: Sequence[str] = (),
        run_actions: bool = False,
        refs: Any = None,
        max_turns: int = DEFAULT_MAX_TURNS,
    ) -> None:
        if definition.problems:
            raise SimulationError(
                f"skill '{definition.name}' cannot run; fix its definition first:\n"
                + "\n".join(definition.problems)
            )
        self.definition = definition
        self.handshake = handshake
        self.seed = seed
        self.run_actions = run_actions
        self.refs = refs
        self.max_turns = max_turns
        self.recorder = Recorder()
        options = CopyOptions(seed, run_actions, keep_observers=run_actions)
        self.live = simulation_copy(definition, self.recorder, options)
        # Probes never run real actions or observers, whatever the live copy does.
        self.probe_definition = (
            simulation_copy(definition, self.recorder, CopyOptions(seed))
            if run_actions
            else self.live
        )
        self.steps = all_steps(definition)
        self.params, self.params_generated = self._params(params)
        self.responses = dict(responses or {})
        self._check_names(self.responses, "the responses fixture")
        self._check_names(dict.fromkeys(path), "the path")
        prompt_less = frozenset(n for n, s in self.steps.items() if not s.has_prompt)
        self.guide = PathGuide(tuple(path), prompt_less)
        self.steering = resolve_choices(definition, self.steps, choose or {})
        self.routing: Routing = routing(definition)
        self.params_tried: list[Any] = [self.params]
        """The params of every exploration (several when routing reads generated params)."""
        self.given: dict[str, list[Decision]] = {}
        """Every answer given or probed per step, in every run (kept or not)."""

    def opaque_steps(self) -> list[str]:
        """Steps (``sub/step`` in a sub-skill) whose callable ``next`` names no step or
        route, so the graph cannot tell where they may go."""
        found = list(analyze_source(self.definition).opaque)
        for sub in self.definition.subskills:
            found += [f"{sub.name}/{name}" for name in analyze_source(sub.definition).opaque]
        return found

    def _params(self, params: Any) -> tuple[Any, bool]:
        if params is not None or self.definition.params is None:
            return params, False
        return example_value(self.definition.params, seed=self.seed, use_defaults=True), True

    def _check_names(self, names: Mapping[str, Any], what: str) -> None:
        unknown = [n for n in names if n not in self.steps]
        if unknown:
            raise SimulationError(
                f"{what} names unknown step(s) {', '.join(repr(n) for n in unknown)} "
                f"(steps: {', '.join(self.steps)})"
            )

    def notes(self) -> list[str]:
        """What the reader must know about the simulated runs."""
        notes = []
        if self.params_generated:
            notes.append("params are an example generated from the params schema")
        if not self.run_actions and any(s.action for s in self.steps.values()):
            notes.append(
                "actions were not run: their results are examples generated from each "
                "action's output schema (run them with --run-actions)"
            )
        observers = [self.definition.observers] + [
            s.definition.observers for s in self.definition.subskills
        ]
        if not self.run_actions and any(observers):
            notes.append("observers were not called (they run with --run-actions)")
        return notes

    # -- engines ----------------------------------------------------------------------

    def _engine(self, definition: SkillDefinition) -> Any:
        if self.definition.is_composite:
            return CompositeEngine(definition, self.handshake, self.params, self.refs)
        return WorkflowEngine(definition, self.handshake, self.params, self.refs)

    async def _probe(self, engine: Any, step: str, data: Any) -> _Outcome:
        """Where ``data`` would lead from ``engine``'s state, without touching it."""
        probe = self._engine(self.probe_definition)
        probe.restore(engine.snapshot())
        before = len(probe.path)
        routed_before = getattr(probe, "redirected_to", None)
        self.recorder.take()
        result = await probe.advance(step, data)
        # The probe's events are its own: they only tell apart how it moved.
        moves = tuple(
            (e["source"], e["target"], e["reason"])
            for e in self.recorder.take()
            if e["kind"] == "transition"
        )
        routed = getattr(probe, "redirected_to", None)
        route = f"{routed['kind']}:{routed['name']}" if routed and routed != routed_before else None
        error = result if isinstance(result, ErrorResult) else None
        return _Outcome(
            result.kind,
            tuple(probe.path[before:]),
            moves,
            route,
            error.message if error else None,
            bool(error and error.retry),
        )

    # -- one run ----------------------------------------------------------------------

    async def run(
        self, plan: _Plan | None = None
    ) -> tuple[SimulatedRun, list[tuple[int, list[Decision]]]]:
        """One run under ``plan``; also the alternatives found at each explored turn."""
        plan = plan or _Plan()
        engine = self._engine(self.live)
        self.recorder.take()
        result = await engine.start()
        events = self.recorder.take()
        stand_ins = _schema_less_actions(events)
        opening, opening_actions = records(events, result, self.steps)
        if self.guide.path and self.guide.consumed(engine.path) is None:
            # The steps before the first prompt are the params' and the definition's.
            raise SimulationError(
                f"the given path ({' → '.join(self.guide.path)}) is not the way the run "
                f"starts: before its first prompt it went {' → '.join(engine.path)} (the "
                "params decide the steps before the first answer: try --params)"
            )
        turns: list[Turn] = []
        branches: list[tuple[int, list[Decision]]] = []
        status = "stopped"
        for _ in range(self.max_turns):
            if not isinstance(result, PromptResult):
                status = "done" if isinstance(result, DoneResult) else "error"
                break
            visit = engine.path.count(result.step)
            if result.step == plan.stop_at:
                turns.append(Turn(result.step, visit, result.to_wire(), _UNANSWERED))
                break
            decision, alternatives = await self._decide(engine, result, visit, plan, len(turns))
            if alternatives:
                branches.append((len(turns), alternatives))
            turn = Turn(result.step, visit, result.to_wire(), decision)
            self.given.setdefault(result.step, []).append(decision)
            result = await engine.advance(result.step, decision.data)
            events = self.recorder.take()
            stand_ins += _schema_less_actions(events)
            turn.transitions, turn.actions = records(events, result, self.steps)
            turns.append(turn)
            if decision.source == "fixture" and not self.guide.allows(engine.path, False):
                self._off_path(turn.step, engine.path)
        if status == "done" and self.guide.path and self.guide.pending(engine.path):
            raise SimulationError(
                f"the run ended ({' → '.join(engine.path)}) before following the whole path"
            )
        if status == "error" and stand_ins and _reads_none(result):
            # The stand-in's doing (code reading its None), not the skill's.
            status = "unsimulated"
        redirected = getattr(engine, "redirected_to", None)
        run = SimulatedRun(
            turns=turns,
            opening=opening,
            opening_actions=opening_actions,
            final=None if isinstance(result, PromptResult) else result.to_wire(),
            status=status,
            path=list(engine.path),
            final_output=result.final_output if isinstance(result, DoneResult) else None,
            redirected_to=dict(redirected) if redirected else None,
            stand_ins=tuple(dict.fromkeys(stand_ins)),
        )
        return run, branches

    def _off_path(self, step: str, path: list[str]) -> None:
        raise SimulationError(
            f"the responses fixture's answer for step '{step}' leads off the given path "
            f"({' → '.join(self.guide.path)}): the run went {' → '.join(path)}. Drop that "
            "step's answer from the fixture to let the path choose it, or change the path"
        )

    # -- choosing responses -----------------------------------------------------------

    async def _decide(
        self, engine: Any, prompt: PromptResult, visit: int, plan: _Plan, index: int
    ) -> tuple[Decision, list[Decision]]:
        if index < len(plan.forced):
            return plan.forced[index], []
        step = prompt.step
        answer = fixture_answer(self.responses, step, visit, prompt.prompt)
        if answer is not NO_ANSWER:
            return Decision(answer, "fixture", _fixture_note(self.responses, step, visit)), []
        candidates = self._candidates(step, visit)
        steer = self.steering.get(step)
        target = steer.target if steer else None
        follow_path = self.guide.pending(engine.path)
        steered = bool(target or follow_path or plan.stop_at)
        if not steered and not (plan.explore and len(candidates) > 1):
            return candidates[0], []
        outcomes = [(c, await self._probe(engine, step, c.data)) for c in candidates]
        # A probed answer was tried: it leads where the outcome says, like the one kept.
        self.given.setdefault(step, []).extend(c for c, o in outcomes if not o.retry)
        if target or follow_path:
            return self._steered(engine, step, outcomes, target), []
        if plan.stop_at:
            return self._towards(step, outcomes, plan.stop_at), []
        # Answers that lead the same way now may still part later, when routing reads
        # one of their closed fields from the store: those fields' values keep apart.
        read = [choice.point.path for choice in self.routing.of_step(step) if choice.later]
        groups: dict[tuple[Any, ...], Decision] = {}
        for candidate, outcome in outcomes:
            if not outcome.retry:
                values = tuple(canonical(value_at(candidate.data, p)) for p in read)
                groups.setdefault((outcome.key, values), candidate)
        chosen, *others = list(groups.values()) or [candidates[0]]
        explored = [replace(o, source="explore", note=f"{o.note}; another path") for o in others]
        return chosen, explored

    def _steered(
        self,
        engine: Any,
        step: str,
        outcomes: list[tuple[Decision, _Outcome]],
        target: str | None,
    ) -> Decision:
        for candidate, outcome in outcomes:
            if outcome.retry:
                continue
            if target is not None and (outcome.entered[:1] == (target,) or outcome.route == target):
                return replace(
                    candidate, source="choice", note=f"{candidate.note}; leads to '{target}'"
                )
            finished = outcome.kind != "prompt"
            if target is None and self.guide.allows([*engine.path, *outcome.entered], finished):
                return replace(
                    candidate, source="path", note=f"{candidate.note}; follows the given path"
                )
        reached = sorted({_lead(o) for _, o in outcomes})
        if target is not None:
            wanted = f"to '{target}'"
        else:
            done = self.guide.consumed(engine.path) or 0
            ahead = self.guide.path[done] if done < len(self.guide.path) else None
            where = f"on to '{ahead}', the next step of" if ahead else "along"
            wanted = f"{where} the given path ({' → '.join(self.guide.path)})"
        raise SimulationError(
            f"no generated response for step '{step}' leads {wanted}; they lead to: "
            f"{', '.join(reached)}. Give one in a responses fixture, or check the branch "
            "conditions"
            + "".join(f". {gap.describe()}" for gap in self.routing.gaps if gap.step == step)
        )

    def _towards(self, step: str, outcomes: list[tuple[Decision, _Outcome]], goal: str) -> Decision:
        for candidate, outcome in outcomes:
            if (
                outcome.kind == "prompt"
                and outcome.entered
                and self._reaches(outcome.entered[-1], goal)
            ):
                return candidate
        raise SimulationError(f"no generated response for step '{step}' leads on to '{goal}'")

    def _reaches(self, start: str, goal: str) -> bool:
        """Whether the graph has a way from ``start`` to ``goal`` (or they are one)."""
        if start == goal:
            return True
        sub, _ = split_step(start)
        if sub != split_step(goal)[0]:
            return True  # across a route: the dispatcher decides, assume it can
        skill = self.definition if sub is None else self.definition.subskill(sub).definition
        prefix = "" if sub is None else f"{sub}/"
        successors = analyze_source(skill).successors
        seen, stack = {start}, [start]
        while stack:
            for nxt in successors.get(stack.pop()[len(prefix) :], ()):
                name = prefix + nxt
                if name == goal:
                    return True
                if name not in seen:
                    seen.add(name)
                    stack.append(name)
        return False

    def _candidates(self, step: str, visit: int) -> list[Decision]:
        """The base example first (with ``choose`` fields applied), then its variants."""
        schema = self.steps[step].response
        ran_out = "; the fixture's answers for this step ran out" if step in self.responses else ""
        if schema is None:
            return [Decision({}, "example", f"no response schema: an empty object{ran_out}")]
        seed = seed_for(self.seed, step, visit)
        base = example_value(schema, seed=seed)
        note = f"generated example of {schema.name} (seed {self.seed}, visit {visit}){ran_out}"
        steer = self.steering.get(step)
        if steer and steer.fields:
            for field_path, value in steer.fields.items():
                changed = with_value(base, field_path, value)
                if changed is None or not is_valid(schema, changed):
                    raise SimulationError(
                        f"choose {step}.{'.'.join(field_path)}={value!r} does not fit the "
                        f"response schema {schema.name} of step '{step}'"
                    )
                base = changed
            chosen = ", ".join(steer.described)
            return [Decision(base, "choice", f"{note}, with {chosen}", chosen)]
        return [
            Decision(
                e.data,
                "example",
                note if e.label == "example" else f"{note}, with {e.label}",
                e.label,
            )
            for e in example_variants(schema, seed=seed, base=base)
        ]

    # -- exploring --------------------------------------------------------------------

    async def explore(self, max_paths: int) -> tuple[list[SimulatedRun], bool]:
        """Distinct runs, depth first, until every alternative was tried or the bound."""
        stack: list[tuple[Decision, ...]] = [()]
        runs: list[SimulatedRun] = []
        seen: set[tuple[Any, ...]] = set()
        while stack and len(runs) < max_paths:
            forced = stack.pop()
            run, branches = await self.run(_Plan(forced, explore=True))
            key = _run_key(run)
            if key in seen:
                continue
            seen.add(key)
            runs.append(run)
            used = [turn.decision for turn in run.turns]
            for index, alternatives in reversed(branches):
                for alternative in reversed(alternatives):
                    stack.append((*used[:index], alternative))
        return runs, bool(stack)


def _lead(outcome: _Outcome) -> str:
    """Where a probed answer went, in words: a step, a route, the end, or the error."""
    if outcome.route:
        return outcome.route
    if outcome.error:
        return f"an error ({outcome.error})"
    if outcome.kind == "done":
        return "the end of the skill" + (f" after {outcome.entered[0]}" if outcome.entered else "")
    return outcome.entered[0] if outcome.entered else f"({outcome.kind})"


_UNANSWERED = Decision(None, "none", "not answered: the preview stopped here", "none")


def _fixture_note(responses: Mapping[str, Any], step: str, visit: int) -> str:
    answers = responses[step]
    if isinstance(answers, list):
        return f"from the responses fixture (answer {visit} of {len(answers)})"
    return "from the responses fixture"


def all_steps(definition: SkillDefinition) -> dict[str, StepDefinition]:
    """Every step of the skill and its sub-skills, sub-skill steps named ``sub/step``."""
    steps = dict(definition.steps)
    for sub in definition.subskills:
        for name, step in sub.definition.steps.items():
            steps[f"{sub.name}/{name}"] = replace(step, name=f"{sub.name}/{name}")
    return steps
