"""Conversation transcripts: one JSON object a line, secrets redacted before writing.

Every event of a conversation (user messages, model text, tool calls with their inputs
and results, suggestions, re-triages) is kept in memory and written on `/save` or
`--transcript`. Values pass the recorder's redaction, and the provider's own credentials
(the API key in the environment) are scrubbed by value as well, whatever their shape. The
file is private to its user (mode 0600).

Format version 2 ends with a `state` line when the conversation can be resumed (`chat
--resume FILE`): the model messages, the workflow state and the token counts, redacted as
every other line, so a resumed conversation continues from the redacted text. The first
line is always `meta`; version 1 files (events only) are still read, not resumed.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
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
    "SavedTranscript",
    "Transcript",
    "TranscriptError",
    "code_span_safe",
    "display_safe",
    "environment_secrets",
    "hide_secrets",
    "scrub",
]

FORMAT = "hyperpod-debug-transcript"
VERSION = 2
# Version 2 added the final `state` line (what `chat --resume` continues from).
STATE = "state"
# A transcript of a long chat is a few MB; far more is not a file this program wrote.
MAX_BYTES = 64 * 1024 * 1024


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


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class Transcript:
    def __init__(
        self, meta: dict[str, Any] | None = None, events: list[dict[str, Any]] | None = None
    ) -> None:
        self.meta = {"format": FORMAT, "version": VERSION, **(meta or {})}
        # A resumed chat starts from the saved events: a new save holds the whole story.
        self.events: list[dict[str, Any]] = list(events or [])
        # What a resumed conversation needs (messages, state, usage), asked for at each save
        # so it is current; None writes no state line (such a file is read, not resumed).
        self.snapshot: Callable[[], dict[str, Any]] | None = None

    def add(self, event: dict[str, Any]) -> None:
        self.events.append({"time": _now(), **event})

    def lines(self) -> list[str]:
        secrets = environment_secrets()
        items = [{"type": "meta", **self.meta}, *self.events]
        if self.snapshot is not None:
            items.append({"type": STATE, "time": _now(), **self.snapshot()})
        return [json.dumps(scrub(item, secrets), ensure_ascii=False, default=str) for item in items]

    def save(self, path: Path, *, overwrite: bool = True) -> None:
        """Write the transcript readable by this user only (0600, whatever the umask).
        With ``overwrite=False`` an existing file is left alone (FileExistsError)."""
        write_private(path, "\n".join(self.lines()) + "\n", overwrite=overwrite)


class TranscriptError(Exception):
    """A file that cannot be read as a transcript; the message is one line for the user."""


@dataclass(frozen=True)
class SavedTranscript:
    """A transcript read back: its meta line, its events, and its state line (None when it
    has none: version 1, `ask --transcript`, or a file cut short before it)."""

    meta: dict[str, Any]
    events: list[dict[str, Any]]
    state: dict[str, Any] | None

    @property
    def version(self) -> int:
        version = self.meta.get("version")
        return version if isinstance(version, int) else 0


def read_transcript(path: Path) -> SavedTranscript:
    """Read a saved transcript; TranscriptError (one line) when the file is unreadable, not
    a transcript, or damaged. Nothing in it is followed: it is data."""
    from tools.display import argument

    shown = argument(path)
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_BYTES + 1)
    except OSError as exc:
        raise TranscriptError(f"cannot read {shown}: {exc.strerror or exc}") from None
    except ValueError:  # a NUL byte in the path
        raise TranscriptError(f"cannot read {shown}: not a usable file name") from None
    if len(raw) > MAX_BYTES:
        raise TranscriptError(
            f"{shown} is over {MAX_BYTES // (1024 * 1024)} MB: not a transcript this program wrote"
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise TranscriptError(
            f"{shown} is not a hyperpod-debug transcript (not UTF-8 text)"
        ) from None
    items: list[dict[str, Any]] = []
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except (ValueError, RecursionError):
            if not items:
                raise TranscriptError(f"{shown} is not a hyperpod-debug transcript") from None
            where = "its last line is cut short" if number == len(lines) else f"line {number}"
            raise TranscriptError(
                f"{shown} is damaged: {where} is not complete JSON (truncated or edited?)"
            ) from None
        if not isinstance(item, dict):
            if not items:
                raise TranscriptError(f"{shown} is not a hyperpod-debug transcript")
            raise TranscriptError(f"{shown} is damaged: line {number} is not a JSON object")
        items.append(item)
    if not items or items[0].get("type") != "meta" or items[0].get("format") != FORMAT:
        raise TranscriptError(f"{shown} is not a hyperpod-debug transcript (no meta line)")
    meta, rest = items[0], items[1:]
    states = [i for i, item in enumerate(rest) if item.get("type") == STATE]
    if states and states != [len(rest) - 1]:
        raise TranscriptError(f"{shown} is damaged: its state line is not the last line")
    state = rest.pop() if states else None
    return SavedTranscript(meta=meta, events=rest, state=state)
