"""The Messages API's rule on tool calls, checked before a request leaves.

Every `tool_use` block of an assistant message must be answered by a `tool_result` block
with its id in the very next message (a user message), and a `tool_result` may only
answer a `tool_use` of the message just before it. The API refuses a conversation that
breaks this with a 400 ("tool_use ids were found without tool_result blocks immediately
after"), and every later request carries the same history, so one broken turn would break
the conversation for good. The scripted provider and the tests' fake Messages API apply
the rule as the API does, so a loop that leaves a dangling call fails in tests first.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def pairing_problem(messages: Sequence[dict[str, Any]]) -> str | None:
    """What breaks the tool-call pairing in `messages`, as the API would say it, or None."""
    if not messages:
        return "messages: at least one message is required"
    if messages[0].get("role") != "user":
        return "messages: the first message must use the user role"
    for index, message in enumerate(messages):
        asked = _ids(message, "tool_use") if message.get("role") == "assistant" else []
        following = messages[index + 1] if index + 1 < len(messages) else None
        answered = (
            _ids(following, "tool_result")
            if following is not None and following.get("role") == "user"
            else []
        )
        missing = [i for i in asked if i not in answered]
        if missing:
            return _missing(index, missing)
        if message.get("role") == "user":
            previous = messages[index - 1] if index > 0 else None
            expected = (
                _ids(previous, "tool_use")
                if previous is not None and previous.get("role") == "assistant"
                else []
            )
            stray = [i for i in _ids(message, "tool_result") if i not in expected]
            if stray:
                return (
                    f"messages.{index}.content: unexpected `tool_use_id` found in "
                    f"`tool_result` blocks: {stray[0]}. Each `tool_result` block must have a "
                    "corresponding `tool_use` block in the previous message."
                )
    return None


def _missing(index: int, missing: list[str]) -> str:
    return (
        f"messages.{index + 1}: `tool_use` ids were found without `tool_result` blocks "
        f"immediately after: {', '.join(missing)}. Each `tool_use` block must have a "
        "corresponding `tool_result` block in the next message."
    )


def _ids(message: dict[str, Any], block_type: str) -> list[str]:
    content = message.get("content")
    if not isinstance(content, list):
        return []
    key = "id" if block_type == "tool_use" else "tool_use_id"
    return [
        str(block.get(key, ""))
        for block in content
        if isinstance(block, dict) and block.get("type") == block_type
    ]
