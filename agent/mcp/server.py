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
from typing import Any, cast

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
from agent.toolset.failures import Failure, FailureKind

log = logging.getLogger(__name__)

SERVER_NAME = "hyperpod-debug"
# Triage reports a server keeps (the latest ones); compare_triage reads the last two.
KEPT_TRIAGES = 20
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
    # A server lives as long as its client: its reports must not pile up for that long
    # (a bound the caller already chose stays).
    if toolset.state.keep_triages is None:
        toolset.state.keep_triages = KEPT_TRIAGES
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
        return ToolResult.failed(
            name, Failure(FailureKind.INTERNAL, f"internal error: {type(exc).__name__}")
        )


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
    """The SDK's stdio transport reading screened lines: a frame it would drop unanswered
    gets a JSON-RPC error instead (agent/mcp/stdio.py)."""
    from mcp.server.stdio import stdio_server

    from agent.mcp.stdio import claim_stdin, screened_stdin

    one_line_transport_errors()
    wire, restore = claim_stdin()
    lines = screened_stdin(wire)
    try:
        async with stdio_server(stdin=cast(Any, lines)) as (read_stream, write_stream):
            lines.answer_through(write_stream)
            await server.run(read_stream, write_stream, server.create_initialization_options())
    finally:
        restore()


# The loggers whose errors reach the server's stderr: the SDK's and the HTTP server's.
TRANSPORT_LOGGERS = ("mcp", "uvicorn", "uvicorn.error")
_REPEAT_WINDOW = 2.0  # seconds: one failure logged by several layers is one line


class OneLineErrors(logging.Handler):
    """An SDK or server error as one line on stderr, without its traceback, and one line
    per failure: a client that goes away in the middle of a call is logged by three layers
    of the SDK (the SSE writer, the response, the POST handler), each with a traceback.
    Records that come within two seconds of a line already written for the same kind of
    exception are counted, not written. `--debug` keeps the tracebacks."""

    def __init__(self, stream: Any = None) -> None:
        super().__init__(logging.WARNING)
        self.stream = stream
        self.repeats = 0
        self._last: tuple[str, float] | None = None

    def emit(self, record: logging.LogRecord) -> None:
        import sys
        import time

        try:
            kind = record.exc_info[0].__name__ if record.exc_info and record.exc_info[0] else ""
            now = time.monotonic()
            last = self._last
            if kind and last and last[0] == kind and now - last[1] < _REPEAT_WINDOW:
                self.repeats += 1
                return
            self._last = (kind, now) if kind else None
            message = " ".join(record.getMessage().split())[:300]
            detail = f" ({kind}: {_short_error(record)})" if kind else ""
            stream = self.stream or sys.stderr
            stream.write(f"hyperpod-debug mcp: {record.levelname.lower()}: {message}{detail}\n")
            stream.flush()
        except Exception:  # a log line must never stop the server
            self.handleError(record)


def _short_error(record: logging.LogRecord) -> str:
    error = record.exc_info[1] if record.exc_info else None
    text = " ".join(str(error).split()) if error is not None else ""
    return (text[:200] + "…") if len(text) > 200 else (text or "no detail")


def one_line_transport_errors() -> OneLineErrors | None:
    """Route the SDK's and uvicorn's errors through `OneLineErrors`, unless `--debug` asked
    for tracebacks (the agent's logger at DEBUG). Returns the handler installed."""
    if logging.getLogger("agent").isEnabledFor(logging.DEBUG):
        return None
    handler = OneLineErrors()
    for name in TRANSPORT_LOGGERS:
        logger = logging.getLogger(name)
        logger.handlers = [handler]
        logger.propagate = False
    return handler


async def serve_http(server: Server[Any], host: str, port: int) -> None:
    """Streamable HTTP at http://HOST:PORT/mcp. On loopback the SDK checks the Host and
    Origin headers (DNS-rebinding protection); a non-loopback bind was allowed explicitly.
    Transport errors are one line each on stderr (`OneLineErrors`)."""
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
    config = uvicorn.Config(
        app, host=host, port=port, log_level="warning", access_log=False, log_config=None
    )
    one_line_transport_errors()
    await uvicorn.Server(config).serve()
