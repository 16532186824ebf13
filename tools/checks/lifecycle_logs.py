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

from tools.checks._lifecycle_families import LOG_FILTER, LogFamily
from tools.checks._lifecycle_standing import (
    FAILED_CLUSTER,
    ClusterOutcome,
    FamilyFailure,
    Lines,
    Standing,
    StreamHit,
    by_family,
    collect,
    family_failures,
)
from tools.checks._logs import (
    ScanWording,
    no_log_group,
    scan_streams,
    stream_coverage,
    stream_parts,
)
from tools.findings import Finding, Findings, Priority
from tools.parsers.lifecycle_failure import ScriptFailure, script_failure
from tools.registry import check
from tools.text import clip, quoted
from tools.triage.data import LOG_PAGE_BUDGET, ClusterData
from tools.triage.data.logs_model import LogScan

CHECK_LIFECYCLE_LOGS = "lifecycle-logs"
LIFECYCLE_LOGS_FINDINGS = Findings(CHECK_LIFECYCLE_LOGS, "D.2")

STREAM_PREFIX = "LifecycleConfig/"
LOG_CAP = 300
# The InstanceGroupStatus value of a group that failed.
FAILED_GROUP = "Failed"


def judge_lifecycle_logs(
    scan: LogScan | None,
    *,
    outcome: ClusterOutcome | None = None,
    cap: int = LOG_CAP,
    pages: int = LOG_PAGE_BUDGET,
) -> list[Finding]:
    """FAIL P0 per failure family found in LifecycleConfig streams, naming the instances.

    `scan` is None when the cluster has no log group. Its node statuses (None: unknown)
    tell the present from history: failures on instances the cluster no longer has are
    history (INFO). HyperPod fails a node whose lifecycle script exits non-zero, so a
    failure line on a node that is Running was not fatal: WARN P2. A truncated scan
    reports why it stopped: its `cap` of lines (WARN P2) or its page budget of `pages` per
    window (the scan is incomplete: INFO when nothing matched). An `outcome` of a failed
    create or update turns failures on instances no longer in the cluster into the root
    cause (FAIL P0).
    """
    if scan is None:
        return [no_log_group(LIFECYCLE_LOGS_FINDINGS.at("L"), "Lifecycle logs")]
    outcome = outcome or ClusterOutcome()
    findings: list[Finding] = []
    if scan.streams is not None:
        findings.append(
            stream_coverage(LIFECYCLE_LOGS_FINDINGS, "LifecycleConfig", scan.streams, scan)
        )
    hits, lines = collect(scan.events, scan.node)
    grouped = by_family(hits)
    for failure in family_failures(grouped, scan, outcome):
        findings.append(_failure_finding(failure, lines, outcome))
    wording = ScanWording(
        LIFECYCLE_LOGS_FINDINGS,
        scan,
        cap,
        pages,
        scan_name="Lifecycle log scan",
        lines="candidate lines",
        older="lines",
        period="the last week",
    )
    findings += wording.cut_short(matched=bool(grouped))
    if not grouped:
        findings.append(_clean(scan))
    return findings


def _failure_finding(failure: FamilyFailure, lines: Lines, outcome: ClusterOutcome) -> Finding:
    if failure.standing is Standing.RUNNING:
        return _running_finding(failure.family, failure.members)
    if failure.standing is Standing.ROOT_CAUSE:
        sample_stream = _sample(failure.members).stream
        script = script_failure(m for _, m in sorted(lines.get(sample_stream, [])))
        return _root_cause_finding(failure, script, outcome.cluster_status)
    history = failure.standing is Standing.HISTORY
    return _family_finding(failure.family, failure.members, history=history)


def _sample(members: Sequence[StreamHit]) -> StreamHit:
    """The newest hit (the later stream name on a tie): the line a finding quotes."""
    return max(members, key=lambda m: (m.moment, m.stream))


def _shown(instances: list[str]) -> str:
    return ", ".join(instances[:5]) + ("…" if len(instances) > 5 else "")


