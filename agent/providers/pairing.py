"""The Messages API's rule on a conversation: who speaks when, and how tool calls pair.

The one statement of the rule in this program. It is checked in two strengths:

* as the API checks a request (the default): the conversation is not empty and opens with
  a user message; no message is empty, except that a final assistant message may be (a
  prefill), and no text block is blank (whitespace only); every `tool_use` block of an
  assistant message is answered by a `tool_result` block with its id in the very next
  message, a user message; a `tool_result` answers a `tool_use` of the message just before
  it. The API refuses a
  request that breaks this with a 400 ("tool_use ids were found without tool_result blocks
  immediately after"), and every later request carries the same history, so one broken
  turn would break the conversation for good. The scripted provider and the tests' fake
  Messages API apply it as the API does, so a loop that leaves a dangling call fails in
  tests first.
* `strict`, for a conversation read back from a file (agent/chat/resume.py): also the roles
  alternate (user first), a call's results come first in the answering message, each call
  is answered once, no two calls of a message share an id and no message is empty, the
  last one included (the next turn would put it before a user message): this program always writes
  conversations that way, so anything else in a saved file is damage, not a variant.

`open_ended` lets a conversation stop anywhere, as a file saved while a turn ran does: it
may be empty and its last calls may still await their results.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

from agent.providers.blocks import content_blocks, is_text, is_tool_result, is_tool_use

if TYPE_CHECKING:
    from anthropic.types import MessageParam


class Broken(Enum):
    """Each way a conversation can break the rule."""

    EMPTY = "no message"
    FIRST_NOT_USER = "the first message is not the user's"
    EMPTY_CONTENT = "a message with no content (only a final assistant message may have none)"
    BLANK_TEXT = "a text block with no visible text"
    SAME_ROLE_TWICE = "two messages of one role in a row (strict)"
    UNANSWERED_CALL = "a tool call without its result in the next message"
    RESULT_WITHOUT_CALL = "a tool result after a message that made no call"
    RESULT_FOR_OTHER_CALL = "a tool result whose id is not a call of the message before"
    RESULT_TWICE = "one call answered twice (strict)"
    RESULTS_NOT_FIRST = "something before a call's results in its answer (strict)"
    CALL_ID_TWICE = "two calls of one message with one id (strict)"


@dataclass(frozen=True, slots=True)
class RuleBreak:
    """The first place a conversation breaks the rule."""

    kind: Broken
    index: int
    """The message at fault, from 0; for an unanswered call, the message that should hold
    its result (which may be one past the end)."""
    ids: tuple[str, ...] = ()
    """The tool-use ids concerned, when there are."""

    def api_text(self) -> str:
        """The problem as the Messages API words it (its 400's message)."""
        where, first = f"messages.{self.index}", self.ids[0] if self.ids else ""
        if self.kind is Broken.EMPTY:
            return "messages: at least one message is required"
        if self.kind is Broken.FIRST_NOT_USER:
            return "messages: the first message must use the user role"
        if self.kind is Broken.EMPTY_CONTENT:
            return (
                f"{where}: all messages must have non-empty content except for the optional "
                "final assistant message"
            )
        if self.kind is Broken.BLANK_TEXT:
            return f"{where}: text content blocks must contain non-whitespace text"
        if self.kind is Broken.UNANSWERED_CALL:
            return (
                f"{where}: `tool_use` ids were found without `tool_result` blocks "
                f"immediately after: {', '.join(self.ids)}. Each `tool_use` block must have "
                "a corresponding `tool_result` block in the next message."
            )
        if self.kind in (Broken.RESULT_WITHOUT_CALL, Broken.RESULT_FOR_OTHER_CALL):
            return (
                f"{where}.content: unexpected `tool_use_id` found in `tool_result` blocks: "
                f"{first}. Each `tool_result` block must have a corresponding `tool_use` "
                "block in the previous message."
            )
        if self.kind is Broken.SAME_ROLE_TWICE:
            return f"{where}: roles must alternate between user and assistant"
        if self.kind is Broken.RESULT_TWICE:
            return f"{where}.content: `tool_use` id {first} is answered more than once"
        if self.kind is Broken.RESULTS_NOT_FIRST:
            return f"{where}.content: `tool_result` blocks must come first in the message"
        return f"{where}.content: `tool_use` ids must be unique: {first}"


def rule_break(
    messages: Sequence[MessageParam], *, strict: bool = False, open_ended: bool = False
) -> RuleBreak | None:
    """Where `messages` first breaks the rule (see the module's docstring), or None."""
    if not messages:
        return None if open_ended else RuleBreak(Broken.EMPTY, 0)
    for index in range(len(messages)):
        found = _at(messages, index, strict=strict, open_ended=open_ended)
        if found is not None:
            return found
    return None


def pairing_problem(messages: Sequence[MessageParam]) -> str | None:
    """What breaks the rule in a request's `messages`, as the API would say it, or None."""
    found = rule_break(messages)
    return None if found is None else found.api_text()


def _at(
    messages: Sequence[MessageParam], index: int, *, strict: bool, open_ended: bool
) -> RuleBreak | None:
    """The rule as message `index` must meet it, given the message before it."""
    message = messages[index]
    role = message.get("role")
    if index == 0 and role != "user":
        return RuleBreak(Broken.FIRST_NOT_USER, 0)
    if strict and role != ("user" if index % 2 == 0 else "assistant"):
        return RuleBreak(Broken.SAME_ROLE_TWICE, index)
    final_assistant = role == "assistant" and index == len(messages) - 1 and not strict
    if not message.get("content") and not final_assistant:
        # The API refuses it (a model may answer with no content at all: agent.loop.empty).
        return RuleBreak(Broken.EMPTY_CONTENT, index)
    if _has_blank_text(message):
        # Refused as well: a model may write one beside a tool call (agent.loop.empty).
        return RuleBreak(Broken.BLANK_TEXT, index)
    previous = messages[index - 1] if index > 0 else None
    asked = _calls(previous) if previous is not None and previous.get("role") == "assistant" else []
    if role == "user":
        found = _answers(message, index, asked, strict=strict)
        if found is not None:
            return found
    elif asked:
        return RuleBreak(Broken.UNANSWERED_CALL, index, tuple(asked))
    if role != "assistant":
        return None
    calls = _calls(message)
    if strict and len(set(calls)) != len(calls):
        return RuleBreak(Broken.CALL_ID_TWICE, index, tuple(_repeated(calls)))
    if calls and index == len(messages) - 1 and not open_ended:
        return RuleBreak(Broken.UNANSWERED_CALL, index + 1, tuple(calls))
    return None


def _answers(
    message: MessageParam, index: int, asked: list[str], *, strict: bool
) -> RuleBreak | None:
    """A user message against the calls of the message before it."""
    blocks = content_blocks(message)
    results = [str(b.get("tool_use_id", "")) for b in blocks if is_tool_result(b)]
    missing = [i for i in asked if i not in results]
    if missing:
        return RuleBreak(Broken.UNANSWERED_CALL, index, tuple(missing))
    stray = [i for i in results if i not in asked]
    if stray:
        kind = Broken.RESULT_FOR_OTHER_CALL if asked else Broken.RESULT_WITHOUT_CALL
        return RuleBreak(kind, index, tuple(stray))
    if not strict:
        return None
    if len(set(results)) != len(results):
        return RuleBreak(Broken.RESULT_TWICE, index, tuple(_repeated(results)))
    if not all(is_tool_result(b) for b in blocks[: len(results)]):
        return RuleBreak(Broken.RESULTS_NOT_FIRST, index, tuple(results))
    return None


def _has_blank_text(message: MessageParam) -> bool:
    content = message.get("content")
    if isinstance(content, str):
        return not content.strip()
    return any(is_text(b) and not str(b.get("text", "")).strip() for b in content_blocks(message))


def _calls(message: MessageParam) -> list[str]:
    return [str(b.get("id", "")) for b in content_blocks(message) if is_tool_use(b)]


def _repeated(ids: list[str]) -> list[str]:
    return list(dict.fromkeys(i for i in ids if ids.count(i) > 1))
