"""The semantic layer, server side: when to ask the worker, what to keep, what to drop.

A document is analysed a moment after its last edit (at once when opened), one analysis
at a time, never on the request path. Answers are cached by a hash of everything that
determines them (path, text, host, tools), so undoing an edit or reopening a file costs
nothing, and a module that hangs is not run again until its text changes. An answer is
attached to the document only if the document is still at the version it was computed
for; otherwise it is dropped (the next analysis is already scheduled).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from typing import Any

from skill_lsp.index import DocumentKind, Snapshot
from skillkit_core.lint.diagnostic import Fix, LintDiagnostic, SourceRange, TextEdit

EDIT_DELAY = 0.35
# Dynamic prompts rendered per worker request (each may cost up to a second).
RENDER_CHUNK = 4
CACHE_SIZE = 128
LOAD_ERROR = "load-error"
BUILD_ERROR = "build-error"


@dataclass(frozen=True)
class SemanticResult:
    """What the worker said about one text, plus the diagnostics made from it.

    ``problem`` is set when the worker itself failed (timeout, crash); ``load`` when the
    module raised while executing; ``definitions`` are the worker's JSON summaries.
    """

    version: int
    host: str
    definitions: tuple[dict[str, Any], ...] = ()
    diagnostics: tuple[LintDiagnostic, ...] = ()
    load: dict[str, Any] | None = None
    problem: str | None = None
    elapsed_ms: float | None = None
    disabled: bool = False
    definitions_from: int | None = None
    """When set, ``definitions`` are those of this earlier version: this version's module
    stopped before building anything (a half-typed call is a syntax error), so hovers
    keep showing the last skill that did build."""

    def keeping(self, earlier: SemanticResult | None) -> SemanticResult:
        """This result, with ``earlier``'s definitions when it has none of its own."""
        if self.definitions or self.disabled or earlier is None or not earlier.definitions:
            return self
        if earlier.host != self.host:
            return self
        source = (
            earlier.definitions_from if earlier.definitions_from is not None else earlier.version
        )
        return replace(self, definitions=earlier.definitions, definitions_from=source)

    def definition_for(self, chain: Any) -> dict[str, Any] | None:
        """The worker's summary of the definition a source chain builds."""
        names = set(chain.names or ())
        if chain.var:
            names.add(chain.var)
        literal = chain.name.value if chain.name is not None else None
        by_name = None
        for definition in self.definitions:
            if names & set(definition.get("names", ())):
                return definition
            if literal and definition.get("name") == literal and by_name is None:
                by_name = definition
        return by_name

    def step_info(self, chain: Any, step: str) -> dict[str, Any] | None:
        """The worker's facts about ``step`` of ``chain`` (prompt, schema, graph)."""
        definition = self.definition_for(chain)
        if definition is None:
            return None
        return next((s for s in definition.get("steps", ()) if s.get("name") == step), None)


@dataclass
class _Cached:
    payload: dict[str, Any] | None
    problem: str | None = None


@dataclass
class _Pending:
    handle: asyncio.TimerHandle | None = None
    tasks: set[asyncio.Task[Any]] = field(default_factory=set)


def looks_like_skill(text: str) -> bool:
    """Whether a Python text uses skillkit (only such modules are ever executed)."""
    return "skillkit" in text


def content_key(path: str | None, text: str, host: str, tools: tuple[str, ...]) -> str:
    """The cache key: everything an analysis depends on (besides files on disk)."""
    digest = hashlib.sha256()
    for part in (path or "", host, ",".join(tools), text):
        digest.update(part.encode("utf-8", "surrogatepass"))
        digest.update(b"\0")
    return digest.hexdigest()


