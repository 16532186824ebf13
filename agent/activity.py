"""What the agent is doing right now, for a live display (`agent.chat.progress`).

The loop reports the start and end of every model call and tool call, and each piece of
model text just before it is shown, to an optional `on_progress` callback. The events are
plain values: the loop knows nothing of terminals, and a display that is not there costs
one `None` check. End events are reported even when the call raised (a provider error,
Ctrl-C), so a display never outlives the work it shows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class ModelCallStarted:
    """A request to the model is about to be sent (the answer is not there yet)."""


@dataclass(frozen=True, slots=True)
class TextShown:
    """A piece of the model's text is about to be printed."""


@dataclass(frozen=True, slots=True)
class ModelCallEnded:
    seconds: float
    completed: bool
    """False when the call raised (provider error, interruption)."""


@dataclass(frozen=True, slots=True)
class ToolStarted:
    name: str
    input: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ToolEnded:
    name: str
    input: dict[str, Any]
    seconds: float
    error: str | None = None
    """The error the tool returned, None when it succeeded."""
    ran: bool = True
    """False when the call was answered "not run" (a proposal already ends the turn)."""
    completed: bool = True
    """False when the call raised instead of returning (an interruption)."""


ProgressEvent = ModelCallStarted | TextShown | ModelCallEnded | ToolStarted | ToolEnded
ProgressSink = Callable[[ProgressEvent], None]
