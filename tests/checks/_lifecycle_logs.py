"""Shared literals for the § D.2 lifecycle-log tests."""

from __future__ import annotations

from typing import Any

STREAM = "LifecycleConfig/gpu-workers/i-0aaa"


def line(message: str, stream: str = STREAM, ts: int = 1) -> dict[str, Any]:
    return {"logStreamName": stream, "message": message, "timestamp": ts}
