"""The runtime served over MCP (official ``mcp`` SDK, low-level server, stdio).

What a client sees:

- ``instructions``: the loading-required rules, then ``<available_skills>``.
- tools ``skills_load``, ``skills_unload``, ``skills_read``, ``skills_run_script``: the
  runtime seed's ``skills.load``, ``skills.unload``, ``skills.read`` and
  ``skills.run_script`` (dots become underscores; see :mod:`skillkit_core.runtime.tools`).
- resources: ``skills://active`` (the ``<active_skills>`` block of the loaded skills), then
  every served skill's ``skill://<skill-path>/SKILL.md``, loaded or not, paged; prompts:
  ``active_skills`` and one per loaded skill, named after it. Hosts that support resources
  or prompts inject ``<active_skills>`` from these; the prompt list changes with every load
  and unload (announced with a list-changed notification).
- the MCP skills extension (``io.modelcontextprotocol/skills``, see
  :mod:`skillkit_core.runtime.skills_extension`): ``skills/list``, ``skills/get``,
  ``resources/directory/read``, and ``resources/read`` of every file of every served skill
  as ``skill://<skill-path>/<file-path>``, loaded or not (``resources/templates/list``
  gives the URI templates), declared in ``initialize`` and ``server/discover`` answers.

State is per connection: the server's lifespan runs once per connection and creates that
connection's :class:`RuntimeSession`. The registry is discovered once, at start.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import sys
import weakref
from collections.abc import AsyncIterator, Coroutine
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.lowlevel import NotificationOptions
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from skillkit_core.errors import SkillkitError, UnknownToolError
from skillkit_core.protocol.mcp_stdio import protocol_error
from skillkit_core.runtime.config import RuntimeConfig
from skillkit_core.runtime.prompt import (
    render_active_skills,
    render_available_skills,
    server_instructions,
)
from skillkit_core.runtime.registry import Registry, discover_skills
from skillkit_core.runtime.session import RuntimeSession
from skillkit_core.runtime.skills_extension import (
    ResourceNotFound,
    SkillsExtension,
    install,
    is_skill_uri,
    read_contents,
    refuse_cursor,
    resource_templates,
    resources_page,
)
from skillkit_core.runtime.tools import ToolOutcome, call_tool, tool_specs

SERVER_NAME = "skillkit-skills"
ACTIVE_URI = "skills://active"
ACTIVE_PROMPT = "active_skills"
Context = ServerRequestContext[RuntimeSession]
# How long a cancelled script run may take to clean up, and the server to see its
# processes reaped, when the client cancels a call or disconnects.
_CLEANUP_SECONDS = 10.0
# Event loop turns after the last transport was closed: the end of each pipe and the
# transport's own, each a turn.
_SETTLE_TURNS = 5


def build_server(config: RuntimeConfig, registry: Registry) -> Server[RuntimeSession]:
    """A server for ``registry``; each connection gets a fresh session."""
    available = render_available_skills(
        registry, include_location=config.include_location, budget=config.budget
    )
    specs = tool_specs(config)

    @contextlib.asynccontextmanager
    async def per_connection(_: Server[RuntimeSession]) -> AsyncIterator[RuntimeSession]:
        yield RuntimeSession(registry, max_active=config.max_active)

    async def list_tools(ctx: Context, params: Any) -> types.ListToolsResult:
        refuse_cursor(params)
        tools = [
            types.Tool(
                name=spec.name,
                title=spec.seed_name,
                description=spec.description,
                input_schema=spec.input_schema,
                output_schema=spec.output_schema,
                annotations=types.ToolAnnotations(
                    read_only_hint=spec.read_only, open_world_hint=False
                ),
            )
            for spec in specs
        ]
        return types.ListToolsResult(tools=tools)

    async def on_call_tool(
        ctx: Context, params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        session = _session(ctx)
        try:
            with protocol_error(UnknownToolError):
                outcome = await _to_the_end(
                    call_tool(session, config, params.name, params.arguments)
                )
        except SkillkitError as error:
            return _error_result(error)
        if outcome.changed_active:
            await _announce_changes(ctx)
        return _tool_result(outcome)

    active_resource = types.Resource(
        uri=ACTIVE_URI,
        name=ACTIVE_PROMPT,
        description="SKILL.md instructions of the loaded skills, in load order",
        mime_type="text/plain",
    )

    async def list_resources(
        ctx: Context, params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        cursor = params.cursor if params is not None else None
        resources, next_cursor = resources_page(
            registry, cursor, config.page_size, leading=(active_resource,)
        )
        return types.ListResourcesResult(resources=resources, next_cursor=next_cursor)

    async def list_resource_templates(
        ctx: Context, params: Any
    ) -> types.ListResourceTemplatesResult:
        refuse_cursor(params)
        return types.ListResourceTemplatesResult(resource_templates=resource_templates())

    async def read_resource(
        ctx: Context, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        session = _session(ctx)
        uri = str(params.uri)
        if is_skill_uri(uri):
            contents = read_contents(registry, uri, protocol_version=ctx.protocol_version)
            return types.ReadResourceResult(contents=[contents])
        if uri != ACTIVE_URI:
            not_found = ResourceNotFound(uri, f"no resource {uri} is served here")
            raise not_found.answer(ctx.protocol_version)
        text = render_active_skills(session.bodies())
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, mime_type="text/plain", text=text)]
        )

    async def list_prompts(ctx: Context, params: Any) -> types.ListPromptsResult:
        refuse_cursor(params)
        session = _session(ctx)
        prompts = [
            types.Prompt(
                name=ACTIVE_PROMPT,
                description="The <active_skills> block: SKILL.md of every loaded skill",
            ),
            *(types.Prompt(name=r.name, description=r.description) for r in session.active),
        ]
        return types.ListPromptsResult(prompts=prompts)

    async def get_prompt(
        ctx: Context, params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        session = _session(ctx)
        if params.name == ACTIVE_PROMPT:
            text = render_active_skills(session.bodies())
        else:
            record = next((r for r in session.active if r.name == params.name), None)
            if record is None:
                raise _mcp_error(f"no loaded skill is named '{params.name}'; load it first")
            text = render_active_skills([(record.name, record.body)])
        message = types.PromptMessage(role="user", content=types.TextContent(text=text))
        return types.GetPromptResult(description=params.name, messages=[message])

    server = Server(
        SERVER_NAME,
        version=_version(),
        instructions=server_instructions(available, max_active=config.max_active),
        lifespan=per_connection,
        on_list_tools=list_tools,
        on_call_tool=on_call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=list_resource_templates,
        on_read_resource=read_resource,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
    )
    install(server, SkillsExtension(registry, page_size=config.page_size))
    return server


def initialization_options(server: Server[RuntimeSession]) -> Any:
    """Initialization options advertising list-changed for prompts (the resource list is
    fixed: every skill, loaded or not)."""
    return server.create_initialization_options(NotificationOptions(prompts_changed=True))


async def serve_stdio(config: RuntimeConfig) -> None:
    """Discover the skills, report warnings on stderr, and serve one stdio connection.

    The connection ends when the client disconnects, even in the middle of a script run:
    the SDK cancels the calls in flight, each cancelled run kills its script (see
    :func:`_to_the_end`), and the server returns once their processes are reaped and their
    transports closed (see :class:`ScriptTransports`), without a word on stderr.
    """
    from skillkit_core.protocol.mcp_stdio import serve_stdio_connection

    registry = discover_skills(config.roots, max_depth=config.max_depth)
    for warning in registry.warnings:
        print(f"skillkit serve: warning: {warning}", file=sys.stderr)
    server = build_server(config, registry)
    cut = render_available_skills(
        registry, include_location=config.include_location, budget=config.budget
    ).cut_warning()
    if cut:
        print(f"skillkit serve: warning: {cut}", file=sys.stderr)
    print(
        f"skillkit serve: {len(registry)} skill(s) from {len(config.roots)} root(s)",
        file=sys.stderr,
    )
    transports = ScriptTransports(asyncio.get_running_loop())
    try:
        await serve_stdio_connection(server, initialization_options(server))
    finally:
        await transports.finish()


def serve(config: RuntimeConfig) -> None:
    """Run the stdio server until the client disconnects."""
    import anyio

    anyio.run(serve_stdio, config)


async def _to_the_end(call: Coroutine[Any, Any, ToolOutcome]) -> ToolOutcome:
    """Await a tool call; if the caller is cancelled (the client cancelled the request or
    went away), cancel the call once and wait for it to clean up before passing the
    cancellation on.

    The SDK cancels a request handler through an anyio cancel scope, which cancels every
    ``await`` again until the handler returns, so a script run's own cleanup (killing its
    process tree, removing its cgroup) would be cut short and run on after the server
    stopped. Running the call as a task of its own gives it one cancellation, like any
    asyncio task, and the shielded wait lets it finish (bounded by ``_CLEANUP_SECONDS``).
    """
    task = asyncio.ensure_future(call)
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        task.cancel()
        with anyio.move_on_after(_CLEANUP_SECONDS, shield=True):
            await asyncio.wait({task})
        if task.done() and not task.cancelled():
            task.exception()  # retrieved: a failure while cancelling is not news to anyone
        raise


class ScriptTransports:
    """The subprocess transports an event loop creates (script runs), so that the server
    can finish them before the loop ends.

    A script run that is cancelled kills its processes; asyncio reaps them and closes their
    transports a moment later, in the event loop, and a pipe stays open while any process
    still holds it (a leftover the script started, dying a moment later or not at all). A
    transport still open when the loop closes prints "Event loop is closed" from its
    finalizer, and a process reaped after it "Loop ... that handles pid ... is closed".
    The loop's ``subprocess_exec`` (what ``asyncio.create_subprocess_exec`` calls) is
    wrapped to note every transport it makes, weakly.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._transports: weakref.WeakSet[asyncio.SubprocessTransport] = weakref.WeakSet()
        original = loop.subprocess_exec

        async def subprocess_exec(*args: Any, **kwargs: Any) -> Any:
            transport, protocol = await original(*args, **kwargs)
            self._transports.add(transport)
            return transport, protocol

        loop.subprocess_exec = subprocess_exec  # type: ignore[method-assign]

    def running(self) -> bool:
        """Whether a process is still to be reaped."""
        return any(t.get_returncode() is None for t in list(self._transports))

    async def finish(self) -> None:
        """Wait (at most ``_CLEANUP_SECONDS``) until every process is reaped, close the
        transports still open (their pipes held by leftovers; ``close`` kills a process
        that still runs), and give the loop the turns their closing takes."""
        deadline = anyio.current_time() + _CLEANUP_SECONDS
        while self.running() and anyio.current_time() < deadline:
            await anyio.sleep(0.01)
        for transport in list(self._transports):
            if not transport.is_closing():
                transport.close()
        for _ in range(_SETTLE_TURNS):
            await anyio.sleep(0)


