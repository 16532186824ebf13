"""What every request carries besides the conversation (the system prompt and the tool
definitions, marked for prompt caching), and keeping the conversation inside the context
window."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.providers.blocks import content_blocks, is_tool_result
from prompts import render

if TYPE_CHECKING:
    from anthropic.types import MessageParam, TextBlockParam, ToolParam

    from agent.toolset import Toolset

TRIMMED = "[trimmed to keep the conversation within the context window: call the tool again]"


class SystemPrompt:
    """The system prompt for where the conversation stands (cluster, region, orchestrator,
    node, recorded or live, today, language), rendered once per such combination."""

    def __init__(self) -> None:
        self._rendered: dict[str, str] = {}

    def text(self, toolset: Toolset, today: str) -> str:
        state, session = toolset.state, toolset.session
        target = session.target
        context = {
            "cluster": state.cluster or (target.cluster if target else None),
            "region": state.region or (target.region if target else None),
            "orchestrator": state.orchestrator,
            "node": target.node if target else None,
            "recorded": session.recorded,
            "today": today,
            "language": state.language,
        }
        key = repr(sorted(context.items()))
        if key not in self._rendered:
            self._rendered[key] = render("system.jinja2", **context)
        return self._rendered[key]


def system_blocks(prompt: str) -> list[TextBlockParam]:
    # Prompt caching: the tools and the system prompt are the stable prefix.
    return [{"type": "text", "text": prompt, "cache_control": {"type": "ephemeral"}}]


def tool_definitions(toolset: Toolset) -> list[ToolParam]:
    schemas = toolset.schemas()
    # Prompt caching: the tools and the system prompt are the stable prefix.
    schemas[-1] = {**schemas[-1], "cache_control": {"type": "ephemeral"}}
    return schemas


def trim_tool_results(messages: list[MessageParam], limit: int) -> None:
    """Replace the oldest tool results by a note until the conversation fits in `limit`
    characters; the last two messages (the round in progress) are never trimmed."""
    size = sum(len(str(m.get("content"))) for m in messages)
    for message in messages[:-2]:
        if size <= limit:
            return
        if message["role"] != "user":
            continue
        for block in content_blocks(message):
            if is_tool_result(block) and block.get("content") != TRIMMED:
                size -= len(str(block.get("content"))) - len(TRIMMED)
                block["content"] = TRIMMED