def _running_finding(family: LogFamily, members: Sequence[StreamHit]) -> Finding:
    """A failure line on nodes that are Running: HyperPod would have failed the node had
    the lifecycle script exited non-zero, so the step that failed was not fatal."""
    instances = sorted({stream_parts(m.stream)[1] for m in members})
    sample_stream, _, sample = _sample(members)
    return LIFECYCLE_LOGS_FINDINGS.warn(
        Priority.P2,
        f"Lifecycle scripts on {_shown(instances)} logged a failure but the "
        f"node{'s are' if len(instances) != 1 else ' is'} Running ({family.title}; the "
        f"scripts did not fail overall, a step may be missing): {quoted(sample)}",
        resources=instances,
        family=family.key,
        node_running=True,
        streams=[m.stream for m in members][:20],
        sample_stream=sample_stream,
        sample=clip(sample),
    )


def _root_cause_finding(
    failure: FamilyFailure, script_failed: ScriptFailure, cluster_status: str | None
) -> Finding:
    """FAIL P0: the lifecycle failure on instances a failed create or update left behind,
    with the failing script, line and exit status read from the newest such stream."""
    members, family = failure.members, failure.family
    instances = sorted({stream_parts(m.stream)[1] for m in members if stream_parts(m.stream)[1]})
    groups = sorted({stream_parts(m.stream)[0] for m in members if stream_parts(m.stream)[0]})
    sample_stream, _, sample = _sample(members)
    # The status and group names come from DescribeCluster: cluster text, clipped.
    what = (
        f"The cluster is {clip(cluster_status, 40)}"
        if cluster_status in FAILED_CLUSTER
        else f"Instance group {', '.join(clip(g, 63) for g in groups)} is Failed"
    )
    # The script name is the node's log text: clipped like the sample.
    script = clip(script_failed.describe(), 200)
    return LIFECYCLE_LOGS_FINDINGS.fail(
        Priority.P0,
        f"{what} and its lifecycle script failed on {_shown(instances) or 'unknown instances'} "
        f"(now gone from the cluster): {script} ({family.title}) — the root cause of the "
        f"failed create or update; fix the script and retry: {quoted(sample)}",
        resources=instances,
        family=family.key,
        root_cause=True,
        cluster_status=clip(cluster_status, 40) if cluster_status else None,
        groups=[clip(g, 63) for g in groups],
        script=clip(script_failed.script, 80) if script_failed.script else None,
        line=script_failed.line,
        exit_status=script_failed.exit_status,
        streams=[m.stream for m in members][:20],
        sample_stream=sample_stream,
        sample=clip(sample),
    )


def _family_finding(family: LogFamily, members: Sequence[StreamHit], *, history: bool) -> Finding:
    instances = sorted({stream_parts(m.stream)[1] for m in members if stream_parts(m.stream)[1]})
    sample_stream, _, sample = _sample(members)
    shown = _shown(instances)
    evidence: dict[str, Any] = {
        "family": family.key,
        "streams": [m.stream for m in members][:20],
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


def _clean(scan: LogScan) -> Finding:
    """The PASS when no family matched: how much of the week was read."""
    read = len(scan.events)
    incomplete = " (scan incomplete)" if scan.stopped_by == "pages" else ""
    return LIFECYCLE_LOGS_FINDINGS.passed(
        "No lifecycle script errors in the LifecycleConfig streams of the last week"
        + (f" for {scan.node}" if scan.node else "")
        + (f"{incomplete} (the newest {read} candidate lines read)" if scan.truncated else ""),
        candidate_lines=read,
    )


@check(LIFECYCLE_LOGS_FINDINGS, title="Lifecycle script logs", scope="node")
def lifecycle_logs(data: ClusterData) -> Iterable[Finding]:
    """Known lifecycle failure patterns in the LifecycleConfig CloudWatch streams."""
    if not data.log_group_exists():
        return judge_lifecycle_logs(None)
    scan = scan_streams(data, STREAM_PREFIX, LOG_FILTER, cap=LOG_CAP)
    failed_groups = frozenset(g.name for g in data.instance_groups() if g.status == FAILED_GROUP)
    outcome = ClusterOutcome(
        cluster_status=data.cluster().status or None, failed_groups=failed_groups
    )
    return judge_lifecycle_logs(scan, outcome=outcome)
