"""Which kind of Messages API content block a value is, told to the type checker.

A message's `content` in the SDK's params (anthropic.types.MessageParam) is a string or an
iterable of many block kinds, including the SDK's response models, so a block read back from
a conversation has to be recognised before its fields can be used. These guards look at the
`type` tag only; what a block holds beyond it is the writer's business (the loop, the
providers, resume's rebuild of a saved file).

The SDK's types are imported for the type checker only: this module loads before the chat's
first prompt, which must not wait for the SDK (agent/providers/anthropic_api.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeGuard

if TYPE_CHECKING:
    from anthropic.types import (
        MessageParam,
        TextBlockParam,
        ToolResultBlockParam,
        ToolUseBlockParam,
    )


def is_text(block: object) -> TypeGuard[TextBlockParam]:
    return isinstance(block, dict) and block.get("type") == "text"


def is_tool_use(block: object) -> TypeGuard[ToolUseBlockParam]:
    return isinstance(block, dict) and block.get("type") == "tool_use"


def is_tool_result(block: object) -> TypeGuard[ToolResultBlockParam]:
    return isinstance(block, dict) and block.get("type") == "tool_result"


def content_blocks(message: MessageParam) -> list[object]:
    """The blocks of a message, or none when its content is a plain string (or, in data
    from elsewhere, not a list at all)."""
    content = message.get("content")
    return list(content) if isinstance(content, list) else []
