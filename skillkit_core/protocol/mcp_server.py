"""``scripts/run mcp``: the skill's tools over MCP on stdio (official ``mcp`` SDK).

Thin: the tools themselves live in :mod:`skillkit_core.protocol.mcp_tools`. This module
is imported only for the ``mcp`` subcommand, so the per-step CLI never loads the SDK.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
from mcp.server import Server, ServerRequestContext

from skillkit_core.definitions import ReferenceDefinition, SkillDefinition
from skillkit_core.errors import UnknownToolError
from skillkit_core.hosts import Handshake
from skillkit_core.protocol.mcp_tools import SkillTools


def build_server(
    tools: SkillTools,
    skill_dir: str | None = None,
    skill_record: dict[str, Any] | None = None,
) -> Server[Any]:
    """An MCP server named after the skill, serving ``tools``, and, for a built skill whose
    folder is ``skill_dir`` and whose build stored ``skill_record`` (its SKILL.md's record,
    :mod:`skillkit_core.build.record_data`), the MCP skills extension for that folder (see
    :func:`_install_skills_extension`)."""
    definition = tools.definition

    async def list_tools(ctx: ServerRequestContext[Any], params: Any) -> types.ListToolsResult:
        from skillkit_core.runtime.skills_extension import refuse_cursor

        refuse_cursor(params)
        return types.ListToolsResult(
            tools=[
                types.Tool(name=s.name, description=s.description, input_schema=s.input_schema)
                for s in tools.specs()
            ]
        )

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        from skillkit_core.protocol.mcp_stdio import protocol_error

        with protocol_error(UnknownToolError):
            answer = await tools.call(params.name, params.arguments)
        return types.CallToolResult(
            content=[types.TextContent(text=answer.text)], is_error=answer.is_error
        )

    server = Server(
        definition.name,
        version=definition.meta.version or "0.0.0",
        instructions=tools.instructions(),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )
    if skill_dir is not None:
        _install_skills_extension(server, skill_dir, skill_record)
    return server


def _install_skills_extension(
    server: Server[Any], skill_dir: str, skill_record: dict[str, Any] | None
) -> None:
    """Serve the built skill's own folder (``SKILL.md``, ``references/``, ``assets/``;
    not ``scripts/`` and ``bin/``, its launcher and run bundle) through SEP-2640's ``skills/list``,
    ``skills/get``, ``resources/directory/read`` and ``resources/read``, so a host that
    speaks the extension can load the skill without a shell.

    The record comes from the build (:mod:`skillkit_core.protocol.built_record`): the
    bundle cannot parse SKILL.md. Without one, or when SKILL.md is no longer the file the
    build wrote (a copy edited by hand), the server runs without the extension and says
    why on stderr."""
    import dataclasses
    import sys
    from pathlib import Path

    from skillkit_core.protocol.built_record import built_reader
    from skillkit_core.runtime.records import Registry, RegistryWarning
    from skillkit_core.runtime.skills_extension import (
        DEFAULT_PAGE_SIZE,
        SkillsExtension,
        install,
        read_contents,
        refuse_cursor,
        resource_templates,
        resources_page,
    )

    if skill_record is None:
        print(
            f"skillkit: the skills extension is off: {skill_dir} is served by a program "
            "that carries no record of its SKILL.md (only 'skillkit build' makes one)",
            file=sys.stderr,
        )
        return
    folder = Path(skill_dir)
    read = built_reader(skill_record, folder)
    record = read(folder, folder)
    if isinstance(record, RegistryWarning):
        print(f"skillkit: the skills extension is off: {record}", file=sys.stderr)
        return
    hidden = frozenset({"scripts", "bin"})  # the launcher and the run bundle
    record = dataclasses.replace(record, skill_path=(record.name,), hidden=hidden)
    registry = Registry((record,), read=read)

    async def read_resource(
        ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        # Anything but one of the skill's skill:// files is refused: invalid params, or
        # resource not found as the protocol version answers it.
        uri = str(params.uri)
        contents = read_contents(registry, uri, protocol_version=ctx.protocol_version)
        return types.ReadResourceResult(contents=[contents])

    async def list_templates(
        ctx: ServerRequestContext[Any], params: Any
    ) -> types.ListResourceTemplatesResult:
        refuse_cursor(params)
        return types.ListResourceTemplatesResult(resource_templates=resource_templates())

    async def list_resources(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        cursor = params.cursor if params is not None else None
        resources, next_cursor = resources_page(registry, cursor, DEFAULT_PAGE_SIZE)
        return types.ListResourcesResult(resources=resources, next_cursor=next_cursor)

    # resources/list makes the SDK declare the resources capability, which a server that
    # answers resources/read must (base protocol, "Resources": Capabilities).
    server.add_request_handler("resources/list", types.PaginatedRequestParams, list_resources)
    server.add_request_handler("resources/read", types.ReadResourceRequestParams, read_resource)
    server.add_request_handler(
        "resources/templates/list", types.PaginatedRequestParams, list_templates
    )
    install(server, SkillsExtension(registry))


async def serve_stdio(
    definition: SkillDefinition | ReferenceDefinition,
    handshake: Handshake,
    skill_record: dict[str, Any] | None = None,
) -> None:
    """Serve one client on stdin/stdout until it disconnects (``skill_record``: see
    :func:`build_server`)."""
    import os

    from skillkit_core.protocol.mcp_stdio import serve_stdio_connection

    # A built skill's scripts/run exports SKILL_DIR (the folder holding its SKILL.md).
    skill_dir = os.environ.get("SKILL_DIR")
    if skill_dir is not None and not os.path.isfile(os.path.join(skill_dir, "SKILL.md")):
        skill_dir = None
    server = build_server(SkillTools(definition, handshake), skill_dir, skill_record)
    await serve_stdio_connection(server, server.create_initialization_options())


def serve(
    definition: SkillDefinition | ReferenceDefinition,
    handshake: Handshake,
    skill_record: dict[str, Any] | None = None,
) -> None:
    """Run the stdio server (blocking); ``skill_record``: see :func:`build_server`."""
    import anyio

    anyio.run(serve_stdio, definition, handshake, skill_record)
