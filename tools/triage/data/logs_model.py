"""Typed CloudWatch Logs answers: the log stream listing the log checks count and read."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tools.aws.session import PagedResult, StoppedBy


@dataclass(frozen=True, slots=True)
class LogStreamListing:
    """The names of the first log streams under a prefix; `truncated` when there are more."""

    names: tuple[str, ...]
    truncated: bool
    stopped_by: StoppedBy = "end"

    @classmethod
    def from_paged(cls, listed: PagedResult) -> LogStreamListing:
        return cls(
            names=tuple(_stream_name(s) for s in listed.items),
            truncated=listed.truncated,
            stopped_by=listed.stopped_by,
        )


def _stream_name(stream: Any) -> str:
    return str(stream.get("logStreamName", "")) if isinstance(stream, dict) else ""


@dataclass(frozen=True, slots=True)
class LogEvent:
    """One FilterLogEvents line: its stream, text and time (ms since the epoch, 0 unknown)."""

    stream: str
    message: str
    timestamp: int

    @classmethod
    def from_api(cls, raw: dict[str, Any]) -> LogEvent:
        value = raw.get("timestamp")
        return cls(
            stream=str(raw.get("logStreamName") or ""),
            message=str(raw.get("message") or ""),
            timestamp=int(value) if isinstance(value, int | float) else 0,
        )


@dataclass(frozen=True, slots=True)
class LogEventListing:
    """Matching log lines, newest window first; `truncated` / `stopped_by` as the scan ended
    (see `LogReads.recent_log_events`)."""

    items: tuple[LogEvent, ...]
    truncated: bool
    stopped_by: StoppedBy = "end"


@dataclass(frozen=True, slots=True)
class LogScan:
    """One log check's read of its streams, handed to its judge whole: the matching lines
    (newest window first), the stream names listed under the prefix (None: not listed), the
    node in focus, how the line scan ended, and the node statuses (instance id -> status;
    None: unknown) that tell current failures from history."""

    events: tuple[LogEvent, ...] = ()
    streams: tuple[str, ...] | None = None
    streams_truncated: bool = False
    node: str | None = None
    truncated: bool = False
    stopped_by: StoppedBy = "end"
    statuses: Mapping[str, str] | None = None

    @property
    def current(self) -> frozenset[str] | None:
        """The instance ids the cluster has now; None when the node list is unknown."""
        return None if self.statuses is None else frozenset(self.statuses)
