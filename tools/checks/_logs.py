"""Shared pieces of the checks that read the cluster's CloudWatch log streams."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tools.findings import Finding, info
from tools.triage.data.logs_model import LogEvent

if TYPE_CHECKING:
    from tools.triage.data import ClusterData


def stream_parts(stream: str) -> tuple[str, str]:
    """(group, instance id) of `<Prefix>/<group>/<instance-id>`; blanks for other shapes."""
    parts = stream.split("/")
    if len(parts) >= 3:
        return parts[-2], parts[-1]
    return "", parts[-1] if parts else ""


def no_log_group(check: str, section: str, what: str) -> Finding:
    """One INFO instead of a second WARN: the cloudwatch-logs check reports the gap."""
    return info(
        check,
        section,
        f"{what} not read: the cluster has no CloudWatch log group "
        "(see the cloudwatch-logs finding)",
    )


def node_stream_prefix(prefix: str, group: str | None, node: str | None) -> str:
    """`<Prefix>/<group>/<instance-id>` when a node and its group are known, else `prefix`
    (every stream, filtered by instance in Python)."""
    if node and group:
        return f"{prefix}{group}/{node}"
    return prefix


def stream_coverage(
    check: str,
    section: str,
    label: str,
    streams: list[str],
    node: str | None,
    truncated: bool = False,
) -> Finding:
    """INFO: how many `label` streams exist (for `node` only when one is in focus); "at
    least N" when the listing stopped early (`truncated`)."""
    mine = [s for s in streams if node is None or stream_parts(s)[1] == node]
    at_least = "At least " if truncated else ""
    return info(
        check,
        section,
        f"{at_least}{len(mine)} {label} log streams" + (f" for {node}" if node else ""),
        streams=len(mine),
        streams_truncated=truncated,
    )


@dataclass(frozen=True)
class StreamScan:
    """What a log check reads: the matching events, the streams, and the node statuses
    that tell current failures from history."""

    events: tuple[LogEvent, ...]
    streams: list[str]
    streams_truncated: bool
    node: str | None
    truncated: bool
    stopped_by: str
    statuses: dict[str, str] | None


def scan_streams(data: ClusterData, prefix: str, pattern: str, cap: int) -> StreamScan:
    """Read `<prefix><group>/<node>` streams (all of them without --node), newest first."""
    node = data.target.node
    group = data.instance_group_of(node) if node else None
    stream_prefix = node_stream_prefix(prefix, group, node)
    listed = data.log_stream_count(stream_prefix)
    scan = data.recent_log_events(stream_prefix, pattern, cap=cap)
    return StreamScan(
        events=scan.items,
        streams=list(listed.names),
        streams_truncated=listed.truncated,
        node=node,
        truncated=scan.truncated,
        stopped_by=scan.stopped_by,
        statuses=data.current_node_statuses(),
    )
