"""The explain result: ranked sections, identifiers and a plain message (JSON contract).

Plain frozen dataclasses: the engine builds every value itself, so there is nothing to
validate, and `hyperpod-debug explain` starts without importing pydantic. ``to_json``
gives the JSON form, fields in declaration order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tools.explain.identifiers import Identifiers


@dataclass(frozen=True)
class Match:
    """One reference section the text points at, with the evidence for it.

    ``section``: reference section id, e.g. "G.2". ``score``: sum of matched signature
    weights, never negative; higher is stronger. ``why``: which signatures matched, quoting
    the matched text. ``reference``: path and anchor of the reference section.
    ``next_checks``: read-only commands to run next. ``signals``: ids of the signatures
    that matched. ``guess``: no signature matched this section; it is the closest by
    wording family (storage mounts, node access, collective hangs, ...). Guesses score
    below every real match, come after them, and their ``why`` starts with
    'No signature matched; closest by wording'.
    """

    section: str
    score: float
    title: str
    why: str
    reference: str
    next_checks: list[str]
    signals: list[str]
    guess: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "section": self.section,
            "score": float(self.score),
            "title": self.title,
            "why": self.why,
            "reference": self.reference,
            "next_checks": list(self.next_checks),
            "signals": list(self.signals),
            "guess": self.guess,
        }


@dataclass(frozen=True)
class ExplainResult:
    """``matches``, best first. ``truncated``: the input was cut to the size cap.
    ``ignored_lines``: lines that read as instructions to an assistant (for example
    'ignore previous instructions'); they were excluded from matching and not followed."""

    matches: list[Match]
    identifiers: Identifiers
    message: str
    truncated: bool = False
    ignored_lines: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "matches": [m.to_json() for m in self.matches],
            "identifiers": self.identifiers.to_json(),
            "message": self.message,
            "truncated": self.truncated,
            "ignored_lines": self.ignored_lines,
        }
