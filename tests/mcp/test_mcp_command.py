"""`hyperpod-debug mcp` options: loopback by default, clean usage errors, and streamable HTTP
on loopback end to end."""

from __future__ import annotations

import socket
from typing import Any

import anyio
import pytest
import typer
from mcp import Client
from mcp_support import recorded_toolset
from typer.testing import CliRunner

from agent.commands import mcp as mcp_command
from agent.mcp.address import is_loopback, parse_address
from agent.mcp.server import HTTP_PATH, build_server, serve_http


def _app() -> typer.Typer:
    app = typer.Typer()
    app.callback()(lambda: None)
    mcp_command.register(app)
    return app


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("127.0.0.1:8765", ("127.0.0.1", 8765)),
        ("localhost:1", ("localhost", 1)),
        ("[::1]:65535", ("::1", 65535)),
        (" 0.0.0.0:80 ", ("0.0.0.0", 80)),
    ],
)
def test_addresses_parse(text: str, expected: tuple[str, int]) -> None:
    assert parse_address(text) == expected


@pytest.mark.parametrize("text", ["8765", "127.0.0.1", "127.0.0.1:0", "h:70000", "::1:80", ""])
def test_malformed_addresses_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match=r"HOST:PORT|out of range"):
        parse_address(text)


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.1.2.3", True),
        ("::1", True),
        ("LOCALHOST", True),
        ("0.0.0.0", False),
        ("10.0.0.5", False),
        ("::", False),
        ("example.internal", False),
    ],
)
def test_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--http", "0.0.0.0:8765"], "not a loopback address"),
        (["--http", "10.1.2.3:8765"], "--allow-remote"),
        (["--http", "nonsense"], "expected HOST:PORT"),
        (["--node", "i-0123456789abcdef0"], "--node needs --cluster"),
        (["--recorded", "/nonexistent/cluster.json"], "error:"),
        (["--recorded", "evals/clusters/demo-eks.json", "--region", "eu-west-1"], "does not match"),
        (["--cluster", "bad name!", "--region", "us-west-2"], "error:"),
    ],
)
def test_usage_errors_exit_2_with_one_line(argv: list[str], message: str) -> None:
    result = CliRunner().invoke(_app(), ["mcp", *argv])
    assert result.exit_code == 2, result.output
    assert message in result.output


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def test_streamable_http_on_loopback() -> None:
    port = _free_port()
    server = build_server(recorded_toolset())

    async def main() -> tuple[list[str], Any]:
        async with anyio.create_task_group() as group:
            group.start_soon(serve_http, server, "127.0.0.1", port)
            url = f"http://127.0.0.1:{port}{HTTP_PATH}"
            with anyio.fail_after(30):
                while True:  # until uvicorn listens
                    try:
                        with socket.create_connection(("127.0.0.1", port), timeout=1):
                            break
                    except OSError:
                        await anyio.sleep(0.05)
                async with Client(url, mode="legacy") as client:
                    names = [t.name for t in (await client.list_tools()).tools]
                    reference = await client.call_tool("read_reference", {"section": "A"})
            group.cancel_scope.cancel()
        return names, reference

    names, reference = anyio.run(main)
    assert "triage" in names
    assert reference.structured_content["section"] == "A"
