"""The real `hyperpod-debug mcp` process over stdio: the handshake, the tool list, a call."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.stdio import get_default_environment
from mcp_support import DEMO, ROOT

from agent.toolset.spec import check_tool_name
from tools.registry import all_checks

# Credentials that cannot reach an account, and no instance metadata: a replay needs none,
# and nothing of the developer's AWS setup may leak into the child.
_OFFLINE_AWS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_EC2_METADATA_DISABLED": "true",
    "AWS_CONFIG_FILE": "/dev/null",
    "AWS_SHARED_CREDENTIALS_FILE": "/dev/null",
}


def _command() -> tuple[str, list[str]]:
    """The installed console script when there is one, else the same entry point."""
    script = Path(sys.executable).with_name("hyperpod-debug")
    if script.exists():
        return str(script), []
    return sys.executable, ["-c", "import sys; from agent.cli import main; sys.exit(main())"]


def test_the_mcp_command_serves_over_stdio() -> None:
    command, prefix = _command()
    parameters = StdioServerParameters(
        command=command,
        args=[*prefix, "mcp", "--recorded", str(DEMO)],
        env={**get_default_environment(), **_OFFLINE_AWS},
        cwd=ROOT,
    )

    async def main() -> tuple[Any, list[str], Any]:
        with anyio.fail_after(60):
            async with Client(parameters, mode="legacy", read_timeout_seconds=60) as client:
                info = client.server_info
                names = [tool.name for tool in (await client.list_tools()).tools]
                triage = await client.call_tool("triage", {})
                return info, names, triage

    info, names, triage = anyio.run(main)
    assert info is not None
    assert info.name == "hyperpod-debug"
    assert names[0] == "triage"
    assert {check_tool_name(c.id) for c in all_checks()} <= set(names)
    assert triage.is_error is False
    assert triage.structured_content["counts"]["FAIL"] == 5
