"""§ L / § F.3 rules of tools/checks/health_monitoring.py over literal CloudWatch Logs dicts."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from cluster_simulator import base
from cluster_simulator.world import World
from tools.aws.session import AwsAccess
from tools.checks.cloudwatch_logs import CHECK_CLOUDWATCH_LOGS, judge_log_group
from tools.checks.health_monitoring import (
    CHECK_HMA,
    HMA_CAP,
    health_monitoring_agent,
    parse_detection,
)
from tools.findings import Priority, Status
from tools.target import TriageTarget
from tools.triage.data import ClusterData
from tools.triage.data.logs_model import LogEvent

from ._log_scans import judge_hma

GROUP = "/aws/sagemaker/Clusters/ml/abc123def456"
STREAM = "SagemakerHealthMonitoringAgent/gpu-workers/i-0aaa"


def detection(
    reason: str = "XidHardwareFailure", xid: int = 79, condition: str = "NvidiaErrorReboot"
) -> str:
    inner = (
        f"Node condition {condition} is now: True, reason: {reason}, "
        f'message: "NVRM: Xid (PCI:0000:a8:00): {xid}, pid=<unknown>, GPU has fallen off the bus."'
    )
    return json.dumps(
        {
            "level": "info",
            "msg": "NPD caught event: %v",
            "details: ": {"severity": "warn", "reason": reason, "message": inner},
            "HealthMonitoringAgentDetectionEvent": "HealthEvent",
        }
    )


def raw_event(message: str, stream: str = STREAM, ts: int = 1) -> dict[str, Any]:
    return {"logStreamName": stream, "message": message, "timestamp": ts}


def event(message: str, stream: str = STREAM, ts: int = 1) -> LogEvent:
    """A FilterLogEvents event, parsed as the read parses it."""
    return LogEvent.from_api(raw_event(message, stream, ts))


def parsed(events: list[Any]) -> list[LogEvent]:
    """Events as the read keeps them: the objects among the answer's items, parsed."""
    return [LogEvent.from_api(e) for e in events if isinstance(e, dict)]


def test_log_group_present_passes() -> None:
    [finding] = judge_log_group(True, GROUP)
    assert finding.status is Status.PASS
    assert finding.check == CHECK_CLOUDWATCH_LOGS


def test_log_group_missing_warns_p2_in_l() -> None:
    [finding] = judge_log_group(False, GROUP)
    assert finding.status is Status.WARN
    assert finding.priority is Priority.P2
    assert finding.section == "L"
    assert GROUP in finding.message
    assert finding.message.startswith("No CloudWatch logs")


def test_parse_json_detection() -> None:
    parsed = parse_detection(detection())
    assert parsed.reason == "XidHardwareFailure"
    assert parsed.condition == "NvidiaErrorReboot"
    assert parsed.xid == "79"
    assert "fallen off the bus" in parsed.detail


def test_parse_with_a_console_timestamp_prefix() -> None:
    parsed = parse_detection("2026-11-20T09:00:00.000Z " + detection(xid=48))
    assert (parsed.reason, parsed.xid) == ("XidHardwareFailure", "48")


def test_parse_falls_back_to_regex_on_broken_json() -> None:
    broken = detection()[:-20]
    parsed = parse_detection(broken)
    assert parsed.reason == "XidHardwareFailure"
    assert parsed.condition == "NvidiaErrorReboot"


def test_parse_garbage() -> None:
    parsed = parse_detection("HealthMonitoringAgentDetectionEvent")
    assert parsed.reason == "unknown reason"
    assert parse_detection("").xid == ""


def test_detections_warn_p1_per_instance_with_reason_and_count() -> None:
    other = "SagemakerHealthMonitoringAgent/gpu-workers/i-0bbb"
    findings = judge_hma(
        [
            event(detection(), ts=1),
            event(detection(xid=48), ts=2),
            event(detection("NvidiaGpuCountMismatch", xid=0), stream=other),
            event("GPU health check passed"),
        ],
        streams=[STREAM, other],
    )
    warns = [f for f in findings if f.status is Status.WARN]
    assert [f.resources for f in warns] == [["i-0aaa"], ["i-0bbb"]]
    first = warns[0]
    assert first.priority is Priority.P1
    assert first.section == "F.3"
    assert first.check == CHECK_HMA
    assert first.evidence["count"] == 2
    assert first.evidence["xids"] == ["48", "79"]
    assert "XidHardwareFailure" in first.message
    assert "2 times" in first.message
    assert "NvidiaErrorReboot" in first.message
    assert findings[0].status is Status.INFO
    assert "2 Health Monitoring Agent" in findings[0].message


