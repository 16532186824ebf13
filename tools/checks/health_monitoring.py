"""§ F.3: Health Monitoring Agent detections in the cluster's CloudWatch log group (§ L
checks that the group exists: tools/checks/cloudwatch_logs.py).

The Health Monitoring Agent (HMA) writes one stream per node,
`SagemakerHealthMonitoringAgent/<group>/<instance-id>`, into
`/aws/sagemaker/Clusters/<cluster-name>/<cluster-id>`; its detections carry the marker
`HealthMonitoringAgentDetectionEvent` and a JSON body with a reason (e.g. XidHardwareFailure)
and a node condition (e.g. NvidiaErrorReboot). Bodies are parsed leniently: JSON first,
regular expressions as a fallback, and the text is quoted as data. Detections on instances
the cluster no longer has are history (INFO): replacing the node is HMA's normal outcome.

FilterLogEvents answers oldest first, so the week is read newest window first (the last
hour, the rest of the day, the rest of the week) and a capped scan says so. With --node
only that node's stream is asked for (`SagemakerHealthMonitoringAgent/<group>/<node>`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from tools.checks._logs import (
    ScanWording,
    no_log_group,
    scan_streams,
    stream_coverage,
    stream_parts,
)
from tools.findings import Finding, Findings, Priority
from tools.registry import check
from tools.text import clip, quoted
from tools.triage.data import LOG_PAGE_BUDGET, LOG_WINDOW, ClusterData
from tools.triage.data.logs_model import LogEvent, LogScan

CHECK_HMA = "health-monitoring-agent"
HMA_FINDINGS = Findings(CHECK_HMA, "F.3")
HMA_PREFIX = "SagemakerHealthMonitoringAgent/"
DETECTION = "HealthMonitoringAgentDetectionEvent"
HMA_CAP = 200  # detection lines read per triage, newest first

_REASON = re.compile(r"\breason\"?\s*[:=]\s*\\*\"?(?P<v>[A-Za-z][\w.-]*)")
_CONDITION = re.compile(r"\bNode condition (?P<v>[A-Za-z][\w.-]*)")
_XID = re.compile(r"\bXid\b\s*(\([^)]{0,60}\))?\s*:?\s*(?P<v>\d{1,3})\b")


@dataclass(frozen=True)
class Detection:
    reason: str
    condition: str
    xid: str
    detail: str


def _details(body: dict[str, Any]) -> dict[str, Any]:
    for key, value in body.items():
        if key.strip().rstrip(":").strip().lower() == "details" and isinstance(value, dict):
            return value
    return {}


def parse_detection(message: str) -> Detection:
    """Reason, node condition, Xid and the inner message of one HMA detection line."""
    text = message or ""
    details: dict[str, Any] = {}
    start = text.find("{")
    if start >= 0:
        try:
            body = json.loads(text[start:])
        except ValueError:
            body = None
        if isinstance(body, dict):
            details = _details(body)
    inner = str(details.get("message") or "")
    reason = str(details.get("reason") or "")
    haystack = f"{inner} {text}"
    if not reason:
        match = _REASON.search(haystack)
        reason = match.group("v") if match else ""
    condition = _CONDITION.search(haystack)
    xid = _XID.search(haystack)
    return Detection(
        reason=reason or "unknown reason",
        condition=condition.group("v") if condition else "",
        xid=xid.group("v") if xid else "",
        detail=inner or text,
    )


@dataclass(frozen=True, slots=True)
class InstanceDetections:
    """The detections on one instance, oldest first; `history` when the cluster no longer
    has the instance (replacing it is what the detections lead to)."""

    instance: str
    group: str
    hits: tuple[tuple[LogEvent, Detection], ...]
    history: bool


def detections_by_instance(scan: LogScan) -> list[InstanceDetections]:
    """The detection lines of the scan per instance (the focused node's only), by instance
    id; lines that are no detection or name no instance are left out."""
    per_instance: dict[str, list[tuple[LogEvent, Detection]]] = {}
    groups: dict[str, str] = {}
    for event in scan.events:
        if DETECTION not in event.message:
            continue
        group, instance = stream_parts(event.stream)
        if not instance or (scan.node is not None and instance != scan.node):
            continue
        per_instance.setdefault(instance, []).append((event, parse_detection(event.message)))
        groups[instance] = group
    current = scan.current
    return [
        InstanceDetections(
            instance=instance,
            group=groups[instance],
            hits=tuple(sorted(per_instance[instance], key=lambda h: h[0].timestamp)),
            history=current is not None and instance not in current,
        )
        for instance in sorted(per_instance)
    ]


def judge_hma(
    scan: LogScan | None,
    *,
    window_days: int = LOG_WINDOW.days,
    cap: int = HMA_CAP,
    pages: int = LOG_PAGE_BUDGET,
) -> list[Finding]:
    """WARN P1 per instance with HMA detections in the window; INFO on stream coverage.

    `scan` is None when the cluster has no log group. Detections on instances the cluster
    no longer has (by the scan's node statuses, when known) are history (INFO), since
    replacing a faulty node is what HMA's detections lead to.

    A truncated scan makes counts lower bounds. Stopped by its `cap` of lines (newest
    first), a WARN P2 says older detections were not read; by its page budget of `pages`
    (FilterLogEvents may return empty pages) the scan is incomplete: WARN P2 when
    something matched, else INFO.
    """
    if scan is None:
        return [no_log_group(HMA_FINDINGS, "Health Monitoring Agent logs")]
    findings: list[Finding] = []
    if scan.streams is not None:
        findings.append(
            stream_coverage(HMA_FINDINGS, "Health Monitoring Agent", scan.streams, scan)
        )
    detected = detections_by_instance(scan)
    findings.extend(
        _instance_finding(found, truncated=scan.truncated, window_days=window_days)
        for found in detected
    )
    wording = ScanWording(
        HMA_FINDINGS,
        scan,
        cap,
        pages,
        scan_name="Health Monitoring Agent scan",
        lines="detection lines",
        older="detections",
        period=f"the last {window_days} days",
    )
    findings += wording.cut_short(matched=bool(detected))
    if not detected:
        findings.append(
            HMA_FINDINGS.passed(
                f"No Health Monitoring Agent detections in the last {window_days} days"
                + (f" for {scan.node}" if scan.node else "")
            )
        )
    return findings


def _instance_finding(found: InstanceDetections, *, truncated: bool, window_days: int) -> Finding:
    """WARN P1 for an instance the cluster has (or may have), INFO for one it no longer has."""
    hits = found.hits
    latest = hits[-1][1]
    reasons = sorted({d.reason for _, d in hits})
    conditions = sorted({d.condition for _, d in hits if d.condition})
    xids = sorted({d.xid for _, d in hits if d.xid}, key=int)
    extra = ", ".join([*conditions, *(f"Xid {x}" for x in xids)])
    count = len(hits)
    where = f"{found.instance} ({found.group})" if found.group else found.instance
    xid_hint = " (Xid meanings: § G.2)" if xids else ""
    times = f"{'at least ' if truncated else ''}{count} time{'s' if count != 1 else ''}"
    text = (
        f"Health Monitoring Agent flagged {where} {times} "
        f"in the last {window_days} days: {', '.join(reasons)}"
        + (f" ({extra})" if extra else "")
        + f"{xid_hint}; latest: {quoted(latest.detail)}"
    )
    evidence: dict[str, Any] = {
        "resources": [found.instance],
        "history": found.history,
        "instance_id": found.instance,
        "group": found.group,
        "count": count,
        "count_is_lower_bound": truncated,
        "reasons": reasons,
        "conditions": conditions,
        "xids": xids,
        "latest": clip(latest.detail),
        "latest_time": hits[-1][0].timestamp,
    }
    if found.history:
        return HMA_FINDINGS.info(
            f"History: {text}; that instance is no longer in the cluster (replaced or removed)",
            **evidence,
        )
    return HMA_FINDINGS.warn(Priority.P1, text, **evidence)


@check(HMA_FINDINGS, title="Health Monitoring Agent", scope="node")
def health_monitoring_agent(data: ClusterData) -> Iterable[Finding]:
    """HMA detections (HealthMonitoringAgentDetectionEvent) of the last week, per instance."""
    if not data.log_group_exists():
        return judge_hma(None)
    return judge_hma(scan_streams(data, HMA_PREFIX, DETECTION, cap=HMA_CAP))
