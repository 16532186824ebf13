"""§ F.3 rules of tools/checks/health_monitoring.py on literal lines: the verdicts, no prose."""

from __future__ import annotations

from tools.checks._logs import ScanEnd, scan_end
from tools.checks.health_monitoring import DETECTION, detections_by_instance
from tools.triage.data.logs_model import LogEvent, LogScan

PREFIX = "SagemakerHealthMonitoringAgent/gpu-workers/"


def detected(instance: str, ts: int, reason: str = "XidHardwareFailure") -> LogEvent:
    body = f'{DETECTION} {{"details": {{"reason": "{reason}"}}}}'
    return LogEvent(stream=PREFIX + instance, message=body, timestamp=ts)


def test_detections_are_grouped_per_instance_oldest_first() -> None:
    scan = LogScan(events=(detected("i-0b", 5), detected("i-0a", 9), detected("i-0a", 2)))
    found = detections_by_instance(scan)
    assert [(d.instance, d.group) for d in found] == [
        ("i-0a", "gpu-workers"),
        ("i-0b", "gpu-workers"),
    ]
    assert [event.timestamp for event, _ in found[0].hits] == [2, 9]


def test_lines_without_the_marker_and_other_nodes_are_left_out() -> None:
    plain = LogEvent(stream=PREFIX + "i-0a", message="GPU health check passed", timestamp=1)
    scan = LogScan(events=(plain, detected("i-0b", 2), detected("i-0a", 3)), node="i-0a")
    [only] = detections_by_instance(scan)
    assert (only.instance, len(only.hits)) == ("i-0a", 1)


def test_an_instance_the_cluster_no_longer_has_is_history() -> None:
    scan = LogScan(
        events=(detected("i-0a", 1), detected("i-0gone", 2)), statuses={"i-0a": "Running"}
    )
    assert [(d.instance, d.history) for d in detections_by_instance(scan)] == [
        ("i-0a", False),
        ("i-0gone", True),
    ]
    unknown = LogScan(events=(detected("i-0gone", 2),))
    assert [d.history for d in detections_by_instance(unknown)] == [False]


def test_how_a_scan_ended() -> None:
    assert scan_end(LogScan(truncated=False, stopped_by="pages")) is ScanEnd.COMPLETE
    assert scan_end(LogScan(truncated=True, stopped_by="cap")) is ScanEnd.CAPPED
    assert scan_end(LogScan(truncated=True, stopped_by="pages")) is ScanEnd.OUT_OF_PAGES
