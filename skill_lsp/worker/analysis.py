"""What the worker answers: load the buffer, then lint, preview and simulate its skills.

Analysis comes in two phases so that a large skill never holds the editor up:

- ``analyze`` executes the module and returns, per definition, everything cheap: lint
  findings, the graph facts of each step (transitions, guaranteed steps, visit limit,
  incoming steps), response schemas, static prompts and the XML of their ``act.*``
  pieces. Dynamic prompts (callables) are only listed as pending.
- ``render`` renders some pending dynamic prompts with the core's ``preview`` (which
  runs the real engine against example data, and costs up to a second each); the server
  asks for them a few at a time, after ``analyze``, and stops when the text changes.

The loaded definitions of the last few texts are kept (by the server's content key), so
``render``, ``preview`` and ``simulate`` need not execute the module again. Everything
returned is plain JSON data; the analyses are the core's, this module only calls them.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections import OrderedDict
from typing import Any

from skill_lsp.worker.loader import Loaded, execute, remember_baseline, use_builtins
from skill_lsp.worker.protocol import OP_ANALYZE, OP_PING, OP_PREVIEW, OP_RENDER, OP_SIMULATE

_KEPT = 4
_loaded: OrderedDict[str, Loaded] = OrderedDict()


def warm_up() -> None:
    """Import what every request needs before the worker says it is ready."""
    import pydantic  # noqa: F401

    import skillkit_core.builder.skill
    import skillkit_core.definitions
    import skillkit_core.engine.graph
    import skillkit_core.prompts.assemble  # noqa: F401

    for optional in (
        "skillkit_core.lint.workflow",
        "skillkit_core.simulate.preview",
        "skillkit_core.simulate.simulate",
        "skillkit_core.simulate.transitions",
    ):
        with contextlib.suppress(ImportError):
            __import__(optional)
    remember_baseline()


def handle(request: dict[str, Any]) -> Any:
    """Dispatch one request by its ``op``."""
    operations = {
        OP_ANALYZE: analyze,
        OP_RENDER: render,
        OP_PREVIEW: preview_request,
        OP_SIMULATE: simulate_request,
    }
    op = request.get("op")
    if op == OP_PING:
        return {"pid": os.getpid()}
    if op not in operations:
        raise ValueError(f"unknown worker operation {op!r}")
    try:
        return operations[op](request)
    finally:
        use_builtins()  # as before any module ran, for the next request


def _load(request: dict[str, Any], *, reuse: bool = True) -> Loaded:
    """The module of the request's text: kept from an earlier request, or executed now."""
    key = request.get("key")
    if reuse and isinstance(key, str) and key in _loaded:
        _loaded.move_to_end(key)
        loaded = _loaded[key]
    else:
        root = request.get("root")
        loaded = execute(str(request["path"]), str(request["text"]), str(root) if root else None)
        if isinstance(key, str):
            _loaded[key] = loaded
            while len(_loaded) > _KEPT:
                _loaded.popitem(last=False)
    use_builtins(loaded.builtins)  # what the module bound there, for its own functions
    return loaded


def _host_options(request: dict[str, Any]) -> tuple[str, tuple[str, ...]]:
    host = str(request.get("host") or "claude-code")
    return host, tuple(str(tool) for tool in request.get("tools") or ())


def analyze(request: dict[str, Any]) -> dict[str, Any]:
    """Execute the module; describe every definition it built and lint the top ones."""
    started = time.perf_counter()
    loaded = _load(request, reuse=False)
    host, tools = _host_options(request)
    path = str(request["path"])
    nested = _nested_ids(loaded.definitions)
    described = []
    diagnostics: list[dict[str, Any]] = []
    for names, definition in loaded.definitions:
        described.append(describe(names, definition, host, tools))
        if id(definition) not in nested:
            diagnostics.extend(lint(definition, path, str(request["text"])))
    return {
        "load": loaded.error.to_json() if loaded.error else None,
        "definitions": described,
        "diagnostics": diagnostics,
        "host": host,
        "elapsed_ms": round((time.perf_counter() - started) * 1000, 1),
    }


def _nested_ids(definitions: list[tuple[tuple[str, ...], Any]]) -> set[int]:
    """Definitions used as a sub-skill of another one (linted as part of that one)."""
    nested: set[int] = set()
    for _, definition in definitions:
        for sub in getattr(definition, "subskills", ()) or ():
            nested.add(id(sub.definition))
    return nested


def _kind(definition: Any) -> str:
    return getattr(type(definition), "kind", None) or "module"


# -- describing a definition ----------------------------------------------------------


