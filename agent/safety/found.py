"""A command found in the model's text (`FoundCommand`) and where it was written (`Where`).

The leaf that the finders (`fence`, `inline`, `prose`) share; `extract` re-exports
`FoundCommand` as part of its public entry."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Where = Literal["fence", "inline", "prose"]


@dataclass(frozen=True)
class FoundCommand:
    """A command and the span [start, end) of the text that presents it.

    The span is the command's own words for prose (with its quotes when it is quoted), the
    whole code span with its backticks for inline, and the command's lines (from its first
    character, after any prompt) for a fence."""

    command: str
    start: int
    end: int
    where: Where