def _tool_result(outcome: ToolOutcome) -> types.CallToolResult:
    content: list[Any] = [types.TextContent(text=text) for text in outcome.texts]
    found = outcome.file
    if found is not None and outcome.file_uri is not None:
        content.append(
            types.EmbeddedResource(
                resource=types.BlobResourceContents(
                    # As skills/list and resources/read name it (the skill's path from
                    # its root, each segment percent-encoded), not skill://<name>/<path>.
                    uri=outcome.file_uri,
                    mime_type=found.mime_type,
                    blob=base64.b64encode(found.data or b"").decode("ascii"),
                )
            )
        )
    return types.CallToolResult(content=content, structured_content=outcome.structured)


def _error_result(error: SkillkitError) -> types.CallToolResult:
    """A refusal, as text only: structured content would have to fit the tool's output
    schema (tools.mdx, Output Schema: "MUST provide structured results that conform"),
    and the TypeScript SDK's client (1.32, also in Gemini CLI) checks it even on errors,
    turning a refusal the model should read into an exception."""
    return types.CallToolResult(
        content=[types.TextContent(text=f"{error.code}: {error.message}")],
        is_error=True,
    )


def _session(ctx: Context) -> RuntimeSession:
    """The connection's session, or a fresh one for a request of a stateless protocol
    version (2026-07-28: prompts/list "MUST NOT vary per-connection or as a side effect
    of other requests on the connection"; server/prompts, List)."""
    session: RuntimeSession = ctx.lifespan_context
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        return session.for_one_request()
    return session


async def _announce_changes(ctx: Context) -> None:
    """Tell the client the prompt list changed (handshake-era clients only: 2026-07-28
    clients receive this only through subscriptions, which we do not serve). The resource
    list does not change: it holds every skill, loaded or not."""
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        return
    await ctx.session.send_prompt_list_changed()


def _mcp_error(message: str) -> Exception:
    from mcp.shared.exceptions import MCPError

    return MCPError(code=types.INVALID_PARAMS, message=message)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("pyskillkit")
    except PackageNotFoundError:
        return "0"