def describe(names: tuple[str, ...], definition: Any, host: str, tools: tuple[str, ...]) -> dict:
    """A JSON summary of one definition (see the module docstring for what it holds)."""
    kind = _kind(definition)
    info: dict[str, Any] = {
        "names": list(names),
        "kind": kind,
        "name": definition.name,
        "entry": getattr(definition, "entry", None),
        "problems": list(getattr(definition, "problems", ()) or ()),
        "subskills": [sub.name for sub in getattr(definition, "subskills", ()) or ()],
        "topics": [],
        "steps": [],
        "notes": [],
    }
    if kind == "reference":
        shown = _reference_preview(definition, host, tools, info)
        info["topics"] = shown.get("topics", []) if shown else []
        return info
    info["topics"] = [
        {"name": t.name, "label": t.label} for t in getattr(definition, "topics", ()) or ()
    ]
    graph = _graph(definition, info) if kind == "skill" else None
    incoming = _incoming(definition, graph)
    for name, step in definition.steps.items():
        info["steps"].append(_describe_step(definition, step, graph, incoming.get(name, [])))
    return info


def _graph(definition: Any, info: dict[str, Any]) -> Any:
    from skillkit_core.engine.graph_source import analyze_source

    try:
        return analyze_source(definition)
    except Exception as error:  # a half-built definition may not form a graph
        info["notes"].append(f"graph analysis failed: {type(error).__name__}: {error}")
        return None


def _incoming(definition: Any, graph: Any) -> dict[str, list[str]]:
    incoming: dict[str, list[str]] = {name: [] for name in definition.steps}
    for edge in graph.edges if graph is not None else ():
        sources = incoming.get(edge.target)
        if sources is not None and edge.source not in sources:
            sources.append(edge.source)
    return incoming


def _describe_step(definition: Any, step: Any, graph: Any, incoming: list[str]) -> dict:
    dynamic = callable(step.prompt) and not isinstance(step.prompt, type)
    notes: list[str] = []
    entry: dict[str, Any] = {
        "name": step.name,
        "terminal": step.is_terminal,
        "has_prompt": step.has_prompt,
        "response": None if step.response is None else step.response.name,
        "schema": _schema(step, notes),
        "max_visits": step.max_visits,
        "on_max_visits": step.on_max_visits,
        "incoming": incoming,
        "prompt": None,
        "prompt_kind": "none" if not step.has_prompt else ("dynamic" if dynamic else "static"),
        "pending": dynamic,
        "acts": [] if dynamic else _act_pieces(step, definition.name),
        "notes": notes,
    }
    if step.has_prompt and not dynamic:
        entry["prompt"] = _static_prompt(step, definition.name, notes)
    if graph is not None:
        from skillkit_core.simulate.transitions import step_transitions

        limit = graph.visit_limit(step)
        before = graph.guaranteed_before(step.name)
        entry.update(
            transitions=[t.to_data() for t in step_transitions(step, graph)],
            guaranteed=sorted(before, key=lambda name: len(graph.guaranteed_before(name))),
            visit_limit=limit,
            visit_limit_implicit=limit is not None and step.max_visits is None,
        )
    return entry


def _schema(step: Any, notes: list[str]) -> dict[str, Any] | None:
    if step.response is None:
        return None
    try:
        return step.response.json_schema()
    except Exception as error:  # the author's type may not produce a schema
        notes.append(f"no JSON Schema for {step.response.name}: {type(error).__name__}: {error}")
        return None


def _static_prompt(step: Any, skill_name: str, notes: list[str]) -> str | None:
    """A static prompt as every host receives it (its XML does not depend on the host)."""
    from skillkit_core.prompts.assemble import render_prompt

    try:
        return render_prompt(step.prompt, None, skill_name=skill_name)
    except Exception as error:  # an invalid piece; the linter says which
        notes.append(f"prompt not rendered: {type(error).__name__}: {error}")
        return None


def _act_pieces(step: Any, skill_name: str) -> list[str | None]:
    """The XML of each ``act.*`` piece of a static prompt, in order (None where one fails)."""
    from skillkit_core.primitives.registry import render_primitive
    from skillkit_core.prompts.assemble import normalize_pieces
    from skillkit_core.prompts.segments import ActSegment

    if step.prompt is None:
        return []
    rendered: list[str | None] = []
    for piece in normalize_pieces(step.prompt):
        if isinstance(piece, ActSegment):
            try:
                rendered.append(render_primitive(piece, skill_name=skill_name))
            except Exception:  # an invalid config renders nothing; lint reports it
                rendered.append(None)
    return rendered


def _reference_preview(
    definition: Any, host: str, tools: tuple[str, ...], info: dict[str, Any]
) -> dict[str, Any] | None:
    try:
        from skillkit_core.simulate.preview import preview

        return preview(definition, host, tools).to_data()
    except Exception as error:  # topics are author callables; any of them may fail
        info["notes"].append(f"preview failed: {type(error).__name__}: {error}")
        return None


