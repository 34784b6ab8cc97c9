"""Markdown for people: previews, simulation transcripts and tier views.

Rendered from the same objects that ``to_data()`` turns into JSON, so both formats always
say the same thing. Example data is labelled wherever it appears.
"""

from __future__ import annotations

import json
import re
from typing import Any

from skillkit_core.safe_text import code_span
from skillkit_core.simulate.preview import PARAMS_EXAMPLE, PARAMS_GIVEN, SkillPreview, StepPreview
from skillkit_core.simulate.report import (
    Exploration,
    SimulatedRun,
    SimulationReport,
    TransitionRecord,
    Turn,
)
from skillkit_core.simulate.tiers import TierView

_BACKTICKS = re.compile(r"`+")
_DYNAMIC_GUESS = " (read from a callable next's code; it may never return it)"


def fence(text: str, lang: str = "") -> str:
    """``text`` in a code fence longer than any run of backticks inside it."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    marks = "`" * max(3, longest + 1)
    return f"{marks}{lang}\n{text.rstrip(chr(10))}\n{marks}"


def _json_block(value: Any) -> str:
    return fence(json.JSONEncoder(indent=2, ensure_ascii=False).encode(value), "json")


def _inline(value: Any) -> str:
    # The encoder, not json.dumps, which the skill's module may have rebound (to indent).
    return code_span(json.JSONEncoder(ensure_ascii=False).encode(value))


def _names(names: list[str]) -> str:
    return ", ".join(code_span(n) for n in names)


# -- preview -------------------------------------------------------------------------


def preview_markdown(preview: SkillPreview) -> str:
    """The whole preview: header, preamble, steps, sub-skills, topics."""
    parts = [_preview_header(preview)]
    if preview.problems:
        parts.append(
            "## Problems\n\nThe skill does not fully build; it is previewed as far as it "
            "goes.\n\n" + "\n".join(f"- {p}" for p in preview.problems)
        )
    if preview.preamble is not None:
        parts.append(
            "## Preamble\n\nSent once, in front of the first prompt of a run.\n\n"
            + fence(preview.preamble, "markdown")
        )
    if preview.steps:
        parts.append("## Steps\n\n" + "\n\n".join(_step(s) for s in preview.steps))
    for sub in preview.subskills:
        parts.append(_subskill(sub))
    if preview.topics:
        parts.append(_topics(preview))
    return "\n\n".join(parts) + "\n"


def _preview_header(preview: SkillPreview) -> str:
    lines = [f"# Preview of {code_span(preview.name)} on {preview.host}", ""]
    if preview.description:
        lines += [f"> {preview.description}", ""]
    tools = _names(list(preview.tools)) if preview.tools else "none reported"
    lines.append(
        f"- Kind: {preview.kind} · host: {code_span(preview.host)} · tools: {tools} · "
        f"subagent: {'yes' if preview.subagent else 'no'}"
    )
    lines.append(f"- Params: {_params_text(preview)}")
    lines += [f"- Note: {note}" for note in preview.notes if not note.startswith("params are")]
    return "\n".join(lines)


def _params_text(preview: SkillPreview) -> str:
    if preview.params_source == PARAMS_GIVEN:
        return f"{_inline(preview.params)} (given)"
    if preview.params_source == PARAMS_EXAMPLE:
        return f"{_inline(preview.params)} (an example generated from the params schema)"
    return "none declared"


def _step(step: StepPreview) -> str:
    title = f"### {code_span(step.name)}"
    marks = [m for m, on in (("entry", step.entry), ("unreachable", not step.reachable)) if on]
    if marks:
        title += f" ({', '.join(marks)})"
    parts = [title, _prompt_section(step)]
    if step.schema is not None:
        schema = f"**Response schema** {code_span(step.schema_name)}"
        parts.append(f"{schema}\n\n{_json_block(step.schema)}")
    elif step.prompt_kind != "none":
        parts.append("**Response schema:** none (the agent's output is taken as it is)")
    parts.append("**Transitions**\n\n" + "\n".join(f"- {t.describe()}" for t in step.transitions))
    parts.append(_facts(step))
    if step.notes:
        parts.append("**Notes**\n\n" + "\n".join(f"- {note}" for note in step.notes))
    return "\n\n".join(parts)


def _prompt_section(step: StepPreview) -> str:
    if step.prompt_kind == "none":
        return "**Prompt:** none. The step runs without the agent (auto-advanced with `{}`)."
    if step.prompt is None:
        return f"**Prompt** ({step.prompt_kind}): not rendered, see the notes."
    if step.prompt_kind == "static":
        return f"**Prompt**\n\n{fence(step.prompt, 'xml')}"
    lines = [
        "**Prompt** — EXAMPLE: a dynamic prompt, rendered by the engine against example "
        "data, not real answers:",
        "",
    ]
    example = step.example
    if example is not None:
        if example.params_source == PARAMS_EXAMPLE:
            lines.append("- params: the example above")
        for name, data in example.store:
            lines.append(f"- {code_span(name)} answered {_inline(data)} (example)")
        if not example.store:
            lines.append("- no earlier step had to run")
    return "\n".join(lines) + "\n\n" + fence(step.prompt, "xml")


def _facts(step: StepPreview) -> str:
    if step.guaranteed:
        guaranteed = _names(step.guaranteed)
    else:
        guaranteed = "nothing (it is the entry)" if step.entry else "nothing"
    if step.visit_limit is None:
        limit = "none"
    elif step.visit_limit_implicit:
        limit = f"{step.visit_limit} (implicit: the step lies on a cycle)"
    else:
        limit = f"{step.visit_limit}"
    lines = [
        f"**Guaranteed to have run before it:** {guaranteed}",
        f"**Visit limit:** {limit}",
    ]
    if step.action is not None:
        action = step.action
        io = ""
        if action["declared"]:
            given, returned = (code_span(action[key] or "any") for key in ("input", "output"))
            io = f" (input {given}, output {returned})"
        lines.append(f"**Action:** {code_span(action['name'])}{io}")
    return "\n\n".join(lines)


def _subskill(sub: SkillPreview) -> str:
    head = f"## Sub-skill {code_span(sub.name)}"
    if sub.description:
        head += f"\n\n> {sub.description}"
    head += f"\n\n- Params: {_params_text(sub)}"
    if sub.preamble is not None:
        head += (
            "\n\n**Preamble**, sent again in front of the sub-skill's first prompt when a "
            "run is routed to it (or started on it):\n\n" + fence(sub.preamble, "markdown")
        )
    body = "\n\n".join(_step(s) for s in sub.steps)
    return head + ("\n\n" + body if body else "")


def _topics(preview: SkillPreview) -> str:
    parts = ["## Topics"]
    for topic in preview.topics:
        head = f"### {code_span(topic.name)}: {topic.label}"
        if topic.content is None:
            parts.append(head + "\n\n" + "\n".join(f"- {note}" for note in topic.notes))
        else:
            parts.append(
                f"{head} (about {topic.tokens} tokens)\n\n{fence(topic.content, 'markdown')}"
            )
    return "\n\n".join(parts)


# -- simulation ----------------------------------------------------------------------


def simulation_markdown(report: SimulationReport) -> str:
    """One run: its transcript and summary. Several (all paths): a table and coverage."""
    parts = [_simulation_header(report)]
    if report.all_paths:
        parts.append(_paths_table(report))
        parts.append(_coverage(report))
    else:
        run = report.runs[0]
        parts.append(_transcript(run))
        parts.append(_summary(run))
    return "\n\n".join(parts) + "\n"


def _simulation_header(report: SimulationReport) -> str:
    title = "All paths" if report.all_paths else "Simulation"
    lines = [f"# {title} of {code_span(report.skill)} on {report.host}", ""]
    actions = "run for real" if report.run_actions else "not run (outputs generated)"
    lines.append(f"- Seed: {report.seed} · actions: {actions}")
    source = " (an example generated from the params schema)" if report.params_generated else ""
    lines.append(f"- Params: {_inline(report.params)}{source}")
    lines += [f"- Note: {note}" for note in report.notes if not note.startswith("params are")]
    lines += [f"- Missing schema: {gap}" for gap in report.schema_gaps]
    return "\n".join(lines)


def _transcript(run: SimulatedRun) -> str:
    parts = ["## Transcript"]
    if run.opening or run.opening_actions:
        parts.append("### Before the first prompt\n\n" + _after(run.opening, run.opening_actions))
    for index, turn in enumerate(run.turns, start=1):
        parts.append(_turn(index, turn))
    if run.status == "unsimulated":
        parts.append(f"### Not simulated further\n\n{_unsimulated(run)}")
    elif run.final is not None:
        heading = "### Done" if run.status == "done" else "### Error"
        parts.append(f"{heading}\n\nThe agent receives:\n\n{_json_block(run.final)}")
    elif run.status == "stopped":
        parts.append("### Stopped\n\nThe run hit the turn limit before it finished.")
    return "\n\n".join(parts)


def _unsimulated(run: SimulatedRun) -> str:
    steps = ", ".join(code_span(step) for step in run.stand_ins)
    return (
        f"The action of {steps} declares no output schema, so the simulation could not make "
        "up its result and used None; the run then failed where that result was read "
        f"({run.error_text}). The real run uses the action's real result: simulate with "
        "--run-actions to run the actions, or declare the action's output= schema."
    )


def _turn(index: int, turn: Turn) -> str:
    lines = [
        f"### {index}. {code_span(turn.step)} (visit {turn.visit})",
        "",
        "The agent receives:",
        "",
        _json_block(turn.received),
        "",
        f"It answers ({turn.decision.note}):",
        "",
        _json_block(turn.decision.data),
    ]
    after = _after(turn.transitions, turn.actions)
    if after:
        lines += ["", after]
    return "\n".join(lines)


def _after(transitions: list[TransitionRecord], actions: list[Any]) -> str:
    lines = []
    for action in actions:
        how = (
            "generated from its output schema, not run"
            if action.generated
            else "returned by running it"
        )
        lines.append(
            f"- action {code_span(action.action)} of {code_span(action.step)} ({how}): "
            f"{_inline(action.result)}"
        )
    for record in transitions:
        lines.append(f"- {_transition(record)}")
    return "\n".join(lines)


def _transition(record: TransitionRecord) -> str:
    if record.target is None:
        return f"{code_span(record.source)} ends the skill (terminal)"
    text = f"{code_span(record.source)} → {code_span(record.target)} ({record.via})"
    if record.reason == "max_visits":
        text += (
            f"; {code_span(record.intended)} reached its visit limit, so its on_max_visits applied"
        )
    if record.reason == "route":
        text += "; routed out of the dispatcher"
    return text


def _summary(run: SimulatedRun) -> str:
    visits = ", ".join(f"{code_span(step)} ×{count}" for step, count in run.visits.items())
    lines = [
        "## Summary",
        "",
        f"- Result: {run.status}",
        f"- Path: {' → '.join(run.path)}",
        f"- Final output: {_inline(run.final_output)}",
        f"- Visits: {visits}",
    ]
    if run.redirected_to:
        kind, name = run.redirected_to["kind"], code_span(run.redirected_to["name"])
        lines.append(f"- Routed to {kind} {name}")
    return "\n".join(lines)


def _paths_table(report: SimulationReport) -> str:
    explored = report.exploration
    if explored is None or explored.complete:
        ended = "every alternative explored"
    elif report.bound_reached:
        ended = f"stopped at the bound of {report.max_paths}; more paths exist"
    else:
        ended = "not every alternative was explored; see below"
    lines = [
        f"## Paths\n\n{len(report.runs)} distinct path(s) ({ended}).",
        "",
        "| # | Path | Result | Choices that made it |",
        "| --- | --- | --- | --- |",
    ]
    for index, run in enumerate(report.runs, start=1):
        choices = _cell("; ".join(run.decisions)) or "—"
        result = run.status if run.error is None else f"error: {_cell(run.error)}"
        if run.status == "unsimulated":
            stand_ins = ", ".join(code_span(step) for step in run.stand_ins)
            result = f"unsimulated: the action of {stand_ins} has no output schema (--run-actions)"
        lines.append(f"| {index} | {' → '.join(run.path)} | {result} | {choices} |")
    if explored is not None and not explored.complete:
        lines += ["", _unexplored(explored, report.max_paths)]
    return "\n".join(lines)


def _cell(text: str) -> str:
    """``text`` fit for one table cell: one line, pipes escaped."""
    return " ".join(text.split()).replace("|", "\\|")


def _unexplored(explored: Exploration, bound: int) -> str:
    lines = ["Not explored:", ""]
    for item in explored.unvaried:
        values = ", ".join(code_span(json.JSONEncoder().encode(v)) for v in item.missing)
        lines.append(f"- {code_span(item.choice)} never took {values}: {item.reason}")
    if explored.unreached:
        lines.append(
            f"- steps no run reached: {_names(explored.unreached)} (see the coverage below)"
        )
    for edge in explored.untaken:
        why = (
            "its code names that step, but no run made it return it (it may never)"
            if edge.kind == "dynamic"
            else "no generated answer made its condition hold"
        )
        lines.append(
            f"- no run went {code_span(edge.source)} → {code_span(edge.target)} ({edge.kind}): "
            f"{why}; steer it with --choose or a responses fixture"
        )
    for step in explored.opaque:
        lines.append(
            f"- {code_span(step)} decides its next step in code that names no step, so where "
            "else it may go is unknown"
        )
    if explored.bound_reached:
        lines.append(f"- more paths exist beyond the bound of {bound} (raise --max-paths)")
    return "\n".join(lines)


def _coverage(report: SimulationReport) -> str:
    cov = report.coverage
    lines = ["## Coverage", ""]
    covered = len(cov.steps) - len(cov.uncovered_steps)
    lines.append(f"- Steps: {covered} of {len(cov.steps)} reached")
    lines += [f"  - never reached: {code_span(s)}" for s in cov.uncovered_steps]
    covered = len(cov.transitions) - len(cov.uncovered_transitions)
    lines.append(f"- Transitions: {covered} of {len(cov.transitions)} taken")
    for edge in cov.uncovered_transitions:
        guess = (
            " (read from a callable next's code; it may never return it)"
            if edge.kind == "dynamic"
            else ""
        )
        edge_text = f"{code_span(edge.source)} → {code_span(edge.target)} ({edge.kind})"
        lines.append(f"  - never taken: {edge_text}{guess}")
    if cov.routes:
        covered = len(cov.routes) - len(cov.uncovered_routes)
        lines.append(f"- Routes: {covered} of {len(cov.routes)} taken")
        lines += [f"  - never taken: {code_span(r)}" for r in cov.uncovered_routes]
    if cov.unreachable_steps:
        lines.append(f"- Unreachable in the graph: {_names(cov.unreachable_steps)}")
    return "\n".join(lines)


# -- tiers ---------------------------------------------------------------------------


def tiers_markdown(view: TierView) -> str:
    """The three tiers with their token estimates."""
    title = view.name or view.folder
    parts = [f"# Disclosure tiers of {code_span(title)}"]
    if view.problems:
        parts.append("## Problems\n\n" + "\n".join(f"- {p}" for p in view.problems))
    tier1 = f"## Tier 1: listed at start-up (about {view.listing_tokens} tokens)"
    if view.listing is None:
        parts.append(f"{tier1}\n\n{view.listing_note}")
    else:
        parts.append(
            f"{tier1}\n\nEvery session carries this entry in `<available_skills>`:\n\n"
            + fence(view.listing, "xml")
        )
    if view.shares:
        rows = [
            "| Host | Counted | Used | Limit | Share |",
            "| --- | --- | ---: | ---: | ---: |",
        ]
        rows += [
            f"| {share.host} | {share.measured} | {share.used} | {share.limit} {share.unit} "
            f"| {share.percent}% |"
            for share in view.shares
        ]
        parts.append("Listing limits per host:\n\n" + "\n".join(rows))
    parts.append(
        f"## Tier 2: loaded when the skill is activated (about {view.body_tokens} tokens, "
        f"{view.body_lines} lines)\n\n{fence(view.body, 'markdown')}"
    )
    tier3 = f"## Tier 3: read on demand (about {view.resource_tokens} tokens in all)"
    if not view.resources:
        parts.append(f"{tier3}\n\nNo other files.")
    else:
        rows = ["| File | Bytes | Tokens |", "| --- | ---: | ---: |"]
        for file in view.resources:
            tokens = str(file.tokens) if file.tokens is not None else "— (binary or large)"
            rows.append(f"| {code_span(file.path)} | {file.size} | {tokens} |")
        parts.append(f"{tier3}\n\n" + "\n".join(rows))
    return "\n\n".join(parts) + "\n"
