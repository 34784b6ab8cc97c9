"""The ``preview``, ``simulate`` and ``graph`` commands behind ``skillkit``'s thin faces.

Each takes the command line's values as given (strings), checks and converts them,
calls one core function and formats its answer. Bad input raises a ``SkillkitError``
(``UsageError`` for malformed options) that the CLI prints as ``error[code]: message``.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skillkit_core.errors import UsageError

OUTPUT_FORMATS = ("md", "json")


@dataclass(frozen=True)
class CommandOutput:
    """What to print (text or, for images, bytes) and the exit code."""

    content: str | bytes
    exit_code: int = 0


def preview_command(
    target: str,
    *,
    params: str | None = None,
    host: str = "generic",
    tools: str | None = None,
    subagent: bool = False,
    step: str | None = None,
    output_format: str = "md",
) -> CommandOutput:
    """A skill folder (or its SKILL.md) → its disclosure tiers; an ENTRY → its preview."""
    _check_format(output_format)
    from skillkit_core.simulate import json_format, markdown

    folder = _skill_folder(target)
    if folder is not None:
        from skillkit_core.simulate.tiers import tier_view

        view = tier_view(folder)
        md = markdown.tiers_markdown(view) if output_format == "md" else None
        return CommandOutput(_safe(md or json_format.to_json(view), output_format))
    from skillkit_core.simulate.preview import preview

    definition = _load(target, lenient=True)
    given = _params(params)
    if given is not None:
        _check_params(definition, given)
    result = preview(definition, host, _tools(tools), subagent, given, step=step)
    md = markdown.preview_markdown(result) if output_format == "md" else None
    return CommandOutput(_safe(md or json_format.to_json(result), output_format))


def simulate_command(
    entry: str,
    *,
    params: str | None = None,
    host: str = "generic",
    tools: str | None = None,
    subagent: bool = False,
    responses: str | None = None,
    path: str | None = None,
    choose: Sequence[str] = (),
    seed: int = 0,
    all_paths: bool = False,
    max_paths: int | None = None,
    run_actions: bool = False,
    output_format: str = "md",
) -> CommandOutput:
    """Simulate ENTRY; exit 1 when a run ended in an error result."""
    _check_format(output_format)
    from skillkit_core.simulate import json_format, markdown
    from skillkit_core.simulate.report import DEFAULT_MAX_PATHS
    from skillkit_core.simulate.simulate import simulate

    definition = _load(entry, lenient=False)
    report = simulate(
        definition,  # type: ignore[arg-type]  # a reference skill is refused with a message
        host,
        responses,
        _choices(choose),
        seed,
        _names(path) if path else None,
        all_paths,
        run_actions,
        _params(params),
        tools=_tools(tools),
        subagent=subagent,
        max_paths=max_paths or DEFAULT_MAX_PATHS,
    )
    text = (
        markdown.simulation_markdown(report)
        if output_format == "md"
        else json_format.to_json(report)
    )
    return CommandOutput(_safe(text, output_format), 0 if report.ok else 1)


def graph_command(entry: str, *, output_format: str = "mermaid") -> CommandOutput:
    """ENTRY's workflow as Mermaid, DOT, SVG or PNG."""
    from skillkit_core.simulate import graph_render

    definition = _load(entry, lenient=True)
    if output_format != "mermaid":
        return CommandOutput(graph_render.render_graph(definition, output_format))
    diagram = graph_render.build_diagram(definition)
    limit = graph_render.MERMAID_MAX_EDGES
    if len(diagram.arrows) > limit:
        print(
            f"warning: the graph has {len(diagram.arrows)} arrows; Mermaid draws at most "
            f"{limit} unless its maxEdges setting is raised: use --format dot, svg or png",
            file=sys.stderr,
        )
    return CommandOutput(graph_render.to_mermaid(diagram))


def _safe(text: str, output_format: str) -> str:
    """``text`` with the control characters a SKILL.md or a skill's prompts may hold
    escaped (:mod:`skillkit_core.safe_text`): printed raw, they would drive the terminal.
    Line breaks are kept (Windows ones as plain ones) and tabs."""
    from skillkit_core.safe_text import escape_controls, escape_json_controls

    if output_format == "json":
        return escape_json_controls(text)
    return escape_controls(text.replace("\r\n", "\n"))


def written_to(result: CommandOutput, output: str | None, entry: str) -> CommandOutput:
    """``result`` written to the file ``output`` (nothing left to print), or as it is;
    never over the file of ``entry``, the skill it was made from."""
    if output is None:
        return result
    if not output:  # Path("") is the current folder
        raise UsageError("--output is empty: give the file to write")
    target = Path(output)
    from skillkit_core.loader import split_entry

    with contextlib.suppress(OSError):
        if os.path.samefile(target, split_entry(entry)[0]):
            raise UsageError(f"refusing to write over the skill's source {target}")
    try:
        if isinstance(result.content, bytes):
            target.write_bytes(result.content)
        else:
            target.write_text(result.content, encoding="utf-8")
    except OSError as error:
        raise UsageError(f"cannot write {target}: {error.strerror or error}") from None
    return CommandOutput("", result.exit_code)


# -- option parsing ------------------------------------------------------------------


def _check_format(output_format: str) -> None:
    if output_format not in OUTPUT_FORMATS:
        raise UsageError(
            f"--format must be one of {', '.join(OUTPUT_FORMATS)}; got '{output_format}'"
        )


def _skill_folder(target: str) -> Path | None:
    path = Path(target)
    if path.is_dir():
        return path
    if path.is_file() and path.name.lower() == "skill.md":
        return path.parent
    return None


def _load(entry: str, *, lenient: bool) -> Any:
    """The definition ENTRY names; a lenient load keeps a half-written skill's problems
    on the definition instead of failing, so preview and graph can show what there is."""
    from skillkit_core.loader import load_entry
    from skillkit_core.simulate.contained import loading

    if not lenient:
        with loading():
            return load_entry(entry)
    from skillkit_core.builder.skill import lenient_builds

    with lenient_builds(), loading():
        return load_entry(entry)


def _params(text: str | None) -> Any:
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError as error:
        raise UsageError(f"--params is not valid JSON: {error}") from None


def _check_params(definition: Any, params: Any) -> None:
    """Params given on the command line fail as they would in a run (``error[params]``),
    as ``simulate`` says, rather than leaving every prompt unrendered."""
    from skillkit_core.definitions import SkillDefinition
    from skillkit_core.engine.workflow import validate_params

    if isinstance(definition, SkillDefinition):
        validate_params(definition, params)


def _tools(text: str | None) -> tuple[str, ...]:
    return tuple(_names(text)) if text else ()


def _names(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def _choices(items: Sequence[str]) -> dict[str, Any]:
    """``step=value`` / ``step.field=value`` pairs; a value is JSON when it parses as JSON
    (``true``, ``3``, ``"x"``), else the text itself."""
    choices: dict[str, Any] = {}
    for item in items:
        key, equals, value = item.partition("=")
        if not equals or not key.strip():
            raise UsageError(f"--choose takes step=value (or step.field=value); got '{item}'")
        try:
            choices[key.strip()] = json.loads(value)
        except ValueError:
            choices[key.strip()] = value
    return choices
