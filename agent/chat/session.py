"""What one chat holds: the agent, where its output goes, how it reads the user."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from agent.commands.conversation_output import AnswerPrinter
    from agent.loop import Agent
    from agent.transcript import Transcript


class LineReader(Protocol):
    """Where the chat's input comes from: a terminal prompt or piped lines."""

    interactive: bool

    def read_message(self) -> str | None:
        """The next message (a paste is one message), or None at the end of input."""
        ...

    def confirm(self, question: str) -> str | None:
        """The answer to a question the chat asks, or None at the end of input."""
        ...


@dataclass
class ChatSession:
    agent: Agent
    printer: AnswerPrinter
    transcript: Transcript
    reader: LineReader
    messages_sent: int = 0
    """Messages that reached the agent (model turns and re-triages)."""
    messages_failed: int = 0
    """Of those, the ones that ended in an error (provider error, interruption)."""
    notes: dict[str, object] = field(default_factory=dict)
    """What slash commands keep between calls (e.g. the numbered suggestions of /copy)."""

    @property
    def interactive(self) -> bool:
        return self.reader.interactive
