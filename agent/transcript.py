"""Conversation transcripts: one JSON object a line, secrets redacted before writing.

Every event of a conversation (user messages, model text, tool calls with their inputs
and results, suggestions, re-triages) is kept in memory and written on `/save` or
`--transcript`. Values pass the recorder's redaction, and the provider's own credentials
(the API key in the environment) are scrubbed by value as well, whatever their shape.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tools.redaction import REDACTED, redact

SECRET_VARIABLES = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_BEARER_TOKEN_BEDROCK",
)
FORMAT = "hyperpod-debug-transcript"
VERSION = 1


def environment_secrets() -> list[str]:
    return [v for name in SECRET_VARIABLES if len(v := os.environ.get(name, "")) >= 8]


def hide_secrets(text: str) -> str:
    """Model text as shown to the user: the provider's own credentials never appear, even
    when the model (or a pasted log it quotes) repeats them."""
    for secret in environment_secrets():
        text = text.replace(secret, REDACTED)
    return text


def scrub(value: Any, secrets: list[str]) -> Any:
    """Redact by pattern (the recorder's rules), then every known secret by value."""
    value = redact(value)
    if not secrets:
        return value
    text = json.dumps(value, ensure_ascii=False)
    for secret in secrets:
        text = text.replace(json.dumps(secret)[1:-1], REDACTED)
    return json.loads(text)


class Transcript:
    def __init__(self, meta: dict[str, Any] | None = None) -> None:
        self.meta = {"format": FORMAT, "version": VERSION, **(meta or {})}
        self.events: list[dict[str, Any]] = []

    def add(self, event: dict[str, Any]) -> None:
        stamped = {"time": datetime.now(UTC).isoformat(timespec="seconds"), **event}
        self.events.append(stamped)

    def lines(self) -> list[str]:
        secrets = environment_secrets()
        return [
            json.dumps(scrub(item, secrets), ensure_ascii=False, default=str)
            for item in [{"type": "meta", **self.meta}, *self.events]
        ]

    def save(self, path: Path) -> None:
        path.write_text("\n".join(self.lines()) + "\n", encoding="utf-8")
