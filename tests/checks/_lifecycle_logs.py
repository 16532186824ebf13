"""Shared literals for the § D.2 lifecycle-log tests."""

from __future__ import annotations

from tools.triage.data.logs_model import LogEvent

STREAM = "LifecycleConfig/gpu-workers/i-0aaa"


def line(message: str, stream: str = STREAM, ts: int = 1) -> LogEvent:
    """A FilterLogEvents event, parsed as the read parses it."""
    return LogEvent.from_api({"logStreamName": stream, "message": message, "timestamp": ts})
