"""The log judges over literal lines: the tests name a scan's fields as keywords, as the
judges once took them, and these helpers fold them into the one `LogScan` a judge takes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from typing import Any

from tools.checks import health_monitoring, lifecycle_logs
from tools.checks._lifecycle_standing import ClusterOutcome
from tools.findings import Finding
from tools.triage.data.logs_model import LogEvent, LogScan

_SCAN_FIELDS = {f.name for f in fields(LogScan)}


def log_scan(events: Sequence[LogEvent], options: dict[str, Any]) -> LogScan:
    """The scan of `events` with the scan fields in `options`, which are taken out of it.

    `current` (instance ids the cluster has, statuses unknown) becomes statuses that are
    none of them Running, which the judges read the same way."""
    current = options.pop("current", None)
    if current is not None and "statuses" not in options:
        options["statuses"] = dict.fromkeys(current, "")
    streams = options.pop("streams", None)
    scan_fields = {name: options.pop(name) for name in list(options) if name in _SCAN_FIELDS}
    return LogScan(
        events=tuple(events),
        streams=None if streams is None else tuple(streams),
        **scan_fields,
    )


def judge_hma(
    events: Sequence[LogEvent], *, log_group_exists: bool = True, **options: Any
) -> list[Finding]:
    """`health_monitoring.judge_hma` of a scan of `events` (None without a log group)."""
    scan = log_scan(events, options)
    return health_monitoring.judge_hma(scan if log_group_exists else None, **options)


def judge_lifecycle_logs(
    events: Sequence[LogEvent], *, log_group_exists: bool = True, **options: Any
) -> list[Finding]:
    """`lifecycle_logs.judge_lifecycle_logs` of a scan of `events`; without `truncated`,
    the scan was cut short when it read `cap` lines. `cluster_status` and `failed_groups`
    make the cluster's outcome."""
    cap = options.get("cap", lifecycle_logs.LOG_CAP)
    options.setdefault("truncated", len(events) >= cap)
    scan = log_scan(events, options)
    options["outcome"] = ClusterOutcome(
        cluster_status=options.pop("cluster_status", None),
        failed_groups=frozenset(options.pop("failed_groups", None) or ()),
    )
    return lifecycle_logs.judge_lifecycle_logs(scan if log_group_exists else None, **options)
