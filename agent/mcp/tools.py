"""The Toolset's tools as MCP tools, and their results as MCP tool results.

A tool is listed as its `ToolSpec` describes it: name, title, description, the input schema
the agent sends to the model, the JSON Schema of its output model, and the behaviour hints.
A result's structured content is the tool's own bounded payload (its output's JSON dump);
its text is the spec's short summary, except for errors, whose text says everything (some
clients show only the text of an error result).
"""

from __future__ import annotations

from typing import Any

from mcp import types

from agent.toolset import ToolResult, Toolset, ToolSpec
from agent.toolset.summaries import brief_text
from tools.redaction import redact_output, redact_strings


def tool_definitions(toolset: Toolset) -> list[types.Tool]:
    """Every tool of ``toolset``, annotated: all read-only, none destructive, all idempotent
    (a second call changes nothing outside; it reads again); open-world only where a live
    cluster is read (a replay reads a closed, recorded world)."""
    live = not toolset.session.recorded
    return [_definition(spec, live=live) for spec in toolset.specs()]


def _definition(spec: ToolSpec[Any, Any], *, live: bool) -> types.Tool:
    return types.Tool(
        name=spec.name,
        title=spec.title,
        description=spec.description,
        input_schema=spec.input_schema(),
        output_schema=spec.output_schema(),
        # The title is given once (Tool.title wins over annotations.title in clients).
        annotations=types.ToolAnnotations(
            read_only_hint=True,
            destructive_hint=False,
            idempotent_hint=True,
            open_world_hint=live and spec.reads_cluster,
        ),
    )


def call_result(result: ToolResult, *, full_text: bool = False) -> types.CallToolResult:
    """``result`` as an MCP tool result. ``full_text`` puts the whole compact JSON in the text
    too, for clients that show a model only the text of a result."""
    text = summary(result)
    if full_text and not result.is_error:
        text = f"{text}\n\n{result.text}"
    # The output boundary to the client: the whole text and every string of the payload
    # redacted (the environment's credentials, every secret pattern), the shape kept.
    return types.CallToolResult(
        content=[types.TextContent(text=redact_output(text))],
        structured_content=redact_strings(result.payload),
        is_error=result.is_error,
    )


def summary(result: ToolResult) -> str:
    """A few lines saying what the result holds (its spec's summary); the payload itself is
    the structured content. An error says all it has."""
    failure = result.failure
    if failure is not None:
        return f"error: {failure.error}" + (f"\nnext: {failure.next}" if failure.next else "")
    if result.spec is not None and result.output is not None:
        return result.spec.summary(result.output)
    # A result made without its tool (none is, outside tests): its name and JSON.
    return brief_text(result.name, result.payload)
