"""Benchmark: `hyperpod-debug mcp` start-up to the first tool list, and the tool list's size.

Start-up is timed from spawning the server process to the `tools/list` answer, through the
SDK's own stdio client with the initialize handshake (what Claude Code and other clients
do): interpreter, CLI, SDK import, toolset and recording load, handshake, listing. The
median of N runs is printed with the fastest and the slowest, after one warm-up run (bytecode
caches). The size is the JSON of the listed tools as they go on the wire (every schema,
description, title and annotation), in characters, then without the output schemas (what a
client passes its model); the agent's own tool definitions (the Messages API form, without
MCP titles and annotations) are printed beside it.

    python scripts/bench_mcp.py [--runs 5] [--recorded evals/clusters/demo-eks.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.stdio import get_default_environment

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "evals" / "clusters" / "demo-eks.json"


def _command(recorded: Path) -> StdioServerParameters:
    script = Path(sys.executable).with_name("hyperpod-debug")
    prefix = (
        [str(script)]
        if script.exists()
        else [sys.executable, "-c", "import sys; from agent.cli import main; sys.exit(main())"]
    )
    return StdioServerParameters(
        command=prefix[0],
        args=[*prefix[1:], "mcp", "--recorded", str(recorded)],
        env={**get_default_environment(), "AWS_EC2_METADATA_DISABLED": "true"},
        cwd=ROOT,
    )


async def _first_list(parameters: StdioServerParameters) -> tuple[float, list[dict[str, Any]]]:
    start = time.perf_counter()
    async with Client(parameters, mode="legacy", read_timeout_seconds=120) as client:
        tools = (await client.list_tools()).tools
        elapsed = time.perf_counter() - start
    wire = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]
    return elapsed, wire


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--recorded", type=Path, default=DEMO)
    args = parser.parse_args()
    parameters = _command(args.recorded)

    anyio.run(_first_list, parameters)  # warm-up: bytecode caches, page cache
    times: list[float] = []
    wire: list[dict[str, Any]] = []
    for _ in range(args.runs):
        elapsed, wire = anyio.run(_first_list, parameters)
        times.append(elapsed)

    from agent.state import ConversationState
    from agent.toolset import Toolset
    from agent.toolset.cluster import ClusterSession

    agent_schemas = Toolset(ClusterSession(), ConversationState()).schemas()
    size = len(json.dumps(wire, ensure_ascii=False))
    compact = len(json.dumps(wire, ensure_ascii=False, separators=(",", ":")))
    # What a client sends its model: the listing without the output schemas, which the
    # client keeps to validate structured content with.
    read = [{k: v for k, v in tool.items() if k != "outputSchema"} for tool in wire]
    read_compact = len(json.dumps(read, ensure_ascii=False, separators=(",", ":")))
    print(f"start-up to first tool list (stdio, {args.runs} runs after a warm-up):")
    print(
        f"  median {statistics.median(times):.2f} s, fastest {min(times):.2f} s, "
        f"slowest {max(times):.2f} s"
    )
    print(f"tools listed: {len(wire)}")
    print(f"tool list size: {size} characters (json.dumps), {compact} compact")
    print(
        f"  without the output schemas (what a client's model reads): {read_compact} compact, "
        f"about {read_compact // 4} tokens at 4 characters a token"
    )
    print(f"agent's own tool definitions: {len(json.dumps(agent_schemas))} characters")


if __name__ == "__main__":
    main()
