"""What the loop asks a provider and what it gets back.

Messages, tools and content blocks keep the Messages API's own JSON shapes, typed with the
anthropic SDK's param TypedDicts (plain dicts at run time), so a request can be logged,
replayed and compared as data. The SDK is imported for the type checker only: the chat
loads this module before its first prompt, and the SDK is imported after it (in a thread).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol

from pydantic import BaseModel

if TYPE_CHECKING:
    from anthropic.types import (
        ContentBlockParam,
        MessageParam,
        TextBlockParam,
        ToolChoiceParam,
        ToolParam,
        ToolUseBlockParam,
    )

ProviderName = Literal["anthropic", "bedrock", "scripted"]
TextCallback = Callable[[str], None]


class Usage(BaseModel):
    """Token counts of one model call (or the sum of several)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_creation_input_tokens=self.cache_creation_input_tokens
            + other.cache_creation_input_tokens,
            cache_read_input_tokens=self.cache_read_input_tokens + other.cache_read_input_tokens,
        )


@dataclass(frozen=True)
class ModelRequest:
    """One Messages API request, as the loop builds it.

    Typed with the SDK's own request params (TypedDicts, so plain dicts at run time); a
    dataclass rather than a pydantic model because those types exist for the type checker
    only (this module loads before the SDK is imported). What it holds is built by code;
    what comes from outside (a resumed file, a script) is validated where it is read."""

    model: str
    system: list[TextBlockParam]
    """System blocks, cache_control on the last."""
    tools: list[ToolParam]
    """Tool definitions, cache_control on the last."""
    messages: list[MessageParam]
    max_tokens: int
    tool_choice: ToolChoiceParam | None = None

    def __post_init__(self) -> None:
        if self.max_tokens <= 0:
            raise ValueError(f"max_tokens must be positive, not {self.max_tokens}")


@dataclass(frozen=True)
class ModelResponse:
    """The assistant message: its content blocks as request params, ready to be sent back
    in the history (`text` and `tool_use`, and thinking blocks as the API gave them)."""

    content: list[ContentBlockParam]
    stop_reason: str | None = None
    usage: Usage = field(default_factory=Usage)
    model: str = ""

    @property
    def text(self) -> str:
        return "".join(b["text"] for b in self.content if b["type"] == "text")

    @property
    def tool_uses(self) -> list[ToolUseBlockParam]:
        return [b for b in self.content if b["type"] == "tool_use"]


class ProviderError(Exception):
    """A model call failed in a way the user must act on (one line, no traceback):
    a refused key, an unknown model, an unreachable endpoint, retries exhausted."""


class ProviderUnavailable(ProviderError):
    """The provider cannot be used at all (no key, no credentials, SDK extra missing)."""


class ProviderArgumentError(ProviderUnavailable):
    """The command line gave the provider what it cannot use (no --script, a script that
    is missing or malformed): a bad argument, exit 2, not a missing prerequisite."""


class Provider(Protocol):
    @property
    def name(self) -> ProviderName: ...

    @property
    def model(self) -> str: ...

    def complete(self, request: ModelRequest, on_text: TextCallback | None = None) -> ModelResponse:
        """Send one request. With `on_text`, stream: call it with each text delta as it
        arrives, then return the whole message. Raise ProviderError on failure."""
        ...
