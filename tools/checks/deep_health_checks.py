"""§ G.1.b: deep health check results, where HyperPod documents them.

HyperPod's deep health checks (on start, or on demand through StartClusterHealthCheck) log
their results in CloudWatch, streams `DeepHealthCheckResults/<log_stream_id>` of the
cluster's log group, and on each node in
`/var/log/aws/clusters/sagemaker-deep-health-check.log` (SageMaker Developer Guide, "Deep
health checks"). Two checks read them:

- `deep-health-check-logs`: the CloudWatch streams of the last week (result lines only,
  newest window first, capped), per instance named in the line;
- `node-deep-health-check`: the tail of the node's own log (probe
  `deep_health_check_log`), on the probed nodes with EFA (GPU and Trainium types).

The rule, per instance (or node), on the lines `tools.parsers.deep_health_check` types.
Only the newest result counts: the documented format carries no run id, and one run writes
one line per test at times up to an hour apart, so runs cannot be told apart by time.
Each line reports on a subject (the documented test it names, and the device); the newest
line on a subject that says pass, fail or a verdict is that subject's result, and older
ones are history (INFO) — a passing re-test clears an earlier failure of the same test.
Lines that name no documented test share one subject, so there the newest such line wins.
Among the current results: a replacement verdict (`replacementRequired: true`,
"Encountered FaultyInstance. Replace the Instance") is FAIL P0; a reboot verdict
(`rebootRequired: true`) FAIL P1; an error or failed test without either verdict WARN P1;
only passes PASS. An instance the cluster no longer has is history (INFO): replacing it is
what the verdict leads to. A result belongs to the instance its stream names
(`DeepHealthCheckResults/<...>`); the id in the message counts only when the stream names
none (a connectivity line also names the peer it tested against); on the node, to the node
probed. A node with no log has not run a deep health check this tool can read: INFO, never
a pass. The wording of failures other than the documented examples is inferred (see the
parser).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from tools.checks._logs import ScanWording, no_log_group
from tools.checks._node_reads import node_label, read_probe, unreadable
from tools.findings import Finding, Findings, Priority
from tools.parsers.deep_health_check import (
    DhcLine,
    DhcLog,
    DhcOutcome,
    parse_dhc_line,
    parse_dhc_log,
)
from tools.probes.catalog import DHC_LOG_LINES, DHC_LOG_PATH
from tools.registry import check
from tools.remediation import Signal, advice, tagged
from tools.text import clip, quoted
from tools.triage.data import LOG_PAGE_BUDGET, LOG_WINDOW, ClusterData
from tools.triage.data.logs_model import LogScan

SECTION = "G.1.b"
CHECK_LOGS = "deep-health-check-logs"
LOGS_FINDINGS = Findings(CHECK_LOGS, SECTION)
CHECK_NODE = "node-deep-health-check"
NODE_FINDINGS = Findings(CHECK_NODE, SECTION)
DHC_PREFIX = "DeepHealthCheckResults/"
# CloudWatch filter terms (any of them) that select result lines: verdict flags, errors,
# failures and the documented "FaultyInstance" line. Terms are case-sensitive.
DHC_PATTERN = (
    "?replacementRequired ?rebootRequired ?FaultyInstance ?error ?Error ?ERROR "
    "?failed ?Failed ?FAILED ?passed ?success"
)
DHC_CAP = 200
QUOTED = 3
RETEST = "re-test it after the repair with StartClusterHealthCheck (§ G.1.b)"


class DhcKind(StrEnum):
    """The worst a set of result lines says."""

    REPLACE = "replace"
    REBOOT = "reboot"
    FAILED = "failed"
    PASSED = "passed"
    NOTHING = "nothing"  # no verdict, failure or pass among the lines


@dataclass(frozen=True, slots=True)
class DhcVerdict:
    kind: DhcKind
    lines: tuple[DhcLine, ...] = ()  # the current lines that show it, in log order
    # Failures and verdicts a later result on the same subject replaced, in log order.
    history: tuple[DhcLine, ...] = ()


_ORDER = (
    (DhcOutcome.REPLACE, DhcKind.REPLACE),
    (DhcOutcome.REBOOT, DhcKind.REBOOT),
    (DhcOutcome.FAILED, DhcKind.FAILED),
    (DhcOutcome.PASSED, DhcKind.PASSED),
)


def dhc_verdict(lines: Sequence[DhcLine]) -> DhcVerdict:
    """The worst current result among the lines (in time order), with the lines that show
    it: per subject (test, device) only the newest line that passes, fails or gives a
    verdict counts; the failures and verdicts it replaced are the history."""
    current: dict[tuple[str, str], tuple[int, DhcLine]] = {}
    history: list[DhcLine] = []
    for at, line in enumerate(lines):
        if line.outcome is DhcOutcome.CONTEXT:
            continue
        older = current.get(line.subject)
        if older is not None and older[1].outcome is not DhcOutcome.PASSED:
            history.append(older[1])
        current[line.subject] = (at, line)
    kept = [line for _, line in sorted(current.values(), key=lambda pair: pair[0])]
    for outcome, kind in _ORDER:
        shown = tuple(line for line in kept if line.outcome is outcome)
        if shown:
            return DhcVerdict(kind, shown, tuple(history))
    return DhcVerdict(DhcKind.NOTHING, (), tuple(history))


def _evidence(verdict: DhcVerdict) -> dict[str, Any]:
    lines = verdict.lines
    return {
        "verdict": verdict.kind.value,
        "count": len(lines),
        "lines": [clip(line.text) for line in lines[-QUOTED:]],
        "last_time": lines[-1].timestamp or None if lines else None,
    }


def _latest(verdict: DhcVerdict) -> str:
    last = verdict.lines[-1]
    return f"{quoted(last.text, 200)}{f' at {clip(last.timestamp, 40)}' if last.timestamp else ''}"


def word_dhc(
    findings: Findings, verdict: DhcVerdict, where: str, resource: str, *, history: bool = False
) -> Finding | None:
    """The finding for one instance's verdict; None for NOTHING (no finding of its own)."""
    evidence: dict[str, Any] = {"resources": [resource], "history": history, **_evidence(verdict)}
    if verdict.kind is DhcKind.NOTHING:
        return None
    if verdict.kind is DhcKind.PASSED:
        return findings.passed(f"{where}: deep health check results passed", **evidence)
    if history:
        return findings.info(
            f"History: deep health check of {where} said {verdict.kind.value} "
            f"({_latest(verdict)}); that instance is no longer in the cluster",
            **evidence,
        )
    if verdict.kind is DhcKind.REPLACE:
        return findings.fail(
            Priority.P0,
            f"{where}: the deep health check asks for the instance to be replaced: "
            f"{_latest(verdict)} — {advice(Signal.DHC_REPLACEMENT_REQUIRED)} (§ F.4)",
            **{**evidence, **tagged(Signal.DHC_REPLACEMENT_REQUIRED)},
        )
    if verdict.kind is DhcKind.REBOOT:
        return findings.fail(
            Priority.P1,
            f"{where}: the deep health check asks for a reboot: {_latest(verdict)} — "
            f"{advice(Signal.DHC_REBOOT_REQUIRED)} (§ F.4, § G.1.b)",
            **{**evidence, **tagged(Signal.DHC_REBOOT_REQUIRED)},
        )
    return findings.warn(
        Priority.P1,
        f"{where}: {len(verdict.lines)} failed deep health check line(s) without a "
        f"reboot or replacement verdict: {_latest(verdict)} — read the whole result, then "
        f"{RETEST}",
        **evidence,
    )


