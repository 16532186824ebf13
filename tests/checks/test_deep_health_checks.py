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
from tools.remediation import EVIDENCE_KEY, Signal
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
        [finding] = judge_node_dhc(NODE, NODE, parse_dhc_log(text))
        return finding.status, finding.priority

    assert judged(samples.node_log("pass")) == (Status.PASS, None)
    assert judged(samples.node_log("replace")) == (Status.FAIL, Priority.P0)
    assert judged(samples.node_log("reboot")) == (Status.FAIL, Priority.P1)
    assert judged(samples.node_log("failed")) == (Status.WARN, Priority.P1)
    assert judged(samples.node_log_missing()) == (Status.INFO, None)
    assert judged("") == (Status.INFO, None)


def test_node_log_failures_suggest_a_retest() -> None:
    [finding] = judge_node_dhc(NODE, NODE, parse_dhc_log(samples.node_log("reboot")))
    assert "StartClusterHealthCheck" in finding.message
    [missing] = judge_node_dhc(NODE, NODE, parse_dhc_log(samples.node_log_missing()))
    assert "not a pass" in missing.message


# -- The newest result per test wins; older failures and verdicts are history ---------------

DCGM_REBOOT = (
    "2024-08-20T22:25:02Z\terror\tDCGM diagnostic health summary: dcgmCheckLevel: 4 "
    "gpuDeviceIds: [2330] replacementRequired: false rebootRequired:true"
)
DCGM_REPLACE = DCGM_REBOOT.replace("replacementRequired: false", "replacementRequired: true")
DCGM_RETEST_OK = (
    "2024-08-21T01:10:40Z\tinfo\tDCGM diagnostic health summary: dcgmCheckLevel: 4 "
    "gpuDeviceIds: [2330] replacementRequired: false rebootRequired:false"
)
EFA_OK = "2024-08-21T01:12:00Z\tinfo\tEFA Loopback check passed for device: rdmap0s29"
EFA_BAD_0 = "2024-08-20T22:26:28Z\terror\tEFA Loopback check failed for device: rdmap0s29"
EFA_OK_16 = "2024-08-20T22:26:30Z\tinfo\tEFA Loopback check passed for device: rdmap16s27"


def _node(*lines: str) -> list[tuple[Status, Priority | None, str]]:
    log = parse_dhc_log("\n".join(lines))
    return [(f.status, f.priority, f.message) for f in judge_node_dhc(NODE, NODE, log)]


def test_a_passing_retest_clears_an_earlier_reboot_verdict() -> None:
    [current, history] = _node(DCGM_REBOOT, DCGM_RETEST_OK, EFA_OK)
    assert current[:2] == (Status.PASS, None)
    assert history[:2] == (Status.INFO, None)
    assert history[2].startswith("History:")
    assert "rebootRequired:true" in history[2]


def test_a_stale_replacement_verdict_is_history_not_a_replace_first_finding() -> None:
    log = parse_dhc_log("\n".join((DCGM_REPLACE, DCGM_RETEST_OK)))
    findings = judge_node_dhc(NODE, NODE, log)
    assert [f.status for f in findings] == [Status.PASS, Status.INFO]
    # No finding carries the remediation row that waives replace-before-reboot.
    assert not any(EVIDENCE_KEY in f.evidence for f in findings)
    replace = judge_node_dhc(NODE, NODE, parse_dhc_log(DCGM_REPLACE))
    assert replace[0].evidence[EVIDENCE_KEY] == Signal.DHC_REPLACEMENT_REQUIRED.value


def test_a_later_verdict_still_counts_and_other_tests_do_not_clear_it() -> None:
    # Same run: the DCGM summary asks for replacement, EFA passes afterwards.
    assert _node(DCGM_RETEST_OK, DCGM_REPLACE.replace("2024-08-20", "2024-08-22"), EFA_OK)[0][
        :2
    ] == (Status.FAIL, Priority.P0)
    assert _node(DCGM_REPLACE, EFA_OK)[0][:2] == (Status.FAIL, Priority.P0)


def test_a_pass_on_another_device_does_not_clear_a_failure() -> None:
    [warn] = _node(EFA_BAD_0, EFA_OK_16)
    assert warn[:2] == (Status.WARN, Priority.P1)
    [passed, history] = _node(EFA_BAD_0, EFA_OK)
    assert (passed[0], history[0]) == (Status.PASS, Status.INFO)


def test_lines_naming_no_test_newest_wins() -> None:
    old = '{"level":"error","ts":"2024-06-18T21:15:22Z","msg":"ERROR: check aborted"}'
    new = '{"level":"info","ts":"2024-06-19T21:15:22Z","msg":"All checks passed"}'
    verdict = dhc_verdict(_lines(old, new))
    assert verdict.kind is DhcKind.PASSED
    assert [line.text for line in verdict.history] == ["ERROR: check aborted"]


def test_cloudwatch_retest_per_instance() -> None:
    faulty = samples.cloudwatch_faulty(NODE, RECORDED_AT, "p5.48xlarge")
    retest = (
        '{"level":"info","ts":"2024-06-19T21:15:22Z","msg":"Nccl test successful. '
        "Summary: NcclMaxAlgoBw: 1.19, InstanceId: " + NODE + '"}'
    )
    scan = LogScan(
        events=(_event(faulty, ts=1), _event(retest, ts=2)),
        streams=("DeepHealthCheckResults/abc",),
        statuses={NODE: "Running"},
    )
    statuses = [(f.status, f.resources[0]) for f in judge_dhc_logs(scan)]
    assert statuses == [(Status.PASS, NODE), (Status.INFO, NODE)]


# -- The verdict lands on the instance the stream (or the node log) belongs to -------------

PEER = "i-0aaaaaaaaaaaaaaaa"


def test_the_streams_instance_wins_over_a_peer_named_in_the_message() -> None:
    line = samples.cloudwatch_faulty(PEER, RECORDED_AT, "p5.48xlarge")
    scan = LogScan(
        events=(_event(line, stream=f"DeepHealthCheckResults/{NODE}"),),
        streams=(f"DeepHealthCheckResults/{NODE}",),
        statuses={NODE: "Running", PEER: "Running"},
    )
    [finding] = judge_dhc_logs(scan)
    assert finding.resources == [NODE]
    assert (finding.status, finding.priority) == (Status.FAIL, Priority.P0)


def test_the_message_id_counts_when_the_stream_names_none() -> None:
    line = samples.cloudwatch_faulty(PEER, RECORDED_AT, "p5.48xlarge")
    scan = LogScan(
        events=(_event(line, stream="DeepHealthCheckResults/0c1d2e3f"),),
        streams=("DeepHealthCheckResults/0c1d2e3f",),
        statuses={NODE: "Running", PEER: "Running"},
    )
    [finding] = judge_dhc_logs(scan)
    assert finding.resources == [PEER]


def test_on_the_node_every_line_is_the_probed_nodes() -> None:
    peer_line = (
        "2024-08-20T23:22:43Z\terror\tEncountered FaultyInstance. Replace the Instance. "
        f"NCCL test against {PEER} below threshold"
    )
    [finding] = judge_node_dhc(NODE, NODE, parse_dhc_log(peer_line))
    assert finding.resources == [NODE]
    assert finding.status is Status.FAIL
