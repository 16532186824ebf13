"""What the loop asks a provider and what it gets back, independent of the SDK.

Messages, tools and content blocks keep the Messages API's own JSON shapes (plain dicts),
so a request can be logged, replayed and compared as data.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

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


class ModelRequest(BaseModel):
    """One Messages API request, as the loop builds it."""

    model_config = ConfigDict(frozen=True)

    model: str
    system: list[dict[str, Any]] = Field(description="System blocks, cache_control on the last.")
    tools: list[dict[str, Any]] = Field(description="Tool definitions, cache_control on the last.")
    messages: list[dict[str, Any]]
    max_tokens: int = Field(gt=0)
    tool_choice: dict[str, Any] | None = None


class ModelResponse(BaseModel):
    """The assistant message: content blocks as API dicts (`text` and `tool_use` only)."""

    content: list[dict[str, Any]]
    stop_reason: str | None = None
    usage: Usage = Field(default_factory=Usage)
    model: str = ""

    @property
    def text(self) -> str:
        return "".join(str(b.get("text", "")) for b in self.content if b.get("type") == "text")

    @property
    def tool_uses(self) -> list[dict[str, Any]]:
        return [b for b in self.content if b.get("type") == "tool_use"]


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
