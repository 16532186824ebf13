"""How a conversation runs: the defaults, and the settings the commands fill from their
options."""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_MAX_TOKENS = 8_192
DEFAULT_TOOL_ROUNDS = 12
# Old tool results are trimmed once the conversation passes this many characters (~150k
# tokens at 4 characters a token), well inside a 200k-token window with the answer's room.
DEFAULT_CONTEXT_CHARS = 600_000


@dataclass(frozen=True, slots=True)
class AgentSettings:
    """How a conversation runs: the answer's token budget, the tool rounds per turn, the
    context size past which old tool results are trimmed, whether text streams, and the
    date the prompt gives as today (None: the real date)."""

    max_tokens: int = DEFAULT_MAX_TOKENS
    max_tool_rounds: int = DEFAULT_TOOL_ROUNDS
    context_chars: int = DEFAULT_CONTEXT_CHARS
    stream: bool = True
    today: str | None = None
