"""A model answer with nothing in it.

The Messages API sometimes ends a turn with no content at all (`end_turn`, a few output
tokens), most often right after tool results. Kept in the history, such a message makes every
later request a 400 ("all messages must have non-empty content except for the optional final
assistant message"), and the person would see no answer. The loop asks once more, with a
short request to answer appended to the last user message (the API's own advice for this
case, as a last resort: sending the same request again does not help); a second empty
answer ends the turn with a notice the person can act on, which also stands in the history
as the assistant's message so the conversation stays valid.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from anthropic.types import ContentBlockParam, MessageParam, TextBlockParam

    from agent.providers.base import ModelResponse
    from agent.state import Language

# Appended to the last user message before the second call.
NUDGE = (
    "Your last reply was empty. Answer the user now from what you have: what the results "
    "show, what it means and what comes next."
)
_NOTICE: dict[Language, str] = {
    # Worded for every interface (a chat, a one-shot `ask`, MCP's prompts): ask again.
    "en": "The model returned an empty answer twice: ask again, perhaps in other words.",
    "zh": "模型连续两次返回了空回答：请再问一次，或换一种说法。",
}


def is_empty(response: ModelResponse) -> bool:
    """No tool call and no visible text (whitespace only counts as nothing)."""
    return not response.tool_uses and not response.text.strip()


def kept(response: ModelResponse) -> list[ContentBlockParam]:
    """The content of a (not empty) answer as the history keeps it: without a text block
    that holds only whitespace, which a model may write before a tool call and the API
    refuses in every later request."""
    return [
        block
        for block in response.content
        if not (block["type"] == "text" and not block["text"].strip())
    ]


def nudged(message: MessageParam) -> MessageParam:
    """The user message with NUDGE appended: a new message and a new list, so the content
    a caller passed in (and a rolled-back turn) is left as it was."""
    content = message["content"]
    nudge: TextBlockParam = {"type": "text", "text": NUDGE}
    if isinstance(content, str):
        return {"role": "user", "content": [{"type": "text", "text": content}, nudge]}
    return {"role": "user", "content": [*content, nudge]}


def notice(language: Language) -> str:
    return _NOTICE[language]
