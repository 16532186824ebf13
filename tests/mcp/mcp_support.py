"""Building the MCP server over a bundled recording, and driving it with the SDK's client.

This directory has no __init__.py on purpose: as a package named `mcp` under tests/ (which
pytest puts on sys.path) it would shadow the SDK itself.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import anyio
from mcp import Client, types

from agent.mcp.server import build_server
from agent.state import ConversationState
from agent.toolset import Toolset
from agent.toolset.cluster import ClusterSession
from tools.recorded.model import load_recorded
from tools.target import TriageTarget
from tools.triage.node_sources import NodeOptions

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "evals" / "clusters" / "demo-eks.json"
T = TypeVar("T")


def recorded_toolset(path: Path = DEMO) -> Toolset:
    """The toolset `hyperpod-debug mcp --recorded PATH` serves."""
    recording = load_recorded(path)
    target = TriageTarget(cluster=recording.cluster, region=recording.region)
    session = ClusterSession(target=target, recordings=[recording], options=NodeOptions())
    state = ConversationState(cluster=target.cluster, region=target.region)
    return Toolset(session, state)


def with_client(toolset: Toolset, body: Callable[[Client], Awaitable[T]]) -> T:
    """Run ``body`` against an in-process server over the JSON-RPC stream loop, with the
    initialize handshake real clients use (mode="legacy")."""

    async def main() -> T:
        async with Client(build_server(toolset), mode="legacy") as client:
            return await body(client)

    result: T = anyio.run(main)
    return result


def text_of(block: Any) -> str:
    """The text of a prompt message, content block or resource contents (all text here)."""
    content = getattr(block, "content", block)
    assert isinstance(content, types.TextContent | types.TextResourceContents), content
    return content.text


def dumped(model: Any) -> Any:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)
