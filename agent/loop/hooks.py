"""What the loop reports as it goes: model and tool calls to the live display
(agent.chat.progress), each start matched by an end even when the call raises, and the
conversation's events to whoever records them (the transcript)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agent.activity import (
    ModelCallEnded,
    ModelCallStarted,
    ProgressEvent,
    ProgressSink,
    ToolEnded,
    ToolStarted,
)

if TYPE_CHECKING:
    from agent.providers.base import ModelRequest, ModelResponse, Provider, TextCallback
    from agent.toolset import ToolResult, Toolset

EventSink = Callable[[dict[str, Any]], None]


def report(progress: ProgressSink | None, event: ProgressEvent) -> None:
    if progress is not None:
        progress(event)


def model_call(
    provider: Provider,
    request: ModelRequest,
    on_text: TextCallback | None,
    progress: ProgressSink | None,
) -> ModelResponse:
    """One model call, its start and end reported (the end also when it raises, so a
    spinner never outlives the call)."""
    report(progress, ModelCallStarted())
    started, completed = time.monotonic(), False
    try:
        response = provider.complete(request, on_text)
        completed = True
        return response
    finally:
        report(progress, ModelCallEnded(time.monotonic() - started, completed))


def tool_call(
    toolset: Toolset,
    name: str,
    shown_input: dict[str, Any],
    arguments: Any,
    progress: ProgressSink | None,
) -> ToolResult:
    """One tool call, reported like a model call."""
    report(progress, ToolStarted(name, shown_input))
    started = time.monotonic()
    outcome: ToolResult | None = None
    try:
        outcome = toolset.call(name, arguments)
        return outcome
    finally:
        completed = outcome is not None
        error = shown_error(outcome) if outcome is not None and outcome.is_error else None
        seconds = time.monotonic() - started
        report(progress, ToolEnded(name, shown_input, seconds, error, completed=completed))


def shown_error(outcome: ToolResult) -> str:
    """A failed tool call as the person watching is told it: the problem in their words.
    A call the tool refused (bad input, the wrong moment) is the model's to fix, and its
    message is an instruction to the model, so the person only learns that it was refused."""
    from agent.toolset.failures import FailureKind

    failure = outcome.failure
    if failure is None or failure.kind is FailureKind.TOOL:
        return "refused; the agent was told why"
    return failure.problem or failure.error
