"""``scripts/run mcp``: the skill's tools over MCP on stdio (official ``mcp`` SDK).

Thin: the tools themselves live in :mod:`skillkit_core.protocol.mcp_tools`. This module
is imported only for the ``mcp`` subcommand, so the per-step CLI never loads the SDK.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
from mcp.server import Server, ServerRequestContext

from skillkit_core.definitions import ReferenceDefinition, SkillDefinition
from skillkit_core.hosts import Handshake
from skillkit_core.protocol.mcp_tools import SkillTools


def build_server(tools: SkillTools) -> Server[Any]:
    """An MCP server named after the skill, serving ``tools``."""
    definition = tools.definition

    async def list_tools(ctx: ServerRequestContext[Any], params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(name=s.name, description=s.description, input_schema=s.input_schema)
                for s in tools.specs()
            ]
        )

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        answer = await tools.call(params.name, params.arguments)
        return types.CallToolResult(
            content=[types.TextContent(text=answer.text)], is_error=answer.is_error
        )

    return Server(
        definition.name,
        version=definition.meta.version or "0.0.0",
        instructions=tools.instructions(),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def serve_stdio(
    definition: SkillDefinition | ReferenceDefinition, handshake: Handshake
) -> None:
    """Serve one client on stdin/stdout until it disconnects."""
    from skillkit_core.protocol.mcp_stdio import serve_stdio_connection

    server = build_server(SkillTools(definition, handshake))
    await serve_stdio_connection(server, server.create_initialization_options())


def serve(definition: SkillDefinition | ReferenceDefinition, handshake: Handshake) -> None:
    """Run the stdio server (blocking)."""
    import anyio

    anyio.run(serve_stdio, definition, handshake)
