"""`hyperpod-debug mcp`: the read-only tool layer as an MCP server (stdio, or streamable HTTP
on loopback), for coding agents such as Claude Code.

The SDK is imported only when the command runs: every other command starts without it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from agent.commands.cluster_options import SESSION_OPTIONS, ClusterArgs, cluster_options
from agent.commands.common import EXIT_USAGE, die, shown

if TYPE_CHECKING:
    from agent.toolset import Toolset


@cluster_options(SESSION_OPTIONS)
def mcp_command(
    cluster_args: ClusterArgs,
    recorded: Annotated[
        Path | None,
        typer.Option(
            "--recorded",
            help="Serve a recorded cluster file (or a `ticket` archive) instead of a live one.",
        ),
    ] = None,
    http: Annotated[
        str | None,
        typer.Option(
            "--http",
            metavar="HOST:PORT",
            help="Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio; HOST must be "
            "loopback (127.0.0.1, ::1, localhost) unless --allow-remote.",
        ),
    ] = None,
    allow_remote: Annotated[
        bool,
        typer.Option(
            "--allow-remote",
            help="Let --http bind a non-loopback address. The server has no authentication: "
            "anyone who reaches it reads the cluster with your credentials.",
        ),
    ] = False,
    full_text: Annotated[
        bool,
        typer.Option(
            "--full-text",
            help="Put each tool's whole JSON result in its text content too, for clients that "
            "show the model only text (the default text is a short summary).",
        ),
    ] = False,
) -> None:
    """Serve the read-only checks, triage and references over MCP (stdio by default)."""
    from agent.commands.cluster_setup import session_set_up
    from agent.mcp.address import is_loopback, parse_address

    address = None
    if http is not None:
        try:
            address = parse_address(http)
        except ValueError as exc:
            die(f"--http {shown(http)}: {exc}", EXIT_USAGE)
        if not is_loopback(address[0]):
            if not allow_remote:
                die(
                    f"--http {shown(http)} is not a loopback address; the server has no "
                    "authentication, so it binds 127.0.0.1, ::1 or localhost unless you add "
                    "--allow-remote",
                    EXIT_USAGE,
                )
            typer.echo(
                f"warning: serving on {shown(http)} without authentication: anyone who can "
                "reach it reads the cluster with these credentials",
                err=True,
            )
    # The same session as `chat` builds, minus the model: one cluster (or none yet) from the
    # command line and the standard credential chains.
    cluster_set_up = session_set_up(cluster_args, [recorded] if recorded is not None else [])
    _serve(cluster_set_up.toolset(), address, full_text)


def _serve(toolset: Toolset, address: tuple[str, int] | None, full_text: bool) -> None:
    import anyio

    from agent.mcp.server import ServerOptions, build_server, serve_http, serve_stdio

    server = build_server(toolset, ServerOptions(full_text=full_text))
    try:
        if address is None:
            anyio.run(serve_stdio, server)
        else:
            host, port = address
            shown_host = f"[{host}]" if ":" in host else host
            typer.echo(
                f"hyperpod-debug mcp: streamable HTTP on http://{shown_host}:{port}/mcp "
                "(read-only; Ctrl-C stops it)",
                err=True,
            )
            anyio.run(serve_http, server, host, port)
    except KeyboardInterrupt:
        return


def register(app: typer.Typer) -> None:
    app.command("mcp")(mcp_command)