# -- rendering dynamic prompts --------------------------------------------------------


def render(request: dict[str, Any]) -> dict[str, Any]:
    """Render the dynamic prompts named in ``steps`` (``[[definition index, step], ...]``)
    for the request's host with the core's preview; per step its prompt and notes."""
    from skillkit_core.simulate.preview import preview

    loaded = _load(request)
    host, tools = _host_options(request)
    rendered = []
    for position, name in request.get("steps") or ():
        if not 0 <= position < len(loaded.definitions):
            continue
        definition = loaded.definitions[position][1]
        entry: dict[str, Any] = {"definition": position, "name": name}
        try:
            shown = preview(definition, host, tools, step=name).steps[0]
            entry.update(
                prompt=shown.prompt,
                example=shown.example.to_data() if shown.example else None,
                notes=list(shown.notes),
            )
        except Exception as error:  # the author's prompt function may raise anything
            entry.update(
                prompt=None, notes=[f"prompt not rendered: {type(error).__name__}: {error}"]
            )
        rendered.append(entry)
    return {"rendered": rendered}


# -- commands -------------------------------------------------------------------------


def lint(definition: Any, path: str, text: str) -> list[dict[str, Any]]:
    """The core's lint diagnostics for one top-level definition, as JSON."""
    try:
        from skillkit_core.lint import check_skill
    except ImportError:
        return []
    found = check_skill(definition, os.path.dirname(path), source=text)
    return [diagnostic_json(d, path) for d in found]


def diagnostic_json(diagnostic: Any, path: str) -> dict[str, Any]:
    """A ``LintDiagnostic`` as JSON (its fix included)."""
    fix = diagnostic.fix
    return {
        "rule": diagnostic.rule,
        "severity": diagnostic.severity,
        "message": diagnostic.message,
        "step": diagnostic.step,
        "file": diagnostic.file or path,
        "range": _range_json(diagnostic.range),
        "fix": None
        if fix is None
        else {
            "title": fix.title,
            "edits": [
                {"range": _range_json(edit.range), "new_text": edit.new_text, "file": edit.file}
                for edit in fix.edits
            ],
        },
    }


def _range_json(where: Any) -> list[int] | None:
    if where is None:
        return None
    return [where.line, where.column, where.end_line, where.end_column]


def _chosen(loaded: Loaded, wanted: Any, kinds: tuple[str, ...]) -> tuple[Any, str | None]:
    """The definition a command is about: named by variable or skill name, else the
    module's one top-level definition (the one no other uses as a sub-skill)."""
    candidates = [(names, d) for names, d in loaded.definitions if _kind(d) in kinds]
    if wanted:
        for names, definition in candidates:
            if wanted in names or definition.name == wanted:
                return definition, None
        return None, f"no skill named '{wanted}' in this module"
    nested = _nested_ids(loaded.definitions)
    top = [d for _, d in candidates if id(d) not in nested]
    if len(top) == 1:
        return top[0], None
    if not top:
        reason = f" ({loaded.error.message})" if loaded.error else ""
        return None, f"this module builds no skill{reason}"
    listed = ", ".join(sorted(d.name for d in top))
    return None, f"this module builds several skills ({listed}); say which one"


def preview_request(request: dict[str, Any]) -> dict[str, Any]:
    """The core's preview of one skill of the buffer, as Markdown and data."""
    from skillkit_core.simulate.markdown import preview_markdown
    from skillkit_core.simulate.preview import preview

    loaded = _load(request)
    definition, problem = _chosen(loaded, request.get("skill"), ("skill", "reference"))
    if definition is None:
        return {"error": problem}
    host, tools = _host_options(request)
    result = preview(
        definition, host, tools, False, request.get("params"), step=request.get("step")
    )
    return {
        "skill": definition.name,
        "markdown": preview_markdown(result),
        "data": result.to_data(),
    }


def simulate_request(request: dict[str, Any]) -> dict[str, Any]:
    """Run the core's simulation of one skill of the buffer; its transcript and data."""
    from skillkit_core.simulate.markdown import simulation_markdown
    from skillkit_core.simulate.simulate import simulate

    loaded = _load(request)
    definition, problem = _chosen(loaded, request.get("skill"), ("skill",))
    if definition is None:
        return {"error": problem}
    if getattr(definition, "problems", ()):
        return {"error": "the skill does not build: " + "; ".join(definition.problems)}
    host, tools = _host_options(request)
    report = simulate(
        definition,
        host,
        request.get("responses"),
        request.get("choose"),
        int(request.get("seed") or 0),
        request.get("path"),
        bool(request.get("all_paths")),
        False,
        request.get("params"),
        tools=tools,
    )
    return {
        "skill": definition.name,
        "markdown": simulation_markdown(report),
        "data": report.to_data(),
        "ok": report.ok,
    }
