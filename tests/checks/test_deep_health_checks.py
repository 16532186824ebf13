"""Deep health check results: the rule over typed lines, the CloudWatch judge on literal
scans and the node judge on the probe's samples."""

from __future__ import annotations

from cluster_simulator.base import RECORDED_AT
from cluster_simulator.node_samples import deep_health_check as samples
from tools.checks.deep_health_checks import (
    DhcKind,
    dhc_verdict,
    judge_dhc_logs,
    judge_node_dhc,
)
from tools.findings import Priority, Status
from tools.parsers.deep_health_check import DhcLine, parse_dhc_line, parse_dhc_log
from tools.triage.data.logs_model import LogEvent, LogScan

NODE = "i-0123456789abcdef0"
GONE = "i-0fedcba9876543210"


def _lines(*texts: str) -> list[DhcLine]:
    return [line for t in texts if (line := parse_dhc_line(t)) is not None]


def test_the_worst_outcome_wins() -> None:
    ok = "2024-08-20T21:54:58Z info stress-ng success"
    reboot = "2024-08-20T22:25:02Z info DCGM summary replacementRequired: false rebootRequired:true"
    failed = "2024-08-20T22:26:28Z error EFA Loopback check failed for device: rdmap0s29"
    assert dhc_verdict(_lines(ok)).kind is DhcKind.PASSED
    assert dhc_verdict(_lines(ok, failed)).kind is DhcKind.FAILED
    assert dhc_verdict(_lines(ok, failed, reboot)).kind is DhcKind.REBOOT
    assert dhc_verdict(_lines("2024-08-20T21:53:58Z info Executing check")).kind is DhcKind.NOTHING


def _event(message: str, stream: str = "DeepHealthCheckResults/abc", ts: int = 1) -> LogEvent:
    return LogEvent(stream=stream, message=message, timestamp=ts)


def test_cloudwatch_results_per_instance() -> None:
    scan = LogScan(
        events=(
            _event(samples.cloudwatch_faulty(NODE, RECORDED_AT, "p5.48xlarge")),
            _event(samples.cloudwatch_faulty(GONE, RECORDED_AT, "p5.48xlarge")),
        ),
        streams=("DeepHealthCheckResults/abc",),
        statuses={NODE: "Failure"},
    )
    findings = judge_dhc_logs(scan)
    by_resource = {f.resources[0]: f for f in findings}
    assert (by_resource[NODE].status, by_resource[NODE].priority) == (Status.FAIL, Priority.P0)
    assert by_resource[NODE].section == "G.1.b"
    assert by_resource[GONE].status is Status.INFO  # the cluster no longer has it
    assert by_resource[GONE].message.startswith("History:")


def test_cloudwatch_focus_keeps_the_node_and_unnamed_lines() -> None:
    scan = LogScan(
        events=(
            _event(samples.cloudwatch_faulty(GONE, RECORDED_AT, "p5.48xlarge")),
            _event('{"level":"info","ts":"2024-06-18T21:15:22Z","msg":"EFA check passed"}'),
        ),
        streams=("DeepHealthCheckResults/abc",),
        node=NODE,
    )
    findings = judge_dhc_logs(scan)
    assert [f.status for f in findings] == [Status.PASS]


def test_cloudwatch_without_streams_or_log_group() -> None:
    [none] = judge_dhc_logs(LogScan(streams=()))
    assert none.status is Status.INFO
    assert "No DeepHealthCheckResults/*" in none.message
    [no_group] = judge_dhc_logs(None)
    assert no_group.status is Status.INFO
    [quiet] = judge_dhc_logs(LogScan(streams=("DeepHealthCheckResults/abc",)))
    assert quiet.status is Status.INFO
    assert "no result line" in quiet.message


def test_cloudwatch_capped_scan_says_so() -> None:
    scan = LogScan(
        events=(_event(samples.cloudwatch_faulty(NODE, RECORDED_AT, "p5.48xlarge")),),
        streams=("DeepHealthCheckResults/abc",),
        truncated=True,
        stopped_by="cap",
    )
    statuses = [(f.status, f.priority) for f in judge_dhc_logs(scan, cap=1)]
    assert (Status.WARN, Priority.P2) in statuses


def test_node_log_verdicts() -> None:
    def judged(text: str) -> tuple[Status, Priority | None]:
        finding = judge_node_dhc(NODE, NODE, parse_dhc_log(text))
        return finding.status, finding.priority

    assert judged(samples.node_log("pass")) == (Status.PASS, None)
    assert judged(samples.node_log("replace")) == (Status.FAIL, Priority.P0)
    assert judged(samples.node_log("reboot")) == (Status.FAIL, Priority.P1)
    assert judged(samples.node_log("failed")) == (Status.WARN, Priority.P1)
    assert judged(samples.node_log_missing()) == (Status.INFO, None)
    assert judged("") == (Status.INFO, None)


def test_node_log_failures_suggest_a_retest() -> None:
    finding = judge_node_dhc(NODE, NODE, parse_dhc_log(samples.node_log("reboot")))
    assert "StartClusterHealthCheck" in finding.message
    missing = judge_node_dhc(NODE, NODE, parse_dhc_log(samples.node_log_missing()))
    assert "not a pass" in missing.message
