"""The MCP server: one Toolset (one cluster session, one workflow state) behind the SDK's
low-level `Server`, served over stdio or streamable HTTP.

Tool calls run one at a time in a worker thread: the Toolset and its cluster session are
not made for concurrent calls (a triage and a check would read the cluster twice), and the
event loop must stay free to answer pings and cancellations while a live triage reads AWS
for up to a minute.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.to_thread
from mcp import types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from agent.mcp import prompts, resources
from agent.mcp.address import is_loopback
from agent.mcp.tools import call_result, tool_definitions
from agent.toolset import ToolResult, Toolset

log = logging.getLogger(__name__)

SERVER_NAME = "hyperpod-debug"
HTTP_PATH = "/mcp"


@dataclass(frozen=True)
class ServerOptions:
    full_text: bool = False
    """Put the whole JSON result in each tool result's text too (clients that read only
    the text of a result); by default the text is a short summary."""


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("hyperpod-debug")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "0"


def instructions(toolset: Toolset) -> str:
    """What an MCP client's model reads about this server before any call."""
    session, state = toolset.session, toolset.state
    if session.target is None:
        where = (
            "No cluster is open: ask the user for the cluster name (or ARN) and region, "
            "then call use_cluster once."
        )
    else:
        source = "a recorded cluster (replayed file)" if session.recorded else "live, read-only"
        where = f"Cluster {session.target.cluster} in {session.target.region}, {source}."
        if state.focus_node:
            where += f" Node in focus: {state.focus_node} (pass it as instance_id)."
    return (
        "Read-only diagnosis of unhealthy Amazon SageMaker HyperPod nodes (EKS or Slurm). "
        f"{where} Call triage first; every FAIL/WARN line points at a reference section: read "
        "it (read_reference) before proposing anything. No tool changes the cluster: propose "
        "each command for the user through suggest_command, show its block, and wait for "
        "approval; re-triage and compare_triage after the user reports a change. The "
        "`workflow` prompt has the whole procedure."
    )


def build_server(toolset: Toolset, options: ServerOptions | None = None) -> Server[Any]:
    """An MCP server over ``toolset``: its tools, the references as resources, the
    workflow prompts."""
    options = options or ServerOptions()
    definitions = tool_definitions(toolset)
    schemas = {tool.name: tool.input_schema for tool in definitions}
    lock = anyio.Lock()

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=definitions)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        async with lock:
            result = await anyio.to_thread.run_sync(_call, toolset, params.name, params.arguments)
        return call_result(result, full_text=options.full_text)

    async def list_resources(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=resources.resource_list())

    async def list_resource_templates(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=resources.resource_templates())

    async def read_resource(
        ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        text = resources.read(uri)
        if text is None:
            raise MCPError(
                types.INVALID_PARAMS, f"no resource {uri[:200]!r}", data={"uri": uri[:200]}
            )
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, text=text, mime_type=resources.MARKDOWN)]
        )

    async def list_prompts(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=prompts.prompt_list())

    async def get_prompt(
        ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        return prompts.get_prompt(params.name, params.arguments, _prompt_context(toolset))

    return Server(
        SERVER_NAME,
        version=_version(),
        title="HyperPod node debugger (read-only)",
        instructions=instructions(toolset),
        get_tool_input_schema=schemas.get,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=list_resource_templates,
        on_read_resource=read_resource,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
    )


def _call(toolset: Toolset, name: str, arguments: dict[str, Any] | None) -> ToolResult:
    """`Toolset.call`, which turns bad input and failing reads into error results itself;
    anything that still escapes becomes one too, so no call can stop the server."""
    try:
        return toolset.call(name, arguments or {})
    except Exception as exc:  # the server outlives any one tool
        log.debug("tool %s failed outside the toolset", name, exc_info=True)
        return ToolResult(name, {"error": f"internal error: {type(exc).__name__}"}, is_error=True)


def _prompt_context(toolset: Toolset) -> prompts.PromptContext:
    target = toolset.session.target
    return prompts.PromptContext(
        cluster=target.cluster if target else None,
        region=target.region if target else None,
        node=toolset.state.focus_node,
        recorded=toolset.session.recorded,
    )


# -- transports ------------------------------------------------------------------------------


async def serve_stdio(server: Server[Any]) -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


async def serve_http(server: Server[Any], host: str, port: int) -> None:
    """Streamable HTTP at http://HOST:PORT/mcp. On loopback the SDK checks the Host and
    Origin headers (DNS-rebinding protection); a non-loopback bind was allowed explicitly."""
    import uvicorn
    from mcp.server.transport_security import TransportSecuritySettings

    security = None
    if is_loopback(host):
        # The SDK turns the protection on by itself only for three spellings of loopback.
        shown = f"[{host}]" if ":" in host else host
        security = TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=[f"{shown}:*", "127.0.0.1:*", "localhost:*", "[::1]:*"],
            allowed_origins=[
                f"http://{shown}:*",
                "http://127.0.0.1:*",
                "http://localhost:*",
                "http://[::1]:*",
            ],
        )
    app = server.streamable_http_app(
        streamable_http_path=HTTP_PATH, host=host, transport_security=security
    )
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False)
    await uvicorn.Server(config).serve()