def test_no_detections_passes() -> None:
    findings = judge_hma([event("GPU health check passed")], streams=[STREAM])
    assert [f.status for f in findings] == [Status.INFO, Status.PASS]


def test_focus_node_filters() -> None:
    findings = judge_hma([event(detection())], node="i-0other")
    assert [f.status for f in findings] == [Status.PASS]


def test_missing_log_group_is_info() -> None:
    [finding] = judge_hma([], log_group_exists=False)
    assert finding.status is Status.INFO


def test_hostile_detection_text_is_clipped() -> None:
    hostile = detection().replace("GPU has fallen off the bus.", "A" * 3000 + "\\n\\u001b[2J")
    [finding] = [f for f in judge_hma([event(hostile)]) if f.status is Status.WARN]
    assert "\n" not in finding.message
    assert "\x1b" not in finding.message
    assert len(finding.evidence["latest"]) <= 200


def test_garbage_events_do_not_crash() -> None:
    findings = judge_hma(parsed([{}, {"message": "HealthMonitoringAgentDetectionEvent"}, "x"]))
    assert [f.status for f in findings] == [Status.PASS]  # no stream, no instance to name


def test_latest_is_the_newest_detection_whatever_the_order() -> None:
    findings = judge_hma(
        [
            event(detection(xid=79), ts=300),  # newest window first ...
            event(detection(xid=48), ts=100),  # ... then older ones, oldest first
            event(detection(xid=94), ts=200),
        ]
    )
    [finding] = [f for f in findings if f.status is Status.WARN]
    assert finding.evidence["latest_time"] == 300
    assert "Xid (PCI:0000:a8:00): 79" in finding.evidence["latest"]


def test_capped_scan_counts_at_least_and_warns_p2() -> None:
    findings = judge_hma([event(detection(), ts=n) for n in range(3)], truncated=True, cap=3)
    flagged, capped = [f for f in findings if f.status is Status.WARN]
    assert flagged.priority is Priority.P1
    assert "at least 3 times" in flagged.message
    assert flagged.evidence["count_is_lower_bound"] is True
    assert capped.priority is Priority.P2
    assert capped.message.startswith("Health Monitoring Agent scan capped at 3")
    assert "--node" in capped.message


def test_uncapped_scan_counts_exactly() -> None:
    findings = judge_hma([event(detection())], truncated=False)
    [flagged] = [f for f in findings if f.status is Status.WARN]
    assert "1 time " in flagged.message
    assert "at least" not in flagged.message


def test_stream_count_is_a_lower_bound_when_the_listing_stopped() -> None:
    findings = judge_hma([], streams=[STREAM] * 100, streams_truncated=True)
    assert findings[0].message.startswith("At least 100 Health Monitoring Agent log streams")
    assert findings[0].evidence["streams_truncated"] is True


def test_garbage_timestamps_do_not_crash() -> None:
    soon = {**raw_event(detection()), "timestamp": "soon"}
    findings = judge_hma(parsed([soon, raw_event(detection(), ts=2)]))
    [flagged] = [f for f in findings if f.status is Status.WARN]
    assert flagged.evidence["latest_time"] == 2


# -- the registered check against a world -------------------------------------------------


def hma_data(world: World, node_id: str | None = None) -> ClusterData:
    target = TriageTarget(cluster=world.cluster["ClusterName"], region=world.region, node=node_id)
    return ClusterData(AwsAccess(world.region, replay=world), target, now=base.RECORDED_AT)


def requests_to(world: World, wanted: str) -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = []
    respond = world.respond

    def spy(service: str, operation: str, params: dict[str, Any]) -> Any:
        if operation == wanted:
            calls.append(dict(params))
        return respond(service, operation, params)

    world.respond = spy  # type: ignore[method-assign]
    return calls


def hma_stream(world: World, index: int) -> tuple[str, str]:
    node = world.nodes[index]
    group, instance = node["InstanceGroupName"], node["InstanceId"]
    return instance, f"SagemakerHealthMonitoringAgent/{group}/{instance}"


def detections(ago: timedelta, count: int, xid: int) -> list[dict[str, Any]]:
    moment = base.ms(base.RECORDED_AT - ago)
    return [{"timestamp": moment + n, "message": detection(xid=xid)} for n in range(count)]


def test_registered_check_with_node_asks_only_for_that_nodes_stream() -> None:
    world = base.healthy_eks()
    focused, focused_stream = hma_stream(world, 1)
    _, other_stream = hma_stream(world, 2)
    world.log_events[other_stream] = detections(timedelta(hours=2), 5, 79)
    world.log_events[focused_stream] = detections(timedelta(hours=3), 1, 48)
    filters = requests_to(world, "FilterLogEvents")
    findings = list(health_monitoring_agent(hma_data(world, focused)))
    assert {c["logStreamNamePrefix"] for c in filters} == {focused_stream}
    [flagged] = [f for f in findings if f.status is Status.WARN]
    assert flagged.resources == [focused]
    assert findings[0].message == f"1 Health Monitoring Agent log streams for {focused}"


