"""The explain result: ranked sections, identifiers and a plain message (JSON contract)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from tools.explain.identifiers import Identifiers


class Match(BaseModel):
    """One reference section the text points at, with the evidence for it."""

    model_config = ConfigDict(frozen=True)

    section: str = Field(description='Reference section id, e.g. "G.2".')
    score: float = Field(ge=0, description="Sum of matched signature weights; higher is stronger.")
    title: str
    why: str = Field(description="Which signatures matched, quoting the matched text.")
    reference: str = Field(description="Path and anchor of the reference section.")
    next_checks: list[str] = Field(description="Read-only commands to run next.")
    signals: list[str] = Field(description="Ids of the signatures that matched.")
    guess: bool = Field(
        default=False,
        description="No signature matched this section: it is the closest by wording family"
        " (storage mounts, node access, collective hangs, ...). Guesses score below every"
        " real match, come after them, and their `why` starts with 'No signature matched;"
        " closest by wording'.",
    )


class ExplainResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    matches: list[Match] = Field(description="Best first.")
    identifiers: Identifiers
    message: str
    truncated: bool = Field(default=False, description="The input was cut to the size cap.")
    ignored_lines: int = Field(
        default=0,
        ge=0,
        description="Lines that read as instructions to an assistant (for example 'ignore"
        " previous instructions'); they were excluded from matching and not followed.",
    )

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json")
