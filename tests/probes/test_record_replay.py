"""Node sources end to end: a live run (the real SSM transport and a fake plugin) is recorded,
and the recording replays to the same node-level findings.

The AWS side is a small world answering through the real AwsAccess (guard, recorder); SSM
StartSession is answered by the world as SSM would, and one node is refused.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tools.aws.session import AwsAccess
from tools.recorded.model import (
    RecordedCall,
    RecordedCluster,
    RecordedError,
    dump_recorded,
    load_recorded,
)
from tools.recorded.recorder import Recorder
from tools.recorded.replay import ReplayStore
from tools.target import TriageTarget
from tools.triage.node_sources import NodeOptions, live_sources
from tools.triage.open_cluster import DataSource, open_cluster, triage_cluster
from tools.triage.report import TriageReport
from tools.triage.runner import run_triage
from tools.version import tool_version

REGION = "us-west-2"
ACCOUNT = "111122223333"
CLUSTER_ID = "a1b2c3d4e5f6"
HEALTHY, FAILING, DENIED = "i-0aaaaaaaaaaaaaaa1", "i-0aaaaaaaaaaaaaaa2", "i-0aaaaaaaaaaaaaaa3"
TARGET = TriageTarget(cluster="hp", region=REGION)


def _node(instance_id: str, status: str) -> dict[str, Any]:
    return {
        "InstanceGroupName": "gpu",
        "InstanceId": instance_id,
        "InstanceType": "ml.p5.48xlarge",
        "InstanceStatus": {"Status": status, "Message": ""},
        "LaunchTime": "2026-11-20T10:00:00Z",
    }


def _cluster() -> RecordedCluster:
    # The live world's answers, stamped with this version: a call it lacks is one the
    # world does not answer, not one an older version never made.
    return RecordedCluster.model_validate(
        {
            "tool_version": tool_version(),
            "recorded_at": "2026-11-20T12:00:00Z",
            "cluster": "hp",
            "region": REGION,
            "aws": [
                {
                    "service": "sagemaker",
                    "operation": "DescribeCluster",
                    "params": {"ClusterName": "hp"},
                    "response": {
                        "ClusterArn": f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:cluster/{CLUSTER_ID}",
                        "ClusterName": "hp",
                        "ClusterStatus": "InService",
                        "InstanceGroups": [
                            {
                                "InstanceGroupName": "gpu",
                                "InstanceType": "ml.p5.48xlarge",
                                "CurrentCount": 3,
                                "TargetCount": 3,
                                "Status": "InService",
                                "ThreadsPerCore": 2,
                            }
                        ],
                        "Orchestrator": {
                            "Eks": {"ClusterArn": f"arn:aws:eks:{REGION}:{ACCOUNT}:cluster/e"}
                        },
                    },
                },
                {
                    "service": "sagemaker",
                    "operation": "ListClusterNodes",
                    "params": {"ClusterName": "hp"},
                    "paging": {"result_key": "ClusterNodeSummaries"},
                    "response": {
                        "ClusterNodeSummaries": [
                            _node(HEALTHY, "Running"),
                            _node(FAILING, "Failure"),
                            _node(DENIED, "Failure"),
                        ]
                    },
                },
            ],
        }
    )


class World:
    """The cluster's AWS answers, plus SSM sessions as the service would open them."""

    def __init__(self) -> None:
        self.store = ReplayStore(_cluster())
        self.ssm: list[str] = []

    def respond(self, service: str, operation: str, params: dict[str, Any]) -> RecordedCall:
        if service != "ssm":
            return self.store.respond(service, operation, params)
        self.ssm.append(operation)
        if operation == "StartSession" and DENIED in params["Target"]:
            error = RecordedError(code="AccessDeniedException", message="no", http_status=400)
            return RecordedCall(service=service, operation=operation, error=error)
        response: dict[str, Any] = {"SessionId": "u-0123456789abcdef0"}
        if operation == "StartSession":
            response.update(TokenValue="secret-session-token", StreamUrl="wss://x/stream")
        return RecordedCall(service=service, operation=operation, response=response)


def _node_findings(report: TriageReport) -> list[tuple[str, str, str]]:
    return sorted(
        (f.check, f.status.value, f.message)
        for f in report.findings
        if f.check.startswith(("node-", "gpu-", "efa-"))
    )