def word_history(findings: Findings, verdict: DhcVerdict, where: str, resource: str) -> Finding:
    """INFO: the earlier failures or verdicts that a later result of the same test replaced
    (a re-test after a repair); shown so the reader sees what happened, never acted on."""
    older = verdict.history
    last = older[-1]
    when = f" at {clip(last.timestamp, 40)}" if last.timestamp else ""
    return findings.info(
        f"History: {where} had {len(older)} earlier deep health check failure(s) or "
        f"verdict(s) that a later result of the same test replaced; the newest said "
        f"{last.outcome.value}: {quoted(last.text, 200)}{when}",
        resources=[resource],
        history=True,
        count=len(older),
        lines=[clip(line.text) for line in older[-QUOTED:]],
        last_time=last.timestamp or None,
    )


def word_instance(
    findings: Findings, verdict: DhcVerdict, where: str, resource: str, *, gone: bool = False
) -> list[Finding]:
    """The findings on one instance: its current verdict, then what it replaced."""
    found = word_dhc(findings, verdict, where, resource, history=gone)
    out = [found] if found is not None else []
    if verdict.history and not gone:
        out.append(word_history(findings, verdict, where, resource))
    return out


# -- CloudWatch: DeepHealthCheckResults/* ---------------------------------------------------


def _instance_of(line: DhcLine, stream: str) -> str:
    """The stream's own instance first: a connectivity result may name the peer it ran
    against, and that peer must not receive the verdict."""
    found = parse_dhc_line(stream)
    if found is not None and found.instance_id:
        return found.instance_id
    return line.instance_id


def lines_by_instance(scan: LogScan) -> dict[str, list[DhcLine]]:
    """The scan's result lines per instance id ("" when a line names none), in time order;
    with a node in focus, that node's lines and those that name no instance."""
    per: dict[str, list[tuple[int, DhcLine]]] = {}
    for event in scan.events:
        line = parse_dhc_line(event.message)
        if line is None:
            continue
        instance = _instance_of(line, event.stream)
        if scan.node is not None and instance not in ("", scan.node):
            continue
        per.setdefault(instance, []).append((event.timestamp, line))
    return {k: [line for _, line in sorted(v, key=lambda p: p[0])] for k, v in per.items()}


