"""§ L / § F.3 rules of tools/checks/health_monitoring.py over literal CloudWatch Logs dicts."""

from __future__ import annotations

import json
from typing import Any

from tools.checks.health_monitoring import (
    CHECK_HMA,
    CHECK_LOGS,
    judge_hma,
    judge_log_group,
    parse_detection,
)
from tools.findings import Priority, Status

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


def event(message: str, stream: str = STREAM, ts: int = 1) -> dict[str, Any]:
    return {"logStreamName": stream, "message": message, "timestamp": ts}


def test_log_group_present_passes() -> None:
    [finding] = judge_log_group(True, GROUP)
    assert finding.status is Status.PASS
    assert finding.check == CHECK_LOGS


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
    findings = judge_hma(
        [{}, {"message": "HealthMonitoringAgentDetectionEvent"}, "x"],  # type: ignore[list-item]
    )
    assert [f.status for f in findings] == [Status.PASS]  # no stream, no instance to name