class SemanticLayer:
    """Schedules analyses of open Python documents and keeps their results."""

    def __init__(self, server: Any) -> None:
        self.server = server
        self._manager: Any = None
        self._cache: OrderedDict[str, _Cached] = OrderedDict()
        self._pending: dict[str, _Pending] = {}
        self._serial = asyncio.Lock()
        self.runs = 0
        self._background: set[asyncio.Task[Any]] = set()

    # -- settings and lifecycle -------------------------------------------------------

    @property
    def enabled(self) -> bool:
        """Whether author code may run (``skillkit.executeCode`` and a trusted workspace)."""
        return self.server.settings.semantic_enabled

    @property
    def manager(self) -> Any:
        """The worker manager (created on first use)."""
        if self._manager is None:
            from skill_lsp.log import log_message
            from skill_lsp.worker.manager import WorkerManager

            root = self.server.roots[0] if self.server.roots else None
            self._manager = WorkerManager(
                cwd=root,
                log=lambda m: log_message(self.server, m),
                memory_limit=lambda: self.server.settings.worker_memory_limit,
            )
        return self._manager

    def start_soon(self) -> None:
        """Start the worker in the background (when enabled)."""
        if self.enabled:
            task = asyncio.ensure_future(self.start())
            self._background.add(task)
            task.add_done_callback(self._background.discard)

    async def start(self) -> None:
        """Start the worker ahead of the first analysis (when enabled)."""
        if self.enabled:
            with contextlib.suppress(Exception):
                await self.manager.start()

    async def shutdown(self) -> None:
        """Stop scheduled work and the worker."""
        for pending in self._pending.values():
            if pending.handle is not None:
                pending.handle.cancel()
        self._pending.clear()
        if self._manager is not None:
            await self._manager.stop()

    async def restart(self) -> None:
        """Kill the worker, forget cached answers, analyse every open document again."""
        self._cache.clear()
        if self._manager is not None:
            await self._manager.restart()
        self.reschedule_all()

    def clear_cache(self) -> None:
        """Forget every cached answer (files on disk changed)."""
        self._cache.clear()

    def reschedule_all(self) -> None:
        """Analyse every open Python document again (after a settings change)."""
        for snapshot in self.server.documents.all():
            if snapshot.kind == DocumentKind.PYTHON:
                self.schedule(snapshot.uri, 0)

    async def apply_settings(self) -> None:
        """React to changed settings: stop everything when code may no longer run."""
        if not self.enabled:
            for pending in self._pending.values():
                if pending.handle is not None:
                    pending.handle.cancel()
            if self._manager is not None:
                await self._manager.stop()
            for snapshot in self.server.documents.all():
                self._deliver(snapshot, _disabled(snapshot))
            return
        self.reschedule_all()

    # -- scheduling -------------------------------------------------------------------

    def schedule(self, uri: str, delay: float = EDIT_DELAY) -> None:
        """Analyse ``uri`` after ``delay`` seconds unless it changes again before."""
        pending = self._pending.setdefault(uri, _Pending())
        if pending.handle is not None:
            pending.handle.cancel()
        loop = asyncio.get_running_loop()
        pending.handle = loop.call_later(delay, self._start_task, uri)

    def forget(self, uri: str) -> None:
        """The document closed: cancel its pending analysis."""
        pending = self._pending.pop(uri, None)
        if pending is not None and pending.handle is not None:
            pending.handle.cancel()

    def _start_task(self, uri: str) -> None:
        pending = self._pending.setdefault(uri, _Pending())
        pending.handle = None
        snapshot = self.server.documents.get(uri)
        if snapshot is None or snapshot.kind != DocumentKind.PYTHON:
            return
        task = asyncio.ensure_future(self._analyze_document(uri, snapshot.version))
        pending.tasks.add(task)
        task.add_done_callback(pending.tasks.discard)

    async def _analyze_document(self, uri: str, version: int) -> None:
        snapshot = self.server.documents.get(uri)
        if not self.enabled or (snapshot is not None and not looks_like_skill(snapshot.text)):
            # Code that does not use skillkit is never executed (it may do anything).
            if snapshot is not None and snapshot.version == version:
                self._deliver(snapshot, _disabled(snapshot))
            return
        async with self._serial:
            snapshot = self.server.documents.get(uri)
            if snapshot is None or snapshot.version != version:
                return  # superseded while waiting; the newer version is scheduled
            key, cached = await self._analysis_of(snapshot)
        current = self.server.documents.get(uri)
        if current is None or current.version != version:
            return  # stale: dropped, never published
        result = build_result(current, cached, self.server.settings.host)
        self._deliver(current, result.keeping(current.semantic))
        await self._render_pending(uri, version, key, cached)

    async def _render_pending(self, uri: str, version: int, key: str, cached: _Cached) -> None:
        """Render the dynamic prompts a few at a time, while the document stays put."""
        from skill_lsp.worker.manager import WorkerError, WorkerTimeout

        host = self.server.settings.host
        while cached.payload is not None:
            chunk = _pending_steps(cached.payload)[:RENDER_CHUNK]
            if not chunk:
                return
            async with self._serial:
                snapshot = self.server.documents.get(uri)
                if (
                    snapshot is None
                    or snapshot.version != version
                    or host != self.server.settings.host
                ):
                    return
                arguments = {**self._arguments(snapshot.path, snapshot.text), "key": key}
                arguments["steps"] = chunk
                try:
                    answer = await self.manager.call(
                        "render", arguments, self.server.settings.worker_timeout
                    )
                    rendered = answer.get("rendered", []) if isinstance(answer, dict) else []
                except WorkerTimeout:
                    rendered = _not_rendered(chunk, "rendering timed out")
                except WorkerError as error:
                    # The worker died rendering one of them (os._exit in a prompt, say):
                    # the steps say so, where they said "Rendering…" for good, and the
                    # next chunk gets a fresh worker.
                    rendered = _not_rendered(chunk, f"rendering failed: {error}")
            cached.payload = _with_rendered(cached.payload, chunk, rendered)
            current = self.server.documents.get(uri)
            if current is None or current.version != version:
                return
            self._deliver(current, build_result(current, cached, host), publish=False)

    def _deliver(self, snapshot: Snapshot, result: SemanticResult, *, publish: bool = True) -> None:
        accepted = self.server.documents.attach_semantic(
            snapshot.uri, snapshot.version, result, result.diagnostics
        )
        if accepted and publish:
            self.server.diagnostics.semantic_updated(snapshot.uri)
            self.server.diagnostics.related_soon(snapshot, list(result.diagnostics))

    # -- running ----------------------------------------------------------------------

    async def _analysis_of(self, snapshot: Snapshot) -> tuple[str, _Cached]:
        settings = self.server.settings
        key = content_key(snapshot.path, snapshot.text, settings.host, settings.tools)
        cached = self._cache.get(key)
        if cached is None:
            cached = await self._run_analysis(snapshot.path, snapshot.text, key)
            self._remember(key, cached)
        else:
            self._cache.move_to_end(key)
        return key, cached

    async def analyze_file(self, path: str, text: str) -> _Cached:
        """Analyse a file that is not open (workspace diagnostics), with the same cache."""
        settings = self.server.settings
        key = content_key(path, text, settings.host, settings.tools)
        cached = self._cache.get(key)
        if cached is None:
            async with self._serial:
                cached = await self._run_analysis(path, text, key)
            self._remember(key, cached)
        return cached

    def _remember(self, key: str, cached: _Cached) -> None:
        self._cache[key] = cached
        while len(self._cache) > CACHE_SIZE:
            self._cache.popitem(last=False)

    def _arguments(self, path: str | None, text: str) -> dict[str, Any]:
        settings = self.server.settings
        return {
            "path": path or "<unsaved>.py",
            "text": text,
            "root": self.server.roots[0] if self.server.roots else None,
            "host": settings.host,
            "tools": list(settings.tools),
        }

    async def _run_analysis(self, path: str | None, text: str, key: str) -> _Cached:
        from skill_lsp.worker.manager import WorkerError, WorkerTimeout

        settings = self.server.settings
        arguments = {**self._arguments(path, text), "key": key}
        self.runs += 1
        try:
            try:
                payload = await self.manager.call("analyze", arguments, settings.worker_timeout)
            except WorkerTimeout as late:
                if late.fresh:
                    raise
                # The worker had run other modules: a thread one of them left running
                # may have taken the time (the verdict was cached against this text).
                # Once more, in the fresh worker the time-out left.
                payload = await self.manager.call("analyze", arguments, settings.worker_timeout)
        except WorkerTimeout:
            return _Cached(
                None,
                f"importing this module did not finish within {settings.worker_timeout:g} s "
                "(an endless loop at import time?); the analysis worker was stopped and "
                "restarted, and the module will be analysed again after the next edit",
            )
        except WorkerError as error:
            return _Cached(
                None,
                f"the analysis worker failed on this module ({error}); it was restarted, "
                "and the module will be analysed again after the next edit",
            )
        if not isinstance(payload, dict):
            return _Cached(None, "the analysis worker gave no answer")
        if settings.trace != "off":
            from skill_lsp.log import log_message

            found = len(payload.get("diagnostics", ()))
            log_message(
                self.server,
                f"analysed {path} in {payload.get('elapsed_ms')} ms: "
                f"{len(payload.get('definitions', ()))} definitions, {found} findings",
            )
        return _Cached(payload)

    async def run_command(self, op: str, arguments: dict[str, Any], timeout: float) -> Any:
        """Run a command's work (simulate, preview) in the worker, after queued analyses."""
        async with self._serial:
            return await self.manager.call(op, arguments, timeout)


