"""The MCP tools of a skill, independent of the MCP library: specs, calls, instructions.

A workflow skill has ``start {params?}`` and ``advance {session, step, output}``, plus
``topics {}`` and ``topic {name}`` when it has topics (a composite's ``topic`` answers
``{name, content}`` as JSON, a reference skill's the content as text). Runs live in
memory under 8-hex-character session ids; prompt-less steps auto-advance inside the
engine; a finished run is removed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from skillkit_core.definitions import ReferenceDefinition, SkillDefinition
from skillkit_core.errors import SessionError, SkillkitError, UnknownToolError, UsageError
from skillkit_core.hosts import Handshake
from skillkit_core.protocol.output import json_line

MCP_SESSION_ID = re.compile(r"[0-9a-f]{8}")
Definition = SkillDefinition | ReferenceDefinition


@dataclass(frozen=True)
class ToolSpec:
    """One tool as listed to the client."""

    name: str
    description: str
    input_schema: dict[str, Any]


@dataclass(frozen=True)
class ToolAnswer:
    """A tool result: one text item, flagged as an error or not."""

    text: str
    is_error: bool = False


MAX_RUNS = 1000
"""Open runs one server keeps; beyond, the one used least recently is dropped (a client
that starts runs and never finishes them grew the process without bound)."""


class SkillTools:
    """The tools of one skill for one server process."""

    def __init__(self, definition: Definition, handshake: Handshake) -> None:
        self.definition = definition
        self.handshake = handshake
        self.runs: dict[str, Any] = {}
        self._locks: dict[str, Any] = {}

    # -- listing ------------------------------------------------------------------------

    def specs(self) -> list[ToolSpec]:
        """The tools this skill offers."""
        d = self.definition
        specs: list[ToolSpec] = []
        if isinstance(d, SkillDefinition):
            specs += [self._start_spec(d), _advance_spec(d)]
        if d.topics:
            specs.append(
                ToolSpec(
                    "topics",
                    f"List the topics of {d.name}, one 'name: label' line each.",
                    {"type": "object", "properties": {}, "additionalProperties": False},
                )
            )
            specs.append(self._topic_spec(d))
        return specs

    def _start_spec(self, d: SkillDefinition) -> ToolSpec:
        properties: dict[str, Any] = {}
        schema: dict[str, Any] = {"type": "object", "properties": properties}
        params = d.params.json_schema() if d.params is not None else {"type": "object"}
        params = dict(params)
        defs = params.pop("$defs", None)
        if defs:
            schema["$defs"] = defs  # references stay "#/$defs/…" from the tool's root
        properties["params"] = {**params, "description": "The skill's params (see its schema)."}
        schema["additionalProperties"] = False
        return ToolSpec(
            "start",
            f"Start a new run of {d.name}"
            + (f" ({d.description})" if d.description else "")
            + ". Returns JSON {session, status, step, prompt, schema, preamble} for the first "
            "step, or {session, status: 'done', finalOutput}.",
            schema,
        )

    def _topic_spec(self, d: Definition) -> ToolSpec:
        listing = "; ".join(f"{t.name}: {t.label}" for t in d.topics)
        returns = (
            "Returns JSON {name, content}."
            if isinstance(d, SkillDefinition)
            else "Returns the topic's content as text."
        )
        return ToolSpec(
            "topic",
            f"Read one topic of {d.name}. Topics: {listing}. {returns}",
            {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "enum": [t.name for t in d.topics]},
                },
                "required": ["name"],
                "additionalProperties": False,
            },
        )

    # -- calling ------------------------------------------------------------------------

    async def call(self, name: str, arguments: dict[str, Any] | None) -> ToolAnswer:
        """Run tool ``name``; refused calls become ``is_error`` answers, never exceptions.
        Plain ``def`` actions run in worker threads (:func:`in_worker_thread`)."""
        from skillkit_core.engine.actions import plain_action_runner

        token = plain_action_runner.set(in_worker_thread)
        try:
            return await self._call(name, dict(arguments or {}))
        finally:
            plain_action_runner.reset(token)

    async def _call(self, name: str, args: dict[str, Any]) -> ToolAnswer:
        known = [spec.name for spec in self.specs()]
        if name not in known:
            raise UnknownToolError(f"Unknown tool: {name} (this server has {', '.join(known)})")
        try:
            if name == "start":
                return await self._start(args)
            if name == "advance":
                return await self._advance(args)
            if name == "topics":
                _only(args, (), name)
                from skillkit_core.protocol.topics import topic_lines

                return ToolAnswer(topic_lines(self.definition))
            return self._topic(args)
        except SkillkitError as error:
            return ToolAnswer(f"{error.code}: {error.message}", is_error=True)

    async def _start(self, args: dict[str, Any]) -> ToolAnswer:
        from skillkit_core.protocol.engines import open_engine, workflow_of

        _only(args, ("params",), "start")
        params = args.get("params")
        if params is not None and not isinstance(params, dict):
            raise UsageError("start: params must be an object")
        engine = open_engine(workflow_of(self.definition), self.handshake, params)
        session = self._new_id()
        result = await engine.start()
        return self._answer(session, engine, result.to_wire(), keep_on_error=False)

    async def _advance(self, args: dict[str, Any]) -> ToolAnswer:
        import anyio

        _only(args, ("session", "step", "output"), "advance")
        missing = [key for key in ("session", "step", "output") if key not in args]
        if missing:
            raise UsageError(f"advance needs {', '.join(missing)}")
        session, step = args["session"], args["step"]
        if not isinstance(session, str) or MCP_SESSION_ID.fullmatch(session) is None:
            raise SessionError(f"malformed session id {session!r}: expected 8 hex characters")
        if not isinstance(step, str):
            raise UsageError("advance: step must be a string such as the prompt's step")
        lock = self._locks.setdefault(session, anyio.Lock())
        async with lock:
            engine = self.runs.get(session)
            if engine is None:
                self._locks.pop(session, None)
                raise SessionError(
                    f"no active session '{session}': it finished (finished sessions are "
                    "removed), was never started here, or was dropped as the least "
                    f"recently used of more than {MAX_RUNS} open runs; call start for a "
                    "new run"
                )
            result = await engine.advance(step, args["output"])
            return self._answer(session, engine, result.to_wire(), keep_on_error=True)

    def _topic(self, args: dict[str, Any]) -> ToolAnswer:
        from skillkit_core.protocol.topics import read_topic

        _only(args, ("name",), "topic")
        name = args.get("name")
        if not isinstance(name, str):
            raise UsageError("topic needs a name (a string)")
        content = read_topic(self.definition, name, self.handshake)
        if isinstance(self.definition, SkillDefinition):
            return ToolAnswer(json_line({"name": name, "content": content}))
        return ToolAnswer(content)

    def _answer(
        self, session: str, engine: Any, wire: dict[str, Any], *, keep_on_error: bool
    ) -> ToolAnswer:
        kind = wire["kind"]
        if kind == "prompt":
            self._keep(session, engine)
            payload = {
                "session": session,
                "status": "prompt",
                "step": wire["step"],
                "prompt": wire["prompt"],
                "schema": wire["schema"],
            }
            if "preamble" in wire:
                payload["preamble"] = wire["preamble"]
            return ToolAnswer(json_line(payload))
        if kind == "done":
            self.runs.pop(session, None)
            self._locks.pop(session, None)
            return ToolAnswer(
                json_line(
                    {"session": session, "status": "done", "finalOutput": wire["finalOutput"]}
                )
            )
        if not keep_on_error:
            self.runs.pop(session, None)  # a run that could not start is not kept
        payload = {
            "session": session,
            "status": "error",
            "step": wire["step"],
            "message": wire["message"],
            "retry": wire["retry"],
        }
        return ToolAnswer(json_line(payload), is_error=wire["error"] != "validation")

    def _keep(self, session: str, engine: Any) -> None:
        """Keep ``session``'s run as the most recently used, dropping the least recently
        used one beyond :data:`MAX_RUNS`."""
        self.runs.pop(session, None)
        self.runs[session] = engine
        while len(self.runs) > MAX_RUNS:
            oldest = next(iter(self.runs))
            del self.runs[oldest]
            self._locks.pop(oldest, None)

    def _new_id(self) -> str:
        import secrets

        while True:
            candidate = secrets.token_hex(4)
            if candidate not in self.runs:
                return candidate

    # -- instructions -------------------------------------------------------------------

    def instructions(self) -> str:
        """How to use this server, for the client's ``instructions``."""
        d = self.definition
        about = f" ({d.description.strip()})" if d.description else ""
        if isinstance(d, ReferenceDefinition):
            return (
                f"This server serves the reference skill {d.name}{about}. Call topics to list "
                "its topics and topic with a name to read one; read only what the task needs.\n"
                + _topic_listing(d)
            )
        lines = [
            f"This server runs the skill {d.name}{about} as a workflow, one tool call per step.",
            "1. Call start (with params if the skill takes them). The answer is JSON with a "
            "session id and a status.",
            '2. While status is "prompt": the first prompt carries a preamble; read it once, '
            "it maps the XML tags in prompts to your tools. Do what prompt asks, then call "
            "advance with the session, the step, and your output as an object matching schema.",
            '3. If status is "error" and retry is true, correct your output and advance the '
            "same step again.",
            '4. Stop when status is "done"; finalOutput is the result. The session is then closed.',
            "",
            "Steps: " + _steps(d),
        ]
        for sub in d.subskills:
            lines.append(
                f"Sub-skill {sub.name} (steps named {sub.name}/STEP): {_steps(sub.definition)}"
            )
        if d.topics:
            lines += ["", "Call topic with a name to read a topic.", _topic_listing(d)]
        return "\n".join(lines)


