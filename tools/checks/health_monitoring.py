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
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from tools.checks._logs import no_log_group, scan_streams, stream_coverage, stream_parts
from tools.findings import Finding, Findings, Priority, info, warn
from tools.registry import check
from tools.text import clip, quoted
from tools.triage.data import LOG_PAGE_BUDGET, LOG_WINDOW, ClusterData
from tools.triage.data.logs_model import LogEvent

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


def judge_hma(
    events: Sequence[LogEvent],
    *,
    log_group_exists: bool = True,
    streams: list[str] | None = None,
    streams_truncated: bool = False,
    node: str | None = None,
    window_days: int = LOG_WINDOW.days,
    truncated: bool = False,
    cap: int = HMA_CAP,
    stopped_by: str = "cap",
    pages: int = LOG_PAGE_BUDGET,
    current: set[str] | None = None,
) -> list[Finding]:
    """WARN P1 per instance with HMA detections in the window; INFO on stream coverage.

    `current` holds the instance ids the cluster has now (None: unknown): detections on
    other instances are history (INFO), since replacing a faulty node is what HMA's
    detections lead to.

    `truncated` says the scan was cut short: counts are then lower bounds. Stopped by
    its `cap` of lines (newest first), a WARN P2 says older detections were not read;
    by its page budget (`stopped_by` "pages", FilterLogEvents may return empty pages)
    the scan is incomplete: WARN P2 when something matched, else INFO.
    """
    if not log_group_exists:
        return [no_log_group(CHECK_HMA, "F.3", "Health Monitoring Agent logs")]
    findings: list[Finding] = []
    if streams is not None:
        findings.append(
            stream_coverage(
                CHECK_HMA,
                "F.3",
                "Health Monitoring Agent",
                streams,
                node,
                truncated=streams_truncated,
            )
        )
    per_instance: dict[str, list[tuple[LogEvent, Detection]]] = {}
    groups: dict[str, str] = {}
    for event in events:
        message = event.message
        if DETECTION not in message:
            continue
        group, instance = stream_parts(event.stream)
        if not instance or (node is not None and instance != node):
            continue
        per_instance.setdefault(instance, []).append((event, parse_detection(message)))
        groups[instance] = group
    for instance in sorted(per_instance):
        hits = sorted(per_instance[instance], key=lambda h: h[0].timestamp)
        latest = hits[-1][1]
        reasons = sorted({d.reason for _, d in hits})
        conditions = sorted({d.condition for _, d in hits if d.condition})
        xids = sorted({d.xid for _, d in hits if d.xid}, key=int)
        extra = ", ".join([*conditions, *(f"Xid {x}" for x in xids)])
        count = len(hits)
        where = f"{instance} ({groups[instance]})" if groups[instance] else instance
        xid_hint = " (Xid meanings: § G.2)" if xids else ""
        times = f"{'at least ' if truncated else ''}{count} time{'s' if count != 1 else ''}"
        text = (
            f"Health Monitoring Agent flagged {where} {times} "
            f"in the last {window_days} days: {', '.join(reasons)}"
            + (f" ({extra})" if extra else "")
            + f"{xid_hint}; latest: {quoted(latest.detail)}"
        )
        history = current is not None and instance not in current
        if history:
            text = (
                f"History: {text}; that instance is no longer in the cluster (replaced or removed)"
            )
        findings.append(
            (info if history else _warn_p1)(
                CHECK_HMA,
                "F.3",
                text,
                resources=[instance],
                history=history,
                instance_id=instance,
                group=groups[instance],
                count=count,
                count_is_lower_bound=truncated,
                reasons=reasons,
                conditions=conditions,
                xids=xids,
                latest=clip(latest.detail),
                latest_time=hits[-1][0].timestamp,
            )
        )
    hint = "" if node else " (use --node to read one node's stream)"
    if truncated and stopped_by == "pages":
        text = (
            f"Health Monitoring Agent scan incomplete after {pages} pages per time window "
            "(FilterLogEvents scans a slice of time per call and may return empty pages): "
            f"{len(events)} detection lines read, some of the last {window_days} days not "
            f"scanned{hint}"
        )
        evidence: dict[str, Any] = {"pages": pages, "read": len(events), "stopped_by": "pages"}
        if per_instance:
            findings.append(HMA_FINDINGS.warn(Priority.P2, text, **evidence))
        else:
            findings.append(HMA_FINDINGS.info(text, **evidence))
    elif truncated:
        findings.append(
            HMA_FINDINGS.warn(
                Priority.P2,
                f"Health Monitoring Agent scan capped at {cap} detection lines, newest first: "
                f"older detections of the last {window_days} days were not read{hint}",
                cap=cap,
                read=len(events),
                stopped_by="cap",
            )
        )
    if not per_instance:
        findings.append(
            HMA_FINDINGS.passed(
                f"No Health Monitoring Agent detections in the last {window_days} days"
                + (f" for {node}" if node else "")
            )
        )
    return findings


def _warn_p1(check_id: str, section_id: str, message: str, **kwargs: Any) -> Finding:
    return warn(check_id, Priority.P1, section_id, message, **kwargs)


@check(HMA_FINDINGS, title="Health Monitoring Agent", scope="node")
def health_monitoring_agent(data: ClusterData) -> Iterable[Finding]:
    """HMA detections (HealthMonitoringAgentDetectionEvent) of the last week, per instance."""
    if not data.log_group_exists():
        return judge_hma([], log_group_exists=False)
    scan = scan_streams(data, HMA_PREFIX, DETECTION, cap=HMA_CAP)
    return judge_hma(
        scan.events,
        streams=scan.streams,
        streams_truncated=scan.streams_truncated,
        node=scan.node,
        truncated=scan.truncated,
        stopped_by=scan.stopped_by,
        current=set(scan.statuses) if scan.statuses is not None else None,
    )