@pytest.fixture
def recorded(plugin: Path, tmp_path: Path) -> tuple[TriageReport, RecordedCluster, World]:
    world = World()
    recorder = Recorder()
    access = AwsAccess(REGION, replay=world, recorder=recorder, max_attempts=1)
    options = NodeOptions(kubeconfig=tmp_path / "no-kubeconfig")
    sources = live_sources(access, options, recorder=recorder)
    live = triage_cluster(TARGET, access, now=recorder.now, sources=sources)
    path = tmp_path / "hp.json"
    dump_recorded(recorder.build(cluster="hp", region=REGION), path)
    return live, load_recorded(path), world


def test_the_recording_holds_probe_outputs_and_no_session_calls(
    recorded: tuple[TriageReport, RecordedCluster, World],
) -> None:
    _, recording, world = recorded
    assert "StartSession" in world.ssm
    assert "TerminateSession" in world.ssm
    assert not [c for c in recording.aws if c.service == "ssm"]
    assert "secret-session-token" not in recording.model_dump_json()
    # The two failing nodes were chosen (both are accelerator nodes: no healthy one added).
    assert set(recording.probes) == {FAILING}
    assert recording.probes[FAILING]["disk_usage"] == "disk_usage line 1\ndisk_usage line 2"
    kinds = {(u.kind, u.what) for u in recording.unavailable}
    assert ("node", DENIED) in kinds
    assert ("kubernetes", "kubeconfig") in kinds
    denied = next(u for u in recording.unavailable if u.what == DENIED)
    assert denied.reason == "Missing IAM permission for ssm:StartSession"


def test_the_recording_replays_to_the_same_node_findings(
    recorded: tuple[TriageReport, RecordedCluster, World],
) -> None:
    live, recording, _ = recorded
    replayed = run_triage(open_cluster(TARGET, source=DataSource(recorded=recording)))
    assert _node_findings(replayed) == _node_findings(live)
    reachability = [f for f in replayed.findings if f.check == "node-reachability"]
    assert any(f.status.value == "FAIL" and DENIED in f.resources for f in reachability)
    assert sorted(s.reason for s in replayed.skipped) == sorted(s.reason for s in live.skipped)


def test_probe_text_is_redacted_in_the_recording(
    plugin: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_PLUGIN_EXTRA", "\npassword: hunter2\nAWS_SECRET_ACCESS_KEY=abc/123")
    recorder = Recorder()
    access = AwsAccess(REGION, replay=World(), recorder=recorder, max_attempts=1)
    options = NodeOptions(kubeconfig=tmp_path / "no-kubeconfig")
    triage_cluster(TARGET, access, sources=live_sources(access, options, recorder=recorder))
    recording = recorder.build(cluster="hp", region=REGION)
    text = recording.model_dump_json()
    assert "hunter2" not in text
    assert "abc/123" not in text
    assert recording.probes[FAILING]["meminfo"] == (
        "meminfo line 1\nmeminfo line 2\npassword: <redacted>\nAWS_SECRET_ACCESS_KEY=<redacted>"
    )


def test_no_probes_opens_no_session(plugin: Path, tmp_path: Path) -> None:
    world = World()
    recorder = Recorder()
    access = AwsAccess(REGION, replay=world, recorder=recorder, max_attempts=1)
    options = NodeOptions(kubeconfig=tmp_path / "no-kubeconfig", probes=False)
    report = triage_cluster(
        TARGET, access, sources=live_sources(access, options, recorder=recorder)
    )
    assert world.ssm == []
    assert "node probes disabled (--no-probes)" in {s.reason for s in report.skipped}
    recording = recorder.build(cluster="hp", region=REGION)
    assert recording.probes == {}
    replayed = run_triage(open_cluster(TARGET, source=DataSource(recorded=recording)))
    assert "node probes disabled (--no-probes)" in {s.reason for s in replayed.skipped}


def test_a_missing_plugin_is_recorded_and_replayed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    world = World()
    recorder = Recorder()
    access = AwsAccess(REGION, replay=world, recorder=recorder, max_attempts=1)
    options = NodeOptions(kubeconfig=tmp_path / "no-kubeconfig")
    live = triage_cluster(TARGET, access, sources=live_sources(access, options, recorder=recorder))
    reason = "session-manager-plugin not found on PATH"
    assert reason in {s.reason for s in live.skipped}
    assert any(s.hint.startswith("Install session-manager-plugin") for s in live.skipped)
    recording = recorder.build(cluster="hp", region=REGION)
    assert [u.what for u in recording.unavailable if u.kind == "tool"] == ["session-manager-plugin"]
    replayed = run_triage(open_cluster(TARGET, source=DataSource(recorded=recording)))
    assert reason in {s.reason for s in replayed.skipped}
    assert world.ssm == []