def test_registered_check_keeps_the_newest_detections_when_capped() -> None:
    world = base.healthy_eks()
    old_node, old_stream = hma_stream(world, 1)
    new_node, new_stream = hma_stream(world, 2)
    world.log_events[old_stream] = detections(timedelta(days=3), HMA_CAP + 50, 48)
    world.log_events[new_stream] = detections(timedelta(minutes=20), 2, 79)
    findings = list(health_monitoring_agent(hma_data(world)))
    flagged = {f.resources[0]: f for f in findings if f.priority is Priority.P1}
    assert new_node in flagged  # the newest detections were read despite the week's noise
    assert "79" in flagged[new_node].evidence["xids"]
    assert old_node in flagged
    assert "at least" in flagged[old_node].message
    [capped] = [f for f in findings if f.priority is Priority.P2]
    assert capped.status is Status.WARN


def test_registered_check_counts_streams_with_a_small_page_budget() -> None:
    world = base.healthy_eks()
    group = world.log_groups[0]
    world.log_streams[group] += [
        f"SagemakerHealthMonitoringAgent/{base.GPU_GROUP}/i-0{n:016x}" for n in range(500, 800)
    ]
    pages = requests_to(world, "DescribeLogStreams")
    findings = list(health_monitoring_agent(hma_data(world)))
    assert len(pages) == 2
    assert findings[0].message.startswith("At least 100 Health Monitoring Agent log streams")


# -- a page budget is not an item cap ------------------------------------------------------


def test_scan_incomplete_after_pages_with_nothing_matched_is_info() -> None:
    findings = judge_hma([], truncated=True, stopped_by="pages", pages=5)
    assert not [f for f in findings if f.status in (Status.WARN, Status.FAIL)]
    [note] = [f for f in findings if f.status is Status.INFO]
    assert "scan incomplete after 5 pages" in note.message
    assert "capped" not in note.message


def test_scan_incomplete_after_pages_with_detections_warns_p2() -> None:
    findings = judge_hma([event(detection())], truncated=True, stopped_by="pages", pages=5)
    [incomplete] = [f for f in findings if f.evidence.get("stopped_by") == "pages"]
    assert (incomplete.status, incomplete.priority) == (Status.WARN, Priority.P2)
    [flagged] = [f for f in findings if f.priority is Priority.P1]
    assert "at least 1 time" in flagged.message


def empty_pages(world: World) -> None:
    """FilterLogEvents answers every call with an empty page and a fresh token, as it does
    while it scans slices of a large log group."""
    from tools.recorded.model import RecordedCall

    respond = world.respond

    def scan(service: str, operation: str, params: dict[str, Any]) -> Any:
        if operation != "FilterLogEvents":
            return respond(service, operation, params)
        step = int(str(params.get("nextToken") or "0")) + 1
        page = {"events": [], "searchedLogStreams": [], "nextToken": str(step)}
        return RecordedCall(service=service, operation=operation, params={}, response=page)

    world.respond = scan  # type: ignore[method-assign]


def test_registered_check_says_scan_incomplete_on_empty_pages() -> None:
    world = base.healthy_eks()
    empty_pages(world)
    data = hma_data(world)
    scan = data.recent_log_events("SagemakerHealthMonitoringAgent/", "x")
    assert (scan.truncated, scan.stopped_by) == (True, "pages")
    findings = list(health_monitoring_agent(data))
    assert not [f for f in findings if f.status in (Status.WARN, Status.FAIL)]
    assert any("scan incomplete after" in f.message for f in findings)


# -- detections on replaced instances are history -----------------------------------------


def test_detections_on_a_replaced_instance_are_history_info() -> None:
    gone = "SagemakerHealthMonitoringAgent/gpu-workers/i-0gone"
    findings = judge_hma(
        [event(detection(), stream=gone), event(detection(xid=48))], current={"i-0aaa"}
    )
    [current] = [f for f in findings if f.status is Status.WARN]
    assert (current.priority, current.resources) == (Priority.P1, ["i-0aaa"])
    [history] = [f for f in findings if f.status is Status.INFO]
    assert history.resources == ["i-0gone"]
    assert history.message.startswith("History:")
    assert "no longer in the cluster" in history.message
    assert history.evidence["history"] is True


def test_unknown_node_list_keeps_every_detection_current() -> None:
    findings = judge_hma([event(detection())], current=None)
    assert [(f.status, f.priority) for f in findings] == [(Status.WARN, Priority.P1)]
