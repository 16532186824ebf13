"""Shared pieces of the cluster-events tests: a fixed clock and literal events."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from tools.findings import Status

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


def event(
    description: str,
    level: str = "Error",
    instance: str | None = "i-0aaa",
    minutes_ago: int = 30,
    event_id: str = "e-1",
    group: str = "gpu-workers",
) -> dict[str, Any]:
    data: dict[str, Any] = {
        "EventId": event_id,
        "ClusterName": "ml-cluster",
        "InstanceGroupName": group,
        "ResourceType": "Instance" if instance else "InstanceGroup",
        "EventTime": (NOW - timedelta(minutes=minutes_ago)).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "Description": description,
        "EventLevel": level,
    }
    if instance:
        data["InstanceId"] = instance
    return data


def problems(findings: list[Any]) -> list[Any]:
    return [f for f in findings if f.status in (Status.FAIL, Status.WARN)]