def _advance_spec(d: SkillDefinition) -> ToolSpec:
    output = {**_output_types(d), "description": "Your answer, matching the step's schema."}
    return ToolSpec(
        "advance",
        "Submit your output for the current step of a run. Returns the next prompt, the "
        "done result, or an error (retry true: fix the output and advance the same step).",
        {
            "type": "object",
            "properties": {
                "session": {"type": "string", "description": "The session id start returned."},
                "step": {"type": "string", "description": "The step you are answering."},
                "output": output,
            },
            "required": ["session", "step", "output"],
            "additionalProperties": False,
        },
    )


_JSON_TYPES = ("object", "array", "string", "number", "integer", "boolean", "null")


def _output_types(d: SkillDefinition) -> dict[str, Any]:
    """``{"type": [...]}`` naming every JSON type some step's response accepts, or ``{}``
    (anything) when a step takes any output or its schema's type cannot be read off the
    top. A client that checks arguments must never refuse an answer the engine takes."""
    found: set[str] = set()
    definitions = [d, *(sub.definition for sub in d.subskills)]
    for step in (s for definition in definitions for s in definition.steps.values()):
        if not step.has_prompt:
            continue
        if step.response is None:
            return {}
        declared = step.response.json_schema().get("type")
        if isinstance(declared, str):
            declared = [declared]
        if not isinstance(declared, list) or not set(declared) <= set(_JSON_TYPES):
            return {}
        found.update(declared)
    if "number" in found:
        found.discard("integer")  # every integer is a number
    ordered = [kind for kind in _JSON_TYPES if kind in found]
    if not ordered:
        return {}
    return {"type": ordered[0] if len(ordered) == 1 else ordered}


