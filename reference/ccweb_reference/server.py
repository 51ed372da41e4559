"""The MCP server: the tool declared from the spec files, on the SDK's low-level Server."""

from __future__ import annotations

from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import anyio.to_thread

import ccweb_spec
from ccweb_reference import wire
from ccweb_reference.sdk import MCPError, Server, ServerRequestContext, types
from ccweb_reference.store import SessionStore
from ccweb_reference.tool import call_tool

TOOL = ccweb_spec.tool_definition()
INVALID_PARAMS = -32602
SOURCE_ENV = ccweb_spec.binding().source_env
SOURCE_HEADER = ccweb_spec.binding().source_header


@dataclass(frozen=True)
class Binding:
    """Where the source conversation comes from: a fixed ID (stdio) or a header (HTTP)."""

    fixed_source: str | None = None
    source_header: str | None = None

    def source(self, ctx: ServerRequestContext[Any, Any]) -> str | None:
        """The source conversation ID for this request, uncleaned, or None."""
        if self.source_header is None:
            return self.fixed_source
        headers = getattr(ctx.request, "headers", None)
        return None if headers is None else headers.get(self.source_header)


def _kit_version() -> str:
    try:
        return version("ccweb-list-user-inputs-kit")
    except PackageNotFoundError:  # running from a source tree
        return "0"


def build_server(store: SessionStore, binding: Binding) -> Server[Any]:
    """A low-level MCP server exposing exactly the spec's tool."""

    async def list_tools(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[types.Tool.model_validate(TOOL, by_name=False)])

    async def call(ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name != TOOL["name"]:
            raise MCPError(INVALID_PARAMS, f"Unknown tool: {params.name}")  # ERR-3
        # A worker thread reads and parses the file: a large one never stalls the event loop (other clients).
        result, is_error = await anyio.to_thread.run_sync(call_tool, store, params.arguments, binding.source(ctx))
        return types.CallToolResult(  # PLC-3: both placements, equal objects
            content=[types.TextContent(type="text", text=wire.dumps(result))],
            structured_content=result,
            is_error=is_error,
        )

    return Server(
        "ccweb-reference",
        version=_kit_version(),
        title="cc-web list-user-inputs reference server",
        on_list_tools=list_tools,
        on_call_tool=call,
    )
