"""Shared pieces of the cluster-events tests: a fixed clock and literal events."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from tools.checks import _event_history, events
from tools.checks._cluster_events import EventScan
from tools.findings import Finding, Status
from tools.triage.data.sagemaker_model import ClusterEvent, InstanceGroup, parse_events

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


def event(
    description: str,
    level: str = "Error",
    instance: str | None = "i-0aaa",
    *,
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


# The rules take parsed events and instance groups; the cases stay literal
# ListClusterEvents / DescribeClusterEvent / DescribeCluster answers, parsed here.


def parsed(raw: list[dict[str, Any]]) -> list[ClusterEvent]:
    return list(parse_events(raw))


def parsed_groups(groups: dict[str, Any] | None) -> dict[str, InstanceGroup] | None:
    """Instance groups by name; an entry that is no group is dropped, as DescribeCluster's
    parsing drops it."""
    if groups is None:
        return None
    return {n: InstanceGroup.from_api(g) for n, g in groups.items() if isinstance(g, dict)}


def judge_events(
    raw: list[dict[str, Any]],
    *,
    details: dict[str, dict[str, Any]] | None = None,
    groups: dict[str, Any] | None = None,
    **options: Any,
) -> list[Finding]:
    """`events.judge_events` of a scan of the literal events; the scan's fields, and the
    judge's `now` and `cap`, are named as keywords (`available=False`: no events)."""
    described = {k: ClusterEvent.from_api(d) for k, d in (details or {}).items()}
    judged = {name: options.pop(name) for name in ("now", "cap") if name in options}
    if not options.pop("available", True):
        return events.judge_events(None, **judged)
    scan = EventScan(
        events=tuple(parsed(raw)), details=described, groups=parsed_groups(groups), **options
    )
    return events.judge_events(scan, **judged)


def needs_detail(raw: list[dict[str, Any]], **options: Any) -> list[str]:
    return events.needs_detail(parsed(raw), **options)


def event_state(
    raw: dict[str, Any], nodes: dict[str, str] | None, groups: dict[str, Any] | None
) -> str:
    return _event_history.event_state(ClusterEvent.from_api(raw), nodes, parsed_groups(groups))


def group_recovered(raw: dict[str, Any] | None) -> bool:
    group = InstanceGroup.from_api(raw) if raw is not None else None
    return _event_history.group_recovered(group)


def failure_text(raw: dict[str, Any]) -> str:
    return ClusterEvent.from_api(raw).failure_text
