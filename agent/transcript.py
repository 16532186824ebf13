"""Conversation transcripts: one JSON object a line, secrets redacted before writing.

Every event of a conversation (user messages, model text, tool calls with their inputs
and results, suggestions, re-triages) is kept in memory and written on `/save` or
`--transcript`. Values pass the recorder's redaction, and the provider's own credentials
(the API key in the environment) are scrubbed by value as well, whatever their shape. The
file is private to its user (mode 0600).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tools.private import write_private
from tools.redaction import (
    REDACTED,
    SECRET_VARIABLES,
    environment_secrets,
    hide_environment_secrets,
    redact,
    redact_output,
)
from tools.visible import visible

__all__ = [
    "REDACTED",
    "SECRET_VARIABLES",
    "Transcript",
    "code_span_safe",
    "display_safe",
    "environment_secrets",
    "hide_secrets",
    "scrub",
]

FORMAT = "hyperpod-debug-transcript"
VERSION = 1


def display_safe(text: str) -> str:
    """Text that can be printed and saved: made `visible` (no escape sequence, no
    bidirectional or zero-width character, lone surrogates shown as "?") and redacted as
    every output is (`redact_output`: the environment's credentials and every pattern)."""
    return redact_output(visible(text))


def code_span_safe(text: str) -> str:
    """Cluster text to be shown inside a Markdown code span that a terminal renders: one
    line, and no backtick that could close the span early. Inside a code span nothing else
    is interpreted, so a hostile status message cannot forge a heading or a code block."""
    return " ".join(text.split()).replace("`", "'")


def hide_secrets(text: str) -> str:
    """Model text as shown to the user: the provider's own credentials never appear, even
    when the model (or a pasted log it quotes) repeats them."""
    return hide_environment_secrets(text)


def scrub(value: Any, secrets: list[str]) -> Any:
    """Every known secret by value (before a pattern could change part of it), then the
    recorder's rules: by key name and by pattern."""
    return redact(_by_value(value, secrets) if secrets else value)


def _by_value(value: Any, secrets: list[str]) -> Any:
    if isinstance(value, str):
        return hide_environment_secrets(value, secrets)
    if isinstance(value, dict):
        return {
            _by_value(str(key), secrets): _by_value(item, secrets) for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        return [_by_value(item, secrets) for item in value]
    return value


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

    def save(self, path: Path, *, overwrite: bool = True) -> None:
        """Write the transcript readable by this user only (0600, whatever the umask).
        With ``overwrite=False`` an existing file is left alone (FileExistsError)."""
        write_private(path, "\n".join(self.lines()) + "\n", overwrite=overwrite)