def _not_rendered(chunk: list[Any], note: str) -> list[dict[str, Any]]:
    """The answer for steps whose prompts could not be rendered, and why."""
    return [{"definition": d, "name": n, "prompt": None, "notes": [note]} for d, n in chunk]


def _pending_steps(payload: dict[str, Any]) -> list[list[Any]]:
    """``[definition index, step name]`` of every dynamic prompt not rendered yet."""
    found = []
    for position, definition in enumerate(payload.get("definitions", ())):
        for step in definition.get("steps", ()):
            if step.get("pending"):
                found.append([position, step.get("name")])
    return found


def _with_rendered(
    payload: dict[str, Any], chunk: list[list[Any]], rendered: list[dict[str, Any]]
) -> dict[str, Any]:
    """A copy of ``payload`` with ``rendered`` prompts filled in and ``chunk`` no longer
    pending (results already handed out keep the payload they were made from)."""
    answers = {(r.get("definition"), r.get("name")): r for r in rendered if isinstance(r, dict)}
    done = {(d, n) for d, n in chunk}
    definitions = list(payload.get("definitions", ()))
    for position, definition in enumerate(definitions):
        if not any(d == position for d, _ in done):
            continue
        steps = []
        for step in definition.get("steps", ()):
            key = (position, step.get("name"))
            if key in done:
                answer = answers.get(key, {})
                step = {
                    **step,
                    "pending": False,
                    "prompt": answer.get("prompt"),
                    "example": answer.get("example"),
                    "notes": [*step.get("notes", ()), *answer.get("notes", ())],
                }
            steps.append(step)
        definitions[position] = {**definition, "steps": steps}
    return {**payload, "definitions": definitions}


