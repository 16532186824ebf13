"""A turn that does not finish (Ctrl-C during a model or a tool call, a provider error)
is cancelled whole: the conversation goes back to how it was before it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent.providers.base import ProviderError

if TYPE_CHECKING:
    from agent.loop.conversation import Agent
    from agent.safety.model import Suggestion


@dataclass(frozen=True, slots=True)
class TurnStart:
    """The conversation as a turn found it."""

    messages: int
    pending: list[Suggestion]


def turn_start(agent: Agent) -> TurnStart:
    return TurnStart(messages=len(agent.messages), pending=list(agent.state.pending))


@contextmanager
def whole_or_not_at_all(agent: Agent, start: TurnStart, said: str) -> Iterator[None]:
    """Roll the turn back if the block raises ProviderError or KeyboardInterrupt. Left in
    place, a tool call without its result would make every later request a 400."""
    try:
        yield
    except ProviderError:
        roll_back(agent, start)
        raise
    except KeyboardInterrupt:
        roll_back(agent, start)
        agent.log_event({"type": "interrupted", "text": said})
        raise


def roll_back(agent: Agent, start: TurnStart) -> None:
    """The conversation as it was before the turn: its messages (so the next request
    is valid) and its pending suggestions (one the user never saw cannot wait for them).
    Triage reports made meanwhile stay: they are evidence of the cluster, not of the
    turn."""
    del agent.messages[start.messages :]
    agent.state.pending = start.pending
    agent.state.turn_suggestions = []