def judge_dhc_logs(
    scan: LogScan | None, *, cap: int = DHC_CAP, pages: int = LOG_PAGE_BUDGET
) -> list[Finding]:
    """One finding per instance with results (the worst of its lines); INFO when there are
    no result streams or lines; the scan's cut-short findings as the log checks word them."""
    if scan is None:
        return [no_log_group(LOGS_FINDINGS, "Deep health check results")]
    days = LOG_WINDOW.days
    findings: list[Finding] = []
    streams = scan.streams or ()
    if scan.streams is not None and not streams:
        return [
            LOGS_FINDINGS.info(
                f"No {DHC_PREFIX}* log streams: no deep health check has logged results for "
                "this cluster (none ran, or they are configured off; OnStartDeepHealthChecks)",
                streams=0,
            )
        ]
    current = scan.current
    per_instance = lines_by_instance(scan)
    for instance in sorted(per_instance):
        verdict = dhc_verdict(per_instance[instance])
        where = (
            f"Instance {instance}" if instance else "A deep health check result (no instance named)"
        )
        gone = bool(instance) and current is not None and instance not in current
        findings += word_instance(LOGS_FINDINGS, verdict, where, instance or "cluster", gone=gone)
    wording = ScanWording(
        LOGS_FINDINGS,
        scan,
        cap,
        pages,
        scan_name="Deep health check result scan",
        lines="result lines",
        older="results",
        period=f"the last {days} days",
    )
    findings += wording.cut_short(matched=bool(per_instance))
    if not findings:
        findings.append(
            LOGS_FINDINGS.info(
                f"{len(streams)} {DHC_PREFIX}* log stream(s), but no result line in the last "
                f"{days} days" + (f" for {scan.node}" if scan.node else ""),
                streams=len(streams),
            )
        )
    return findings


@check(LOGS_FINDINGS, title="Deep health check results (CloudWatch)", scope="node")
def deep_health_check_logs(data: ClusterData) -> Iterable[Finding]:
    """Deep health check result lines (DeepHealthCheckResults/* streams) of the last week:
    replacementRequired, rebootRequired and failed tests per instance."""
    if not data.log_group_exists():
        return judge_dhc_logs(None)
    listed = data.log_stream_count(DHC_PREFIX)
    read = data.recent_log_events(DHC_PREFIX, DHC_PATTERN, cap=DHC_CAP)
    return judge_dhc_logs(
        LogScan(
            events=read.items,
            streams=listed.names,
            streams_truncated=listed.truncated,
            node=data.target.node,
            truncated=read.truncated,
            stopped_by=read.stopped_by,
            statuses=data.current_node_statuses(),
        )
    )


# -- On the node: /var/log/aws/clusters/sagemaker-deep-health-check.log ---------------------


def judge_node_dhc(where: str, instance_id: str, log: DhcLog) -> list[Finding]:
    """The findings on one node's log: its verdict (and what it replaced), or why there is
    none to read. Every line is the probed node's, whatever instance id a line names."""
    if log.state in ("missing", "empty"):
        return [
            NODE_FINDINGS.info(
                f"{where}: {DHC_LOG_PATH} is {'missing' if log.state == 'missing' else 'empty'}"
                ": no deep health check result is kept on this node (none ran on it) — not a "
                "pass",
                resources=[instance_id],
            )
        ]
    if log.state == "denied":
        return [
            NODE_FINDINGS.info(
                f"{where}: {DHC_LOG_PATH} could not be read ({quoted(log.problem, 160)}); "
                "its result is unknown — read it with sudo (§ G.1.b)",
                resources=[instance_id],
            )
        ]
    verdict = dhc_verdict(log.lines)
    found = word_instance(NODE_FINDINGS, verdict, where, instance_id)
    if verdict.kind is not DhcKind.NOTHING:
        return found
    return [
        NODE_FINDINGS.info(
            f"{where}: no verdict, failure or pass in the last {DHC_LOG_LINES} lines of "
            f"{DHC_LOG_PATH}",
            resources=[instance_id],
            lines=len(log.lines),
        ),
        *found,
    ]


@check(NODE_FINDINGS, title="Deep health check log on the node", scope="node")
def node_deep_health_check(data: ClusterData) -> Iterable[Finding]:
    """The tail of /var/log/aws/clusters/sagemaker-deep-health-check.log on each probed
    node with EFA: replacementRequired, rebootRequired and failed tests."""
    findings: list[Finding] = []
    probe = "deep_health_check_log"
    for node in data.reachable_nodes():
        if node.instance_type and probe not in data.node_probe_names(node.instance_type):
            continue
        read = read_probe(node, probe)
        if read.problem is not None and not read.text.strip():
            findings.append(
                unreadable(NODE_FINDINGS, "the deep health check log", node, read.problem, probe)
            )
            continue
        findings += judge_node_dhc(node_label(node), node.instance_id, parse_dhc_log(read.text))
    if not findings:
        findings.append(
            NODE_FINDINGS.info(
                "No probed node with EFA (GPU or Trainium): no deep health check log to read"
            )
        )
    return findings