def _disabled(snapshot: Snapshot) -> SemanticResult:
    return SemanticResult(version=snapshot.version, host="", disabled=True)


# -- turning the worker's JSON into diagnostics ---------------------------------------


def build_result(snapshot: Snapshot, cached: _Cached, host: str) -> SemanticResult:
    """The :class:`SemanticResult` of ``cached`` for ``snapshot``'s text."""
    if cached.payload is None:
        problem = cached.problem or "the analysis failed"
        return SemanticResult(
            version=snapshot.version,
            host=host,
            diagnostics=(_problem_diagnostic(snapshot, problem),),
            problem=problem,
        )
    payload = cached.payload
    definitions = tuple(d for d in payload.get("definitions", ()) if isinstance(d, dict))
    diagnostics: list[LintDiagnostic] = []
    load = payload.get("load")
    if isinstance(load, dict):
        diagnostics.append(_load_diagnostic(snapshot, load))
    for definition in definitions:
        diagnostics.extend(_build_diagnostics(snapshot, definition))
    for item in payload.get("diagnostics", ()):
        found = diagnostic_from_json(item, snapshot.path)
        if found is not None:
            diagnostics.append(found)
    return SemanticResult(
        version=snapshot.version,
        host=str(payload.get("host") or host),
        definitions=definitions,
        diagnostics=tuple(_unique(diagnostics)),
        load=load if isinstance(load, dict) else None,
        elapsed_ms=payload.get("elapsed_ms"),
    )


def _unique(diagnostics: list[LintDiagnostic]) -> list[LintDiagnostic]:
    seen: set[tuple[Any, ...]] = set()
    kept = []
    for diagnostic in diagnostics:
        key = (diagnostic.rule, diagnostic.range, diagnostic.message, diagnostic.file)
        if key not in seen:
            seen.add(key)
            kept.append(diagnostic)
    return kept


def _line_span(snapshot: Snapshot, line: int, column: int | None = None) -> SourceRange:
    line = max(0, min(line, len(snapshot.lines) - 1))
    text = snapshot.lines[line]
    start = len(text) - len(text.lstrip())
    if column is not None and 0 <= column < len(text):
        start = column
    end = len(text.rstrip())
    if end <= start:
        end = min(len(text), start + 1)
    return SourceRange(line, start, line, end)