async def in_worker_thread(run: Any, ctx: Any) -> Any:
    """``run(ctx)`` in a worker thread, as the SDK's own server runs a plain ``def`` tool
    (``mcp.server.mcpserver.utilities.func_metadata``): the event loop meanwhile answers
    other requests, the cancellation of this one among them. A cancellation sets the
    action's ``ctx.signal``; since a thread cannot be stopped, it is then waited for
    before the cancellation goes on, so a run never has two of its actions at once."""
    import anyio
    import anyio.to_thread

    finished = False
    # (raised?, the value or the error), taken out of the task group: what leaves a task
    # group's body comes out wrapped in an ExceptionGroup
    outcome: list[tuple[bool, Any]] = []

    async def signal_when_cancelled() -> None:
        try:
            await anyio.sleep_forever()
        finally:
            if not finished:
                ctx.signal.cancel("the request running the action was cancelled")

    async with anyio.create_task_group() as group:
        group.start_soon(signal_when_cancelled)
        try:
            with anyio.CancelScope(shield=True):
                outcome.append((False, await anyio.to_thread.run_sync(run, ctx)))
        except Exception as error:
            outcome.append((True, error))
        finally:
            finished = True
            group.cancel_scope.cancel()
    raised, value = outcome[0]
    if raised:
        raise value
    return value


def _only(args: dict[str, Any], allowed: tuple[str, ...], tool: str) -> None:
    extra = sorted(set(args) - set(allowed))
    if extra:
        raise UsageError(
            f"{tool} does not take {', '.join(extra)} (it takes: {', '.join(allowed) or 'nothing'})"
        )


def _steps(definition: SkillDefinition) -> str:
    return ", ".join(
        name if step.has_prompt else f"{name} (automatic)"
        for name, step in definition.steps.items()
    )


def _topic_listing(definition: Definition) -> str:
    return "Topics:\n" + "".join(f"- {t.name}: {t.label}\n" for t in definition.topics)
