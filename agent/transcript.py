"""Conversation transcripts: one JSON object a line, secrets redacted before writing.

Every event of a conversation (user messages, model text, tool calls with their inputs
and results, suggestions, re-triages) is kept in memory and written on `/save` or
`--transcript`. Values pass the recorder's redaction, and the provider's own credentials
(the API key in the environment) are scrubbed by value as well, whatever their shape.
"""

from __future__ import annotations

import json
import os
import re
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


_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069\u200e\u200f]")


def display_safe(text: str) -> str:
    """Text that can be printed and saved: lone surrogates replaced (they cannot be
    encoded), bidirectional overrides removed (they make a terminal show text in another
    order than it runs), the provider's credentials hidden."""
    text = text.encode("utf-8", "replace").decode("utf-8")
    return hide_secrets(_BIDI.sub("", text))


def code_span_safe(text: str) -> str:
    """Cluster text to be shown inside a Markdown code span that a terminal renders: one
    line, and no backtick that could close the span early. Inside a code span nothing else
    is interpreted, so a hostile status message cannot forge a heading or a code block."""
    return " ".join(text.split()).replace("`", "'")


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
        # errors="replace": a lone surrogate from a model or a cluster cannot be encoded.
        path.write_text("\n".join(self.lines()) + "\n", encoding="utf-8", errors="replace")