def _head_range(snapshot: Snapshot) -> SourceRange:
    """Where a whole-module finding goes: the first builder call, else line one."""
    if snapshot.kind == DocumentKind.PYTHON:
        chains = snapshot.index.chains
        if chains:
            where = chains[0].range
            return SourceRange(
                where.line, where.column, where.line, len(snapshot.lines[where.line])
            )
    return _line_span(snapshot, 0)


def _problem_diagnostic(snapshot: Snapshot, problem: str) -> LintDiagnostic:
    return LintDiagnostic(
        rule=LOAD_ERROR,
        severity="error",
        message=f"skillkit could not analyse this module: {problem}",
        file=snapshot.path,
        range=_head_range(snapshot),
    )


def _load_diagnostic(snapshot: Snapshot, load: dict[str, Any]) -> LintDiagnostic:
    line = load.get("line")
    column = load.get("column")
    if isinstance(line, int):
        where = _line_span(snapshot, line, column if isinstance(column, int) else None)
    else:
        where = _head_range(snapshot)
    message = str(load.get("message") or "the module failed")
    if load.get("kind") != "exit":
        message = f"importing this module failed: {message}"
    return LintDiagnostic(
        rule=LOAD_ERROR,
        severity="error",
        message=f"{message} (analysis uses the definitions built before this point)",
        file=snapshot.path,
        range=where,
    )


def _build_diagnostics(snapshot: Snapshot, definition: dict[str, Any]) -> list[LintDiagnostic]:
    problems = [p for p in definition.get("problems", ()) if isinstance(p, str)]
    if not problems:
        return []
    where = _build_call_range(snapshot, definition)
    return [
        LintDiagnostic(
            rule=BUILD_ERROR,
            severity="error",
            message=f".build() would fail: {problem}",
            file=snapshot.path,
            range=where,
        )
        for problem in problems
    ]


def _build_call_range(snapshot: Snapshot, definition: dict[str, Any]) -> SourceRange:
    names = set(definition.get("names", ()))
    for chain in snapshot.index.chains:
        if names & set(chain.names or ()) or (chain.var in names):
            build = next((c for c in chain.calls if c.method == "build"), None)
            return build.method_range if build is not None else chain.range
    return _head_range(snapshot)


def _range(value: Any) -> SourceRange | None:
    if isinstance(value, list) and len(value) == 4 and all(isinstance(v, int) for v in value):
        return SourceRange(*value)
    return None


def diagnostic_from_json(item: Any, path: str | None) -> LintDiagnostic | None:
    """A worker diagnostic back as a ``LintDiagnostic`` (None when malformed).

    Findings about this file keep ``file=None`` edits so that they move with edits.
    """
    if not isinstance(item, dict) or not isinstance(item.get("rule"), str):
        return None
    fix = _fix_from_json(item.get("fix"), path)
    raw_suggestions = item.get("suggestions")
    suggestions = [
        _fix_from_json(raw, path)
        for raw in (raw_suggestions if isinstance(raw_suggestions, list) else ())
    ]
    severity = item.get("severity")
    return LintDiagnostic(
        rule=item["rule"],
        severity=severity if severity in ("error", "warning", "info") else "warning",
        message=str(item.get("message", "")),
        step=item.get("step") if isinstance(item.get("step"), str) else None,
        file=item.get("file") if isinstance(item.get("file"), str) else path,
        range=_range(item.get("range")),
        fix=fix,
        suggestions=tuple(f for f in suggestions if f is not None),
    )


def _fix_from_json(raw_fix: Any, path: str | None) -> Fix | None:
    """A worker's fix (or suggestion) back as a ``Fix``; None when malformed or empty."""
    if not isinstance(raw_fix, dict):
        return None
    edits = []
    for edit in raw_fix.get("edits", ()):
        where = _range(edit.get("range")) if isinstance(edit, dict) else None
        if where is None:
            return None
        file = edit.get("file")
        edits.append(
            TextEdit(where, str(edit.get("new_text", "")), None if file in (None, path) else file)
        )
    renames = tuple(
        (pair[0], pair[1])
        for pair in raw_fix.get("renames", ())
        if isinstance(pair, list) and len(pair) == 2 and all(isinstance(p, str) for p in pair)
    )
    if not edits and not renames:
        return None
    return Fix(str(raw_fix.get("title") or "Fix"), tuple(edits), renames=renames)
