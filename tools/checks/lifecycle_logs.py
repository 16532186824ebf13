"""§ D.2: known lifecycle-script failures in the LifecycleConfig CloudWatch streams.

CloudWatch is asked with one broad any-term pattern over the LifecycleConfig streams (only
the focused node's stream with --node), newest window first so a capped read keeps the
newest lines, and the returned lines are classified in Python (`_lifecycle_families`). The
families are deliberately narrow: a line is a failure only in an error context (a real
timeout error, a non-zero exit, "failed" not preceded by a zero count, an unhandled
KeyError); `set -x` traces and zero counts ("0 failed") are not failures. Failures on
instances the cluster no longer has are history (INFO), not a P0, while the cluster is
healthy: HyperPod replaced the node and moved on. When the cluster is Failed or RollingBack,
or the instance's group is Failed, those instances are gone because the create or update
failed, and their lifecycle failure is the root cause: a FAIL P0 naming the script, its line
and exit status. On a node that is Running (HyperPod fails a node whose lifecycle script
exits non-zero) a failure line was not fatal: WARN P2.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from tools.checks._lifecycle_families import (
    GENERIC,
    LOG_FAMILIES,
    LOG_FILTER,
    LogFamily,
    classify_line,
)
from tools.checks._logs import no_log_group, scan_streams, stream_coverage, stream_parts
from tools.findings import Finding, Findings, Priority
from tools.parsers.lifecycle_failure import script_failure
from tools.registry import check
from tools.text import clip, quoted
from tools.triage.data import LOG_PAGE_BUDGET, ClusterData
from tools.triage.data.logs_model import LogEvent

CHECK_LIFECYCLE_LOGS = "lifecycle-logs"
LIFECYCLE_LOGS_FINDINGS = Findings(CHECK_LIFECYCLE_LOGS, "D.2")

STREAM_PREFIX = "LifecycleConfig/"
LOG_CAP = 300
RUNNING = "Running"
# DescribeCluster ClusterStatus values of a create or update that did not complete (the
# botocore model's enum: Creating | Deleting | Failed | InService | RollingBack |
# SystemUpdating | Updating), and the InstanceGroupStatus value of a group that failed.
FAILED_CLUSTER = frozenset({"Failed", "RollingBack"})
FAILED_GROUP = "Failed"


_Hits = dict[str, dict[str, tuple[int, str]]]
_Lines = dict[str, list[tuple[int, str]]]


def _collect(events: Sequence[LogEvent], node: str | None) -> tuple[_Hits, _Lines]:
    """Per stream: each family's latest matching (timestamp, line), and every line read
    (for the failing script's name, line and exit status)."""
    hits: _Hits = {}
    lines: _Lines = {}
    for event in events:
        stream = event.stream
        if node is not None and stream_parts(stream)[1] != node:
            continue
        message = event.message
        lines.setdefault(stream, []).append((event.timestamp, message))
        family = classify_line(message)
        if family is None:
            continue
        moment = event.timestamp
        known = hits.setdefault(stream, {}).get(family.key)
        if known is None or moment >= known[0]:
            hits[stream][family.key] = (moment, message)
    return hits, lines


def judge_lifecycle_logs(
    events: Sequence[LogEvent],
    *,
    log_group_exists: bool = True,
    streams: list[str] | None = None,
    streams_truncated: bool = False,
    node: str | None = None,
    cap: int = LOG_CAP,
    truncated: bool | None = None,
    current: set[str] | None = None,
    statuses: dict[str, str] | None = None,
    stopped_by: str = "cap",
    pages: int = LOG_PAGE_BUDGET,
    cluster_status: str | None = None,
    failed_groups: set[str] | None = None,
) -> list[Finding]:
    """FAIL P0 per failure family found in LifecycleConfig streams, naming the instances.

    `statuses` (instance id -> current node status; None: unknown) or, without it,
    `current` (the instance ids the cluster has now) tell the present from history:
    failures on other instances are history (INFO). HyperPod fails a node whose lifecycle
    script exits non-zero, so a failure line on a node that is Running was not fatal:
    WARN P2. `truncated` says the scan was cut short (by default: `cap` lines were read);
    `stopped_by` why: "cap" (lines held, WARN P2) or "pages" (the page budget of `pages`
    per window ran out: the scan is incomplete, INFO when nothing matched).
    `cluster_status` (FAILED_CLUSTER) or `failed_groups` (names of Failed instance groups)
    turn failures on instances no longer in the cluster into the root cause (FAIL P0).
    """
    if statuses is not None:
        current = set(statuses)
    if not log_group_exists:
        return [no_log_group(CHECK_LIFECYCLE_LOGS, "L", "Lifecycle logs")]
    findings: list[Finding] = []
    if streams is not None:
        findings.append(
            stream_coverage(
                CHECK_LIFECYCLE_LOGS,
                "D.2",
                "LifecycleConfig",
                streams,
                node,
                truncated=streams_truncated,
            )
        )
    hits, lines = _collect(events, node)
    by_family: dict[str, list[tuple[str, int, str]]] = {}
    for stream, families in hits.items():
        specific = [k for k in families if k != GENERIC]
        for key in specific or [GENERIC]:
            moment, message = families[key]
            by_family.setdefault(key, []).append((stream, moment, message))
    for family in LOG_FAMILIES:
        members = by_family.get(family.key, [])
        now_members = [m for m in members if _is_current(m[0], current)]
        gone_members = [m for m in members if not _is_current(m[0], current)]
        running = [m for m in now_members if _status(m[0], statuses) == RUNNING]
        failing = [m for m in now_members if m not in running]
        if failing:
            findings.append(_family_finding(family, failing, history=False))
        if running:
            findings.append(_running_finding(family, running))
        failed = [m for m in gone_members if _failed_here(m[0], cluster_status, failed_groups)]
        history = [m for m in gone_members if m not in failed]
        if failed:
            findings.append(_root_cause_finding(family, failed, lines, cluster_status))
        if history:
            findings.append(_family_finding(family, history, history=True))
    if truncated is None:
        truncated = len(events) >= cap
    hint = "" if node else " (use --node to read one node's stream)"
    if truncated and stopped_by == "pages":
        text = (
            f"Lifecycle log scan incomplete after {pages} pages per time window "
            "(FilterLogEvents scans a slice of time per call and may return empty pages): "
            f"{len(events)} candidate lines read, some of the last week not scanned{hint}"
        )
        evidence: dict[str, Any] = {"pages": pages, "read": len(events), "stopped_by": "pages"}
        if by_family:
            findings.append(LIFECYCLE_LOGS_FINDINGS.warn(Priority.P2, text, **evidence))
        else:
            findings.append(LIFECYCLE_LOGS_FINDINGS.info(text, **evidence))
    elif truncated:
        findings.append(
            LIFECYCLE_LOGS_FINDINGS.warn(
                Priority.P2,
                f"Lifecycle log scan capped at {cap} candidate lines, newest first: older "
                f"lines of the last week were not read{hint}",
                cap=cap,
                read=len(events),
                stopped_by="cap",
            )
        )
    if not by_family:
        findings.append(
            LIFECYCLE_LOGS_FINDINGS.passed(
                "No lifecycle script errors in the LifecycleConfig streams of the last week"
                + (f" for {node}" if node else "")
                + (
                    (" (scan incomplete)" if stopped_by == "pages" else "")
                    + f" (the newest {len(events)} candidate lines read)"
                    if truncated
                    else ""
                ),
                candidate_lines=len(events),
            )
        )
    return findings


def _status(stream: str, statuses: dict[str, str] | None) -> str | None:
    instance = stream_parts(stream)[1]
    return (statuses or {}).get(instance) if instance else None


def _running_finding(family: LogFamily, members: list[tuple[str, int, str]]) -> Finding:
    """A failure line on nodes that are Running: HyperPod would have failed the node had
    the lifecycle script exited non-zero, so the step that failed was not fatal."""
    members = sorted(members)
    instances = sorted({stream_parts(s)[1] for s, _, _ in members})
    sample_stream, _, sample = max(members, key=lambda m: (m[1], m[0]))
    shown = ", ".join(instances[:5]) + ("…" if len(instances) > 5 else "")
    return LIFECYCLE_LOGS_FINDINGS.warn(
        Priority.P2,
        f"Lifecycle scripts on {shown} logged a failure but the "
        f"node{'s are' if len(instances) != 1 else ' is'} Running ({family.title}; the "
        f"scripts did not fail overall, a step may be missing): {quoted(sample)}",
        resources=instances,
        family=family.key,
        node_running=True,
        streams=[s for s, _, _ in members][:20],
        sample_stream=sample_stream,
        sample=clip(sample),
    )


def _failed_here(stream: str, cluster_status: str | None, failed_groups: set[str] | None) -> bool:
    """The stream's instance belongs to a create or update that failed: the whole cluster's,
    or its instance group's."""
    return cluster_status in FAILED_CLUSTER or stream_parts(stream)[0] in (failed_groups or ())


def _root_cause_finding(
    family: LogFamily,
    members: list[tuple[str, int, str]],
    lines: dict[str, list[tuple[int, str]]],
    cluster_status: str | None,
) -> Finding:
    """FAIL P0: the lifecycle failure on instances a failed create or update left behind,
    with the failing script, line and exit status read from the newest such stream."""
    members = sorted(members)
    instances = sorted({stream_parts(s)[1] for s, _, _ in members if stream_parts(s)[1]})
    groups = sorted({stream_parts(s)[0] for s, _, _ in members if stream_parts(s)[0]})
    sample_stream, _, sample = max(members, key=lambda m: (m[1], m[0]))
    failure = script_failure(m for _, m in sorted(lines.get(sample_stream, [])))
    shown = ", ".join(instances[:5]) + ("…" if len(instances) > 5 else "")
    # The status and group names come from DescribeCluster: cluster text, clipped.
    what = (
        f"The cluster is {clip(cluster_status, 40)}"
        if cluster_status in FAILED_CLUSTER
        else f"Instance group {', '.join(clip(g, 63) for g in groups)} is Failed"
    )
    # The script name is the node's log text: clipped like the sample.
    script = clip(failure.describe(), 200)
    return LIFECYCLE_LOGS_FINDINGS.fail(
        Priority.P0,
        f"{what} and its lifecycle script failed on {shown or 'unknown instances'} (now gone "
        f"from the cluster): {script} ({family.title}) — the root cause of the failed create "
        f"or update; fix the script and retry: {quoted(sample)}",
        resources=instances,
        family=family.key,
        root_cause=True,
        cluster_status=clip(cluster_status, 40) if cluster_status else None,
        groups=[clip(g, 63) for g in groups],
        script=clip(failure.script, 80) if failure.script else None,
        line=failure.line,
        exit_status=failure.exit_status,
        streams=[s for s, _, _ in members][:20],
        sample_stream=sample_stream,
        sample=clip(sample),
    )


def _is_current(stream: str, current: set[str] | None) -> bool:
    instance = stream_parts(stream)[1]
    return current is None or not instance or instance in current


def _family_finding(
    family: LogFamily, members: list[tuple[str, int, str]], *, history: bool
) -> Finding:
    members = sorted(members)
    instances = sorted({stream_parts(s)[1] for s, _, _ in members if stream_parts(s)[1]})
    sample_stream, _, sample = max(members, key=lambda m: (m[1], m[0]))
    shown = ", ".join(instances[:5]) + ("…" if len(instances) > 5 else "")
    evidence: dict[str, Any] = {
        "family": family.key,
        "streams": [s for s, _, _ in members][:20],
        "sample_stream": sample_stream,
        "sample": clip(sample),
    }
    if history:
        those = "that instance is" if len(instances) == 1 else "those instances are"
        return LIFECYCLE_LOGS_FINDINGS.info(
            f"History: lifecycle scripts on {shown} failed ({family.title}), but {those} no "
            f"longer in the cluster (replaced or removed): {quoted(sample)}",
            resources=instances,
            history=True,
            **evidence,
        )
    return LIFECYCLE_LOGS_FINDINGS.fail(
        Priority.P0,
        f"Lifecycle scripts on {shown or 'unknown instances'} failed "
        f"({family.title}): {quoted(sample)}",
        resources=instances,
        **evidence,
    )


@check(LIFECYCLE_LOGS_FINDINGS, title="Lifecycle script logs", scope="node")
def lifecycle_logs(data: ClusterData) -> Iterable[Finding]:
    """Known lifecycle failure patterns in the LifecycleConfig CloudWatch streams."""
    if not data.log_group_exists():
        return judge_lifecycle_logs([], log_group_exists=False)
    scan = scan_streams(data, STREAM_PREFIX, LOG_FILTER, cap=LOG_CAP)
    failed_groups = {g.name for g in data.instance_groups() if g.status == FAILED_GROUP}
    return judge_lifecycle_logs(
        scan.events,
        streams=scan.streams,
        streams_truncated=scan.streams_truncated,
        node=scan.node,
        truncated=scan.truncated,
        statuses=scan.statuses,
        stopped_by=scan.stopped_by,
        cluster_status=data.cluster().status or None,
        failed_groups=failed_groups,
    )
