"""The CLI contract end to end, exit 0: triage completed (whatever it found).

Live and recorded triages, the JSON report's keys, `checks --json`, and record → replay
through the CLI giving the same report. Helpers in _cli_support.py.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from pathlib import Path

import pytest

from tools.findings import Finding, info
from tools.recorded.model import load_recorded
from tools.sections import SECTIONS
from tools.triage.data import ClusterData

from ._cli_support import (
    ACCOUNT,
    CLUSTER_ID,
    REGION,
    SG,
    MotoClient,
    assert_clean_exit,
    run,
)

# -- exit 0 ------------------------------------------------------------------------------


def test_live_triage_completes_with_exit_0(live: str) -> None:
    result = run("triage", "--cluster", "hp", "--region", REGION, "--format", "json")
    assert_clean_exit(result, 0)
    report = json.loads(result.stdout)
    assert report["cluster"]["name"] == "hp"
    assert report["cluster"]["region"] == REGION
    assert report["recorded"] is False
    efa = [f for f in report["findings"] if f["check"] == "efa-security-groups"]
    assert [(f["status"], f["resources"]) for f in efa] == [("PASS", [live])]


def test_recorded_triage_with_failures_still_exits_0(recorded: Path) -> None:
    result = run("triage", "--recorded", str(recorded))
    assert_clean_exit(result, 0)
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"HyperPod triage: hp ({REGION}, EKS) id={CLUSTER_ID}")
    assert lines[0].endswith("[recorded]")
    fail = next(line for line in lines if line.startswith("[FAIL]"))
    assert fail.startswith(f"[FAIL] P0 Security group {SG} lacks the all-traffic outbound rule")
    assert fail.endswith("→ references/node-diagnostics-detail.md § A")
    assert any(line.startswith("Summary: ") for line in lines)
    assert "not recorded:" in result.stdout  # what could not run is listed, not hidden


def test_json_report_matches_the_contract(recorded: Path) -> None:
    result = run("triage", "--recorded", str(recorded), "--format", "json")
    assert_clean_exit(result, 0)
    report = json.loads(result.stdout)
    assert {"cluster", "findings", "summary", "skipped"} <= set(report)
    assert report["cluster"] == {
        "name": "hp",
        "arn": f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:cluster/{CLUSTER_ID}",
        "id": CLUSTER_ID,
        "region": REGION,
        "orchestrator": "eks",
        "account": ACCOUNT,
    }
    assert report["findings"]
    keys = {"check", "status", "priority", "section", "message", "reference", "resources"}
    for finding in report["findings"]:
        assert keys | {"evidence"} <= set(finding)
        assert finding["status"] in {"PASS", "FAIL", "WARN", "INFO"}
        assert finding["section"] in SECTIONS
        anchor = SECTIONS[finding["section"]].anchor
        assert finding["reference"] == f"references/node-diagnostics-detail.md#{anchor}"
        assert isinstance(finding["resources"], list)
        assert isinstance(finding["evidence"], dict)
        if finding["status"] in {"FAIL", "WARN"}:
            assert finding["priority"] in {"P0", "P1", "P2"}
    fail = next(f for f in report["findings"] if f["status"] == "FAIL")
    assert (fail["check"], fail["priority"], fail["section"]) == ("efa-security-groups", "P0", "A")
    assert fail["resources"] == [SG]
    # The evidence names what the rule judged: here, the SG's missing outbound self rule.
    assert fail["evidence"]["missing_self_rules"] == {SG: ["outbound"]}
    counts = report["summary"]["by_status"]
    assert sum(counts.values()) == len(report["findings"])
    assert counts["FAIL"] == len([f for f in report["findings"] if f["status"] == "FAIL"])
    assert report["summary"]["by_priority"]["P0"] >= 1
    for skip in report["skipped"]:
        assert set(skip) == {"check", "reason", "hint"}
        assert skip["reason"]


def test_unknown_node_does_not_crash(recorded: Path) -> None:
    result = run(
        "triage", "--recorded", str(recorded), "--node", "i-0123456789abcdef0", "-f", "json"
    )
    assert_clean_exit(result, 0)
    assert json.loads(result.stdout)["node"] == "i-0123456789abcdef0"


def test_checks_json_lists_the_registry() -> None:
    from tools.registry import all_checks

    result = run("checks", "--json")
    assert_clean_exit(result, 0)
    rows = json.loads(result.stdout)
    assert [row["id"] for row in rows] == [spec.id for spec in all_checks()]
    assert len({row["id"] for row in rows}) == len(rows)
    assert {"cluster-status", "efa-security-groups"} <= {row["id"] for row in rows}
    for row in rows:
        assert set(row) == {"id", "section", "title", "description", "orchestrators"}
        assert row["section"] in SECTIONS
        assert row["title"]
        assert set(row["orchestrators"]) <= {"eks", "slurm"}
        assert row["orchestrators"]


# -- record → replay through the CLI ------------------------------------------------------


def _log_window_probe(data: ClusterData) -> Iterable[Finding]:
    events = data.recent_log_events(
        "SagemakerHealthMonitoringAgent/", "HealthMonitoringAgentDetectionEvent"
    ).items
    yield info("probe-log-window", "F.3", f"{len(events)} detections in the last week")


def test_record_then_replay_gives_the_same_report(
    live: str, moto_client: MotoClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Includes a time-windowed call (FilterLogEvents startTime/endTime): the recording's
    clock must be the one the triage used, or replay finds the call 'not recorded'."""
    import tools.registry
    from tools.registry import CheckSpec

    tools.registry.all_checks()
    spec = CheckSpec(
        id="probe-log-window",
        section="F.3",
        title="probe",
        description="probe",
        run=_log_window_probe,
    )
    monkeypatch.setitem(tools.registry._REGISTRY, spec.id, spec)
    logs = moto_client("logs", REGION)
    group = "/aws/sagemaker/Clusters/hp/hp"
    logs.create_log_group(logGroupName=group)
    stream = "SagemakerHealthMonitoringAgent/workers/workers-0"
    logs.create_log_stream(logGroupName=group, logStreamName=stream)
    logs.put_log_events(
        logGroupName=group,
        logStreamName=stream,
        logEvents=[
            {
                "timestamp": int(time.time() * 1000) - 60_000,
                "message": "HealthMonitoringAgentDetectionEvent XidHardwareFailure",
            }
        ],
    )
    path = tmp_path / "live.json"
    recorded = run("record", "--cluster", "hp", "--region", REGION, "-o", str(path))
    assert_clean_exit(recorded, 0)
    assert recorded.stdout.startswith("Recorded ")
    assert str(path) in recorded.stdout
    live_report = json.loads(run("triage", "-c", "hp", "-r", REGION, "-f", "json").stdout)

    monkeypatch.delenv("AWS_ENDPOINT_URL")  # replay must not need the server
    replay = run("triage", "--recorded", str(path), "--format", "json")
    assert_clean_exit(replay, 0)
    replay_report = json.loads(replay.stdout)
    assert replay_report["recorded"] is True
    for key in ("cluster", "findings", "skipped", "summary"):
        assert replay_report[key] == live_report[key], key
    probe = [f for f in replay_report["findings"] if f["check"] == "probe-log-window"]
    assert [f["message"] for f in probe] == ["1 detections in the last week"]
    assert load_recorded(path).cluster == "hp"
