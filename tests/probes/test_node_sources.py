"""What the recorder keeps of node-level sources, and how a recording answers them again."""

from __future__ import annotations

from typing import Any

import pytest

from tools.probes.model import NodeProbes, ProbeOutput
from tools.probes.runner import ProbePlan
from tools.probes.transport import ProbeTarget
from tools.recorded.model import KubernetesObjects, ProbeRecord, RecordedCluster, Unavailable
from tools.recorded.recorder import Recorder
from tools.sources import KubernetesUnavailable, ProbesUnavailable
from tools.triage.node_sources import NodeOptions, replay_sources

NODE = "i-0123456789abcdef0"


def _kube_node(name: str, ready: str = "True") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "spec": {"providerID": f"aws:///us-west-2a/{NODE}"},
        "status": {"conditions": [{"type": "Ready", "status": ready}]},
    }


def _recording(**fields: Any) -> RecordedCluster:
    return RecordedCluster(
        recorded_at="2026-11-20T12:00:00Z", cluster="hp", region="us-west-2", **fields
    )


# -- the recorder ----------------------------------------------------------------------------


def test_session_calls_are_never_recorded() -> None:
    recorder = Recorder()
    start = {"Target": "sagemaker-cluster:a1b2c3d4e5f6_g-" + NODE}
    recorder.record_response(
        "ssm", "StartSession", start, {"SessionId": "s", "TokenValue": "tok", "StreamUrl": "w"}
    )
    recorder.record_response("ssm", "TerminateSession", {"SessionId": "s"}, {"SessionId": "s"})
    recorder.record_error(
        "ssm", "StartSession", start, code="TargetNotConnected", message="x", status=400
    )
    recorder.record_error(
        "ssm", "StartSession", start, code="AccessDeniedException", message="x", status=400
    )
    recorder.record_response("sagemaker", "ListClusters", {}, {"ClusterSummaries": []})
    recording = recorder.build(cluster="hp", region="us-west-2")
    assert [(c.service, c.operation) for c in recording.aws] == [("sagemaker", "ListClusters")]
    assert recording.unavailable == []  # a denied session is a node finding, not an API row


def test_probe_outputs_are_kept_per_node_and_merged() -> None:
    recorder = Recorder(mask_account=True)
    recorder.record_probes(
        NodeProbes(
            instance_id=NODE,
            outputs={
                "uptime": ProbeOutput(stdout="12.0 40.0"),
                "gpu_list": ProbeOutput(stdout="GPU 0", exit_code=None, truncated=True),
                "services": ProbeOutput(stdout="arn:aws:iam::123456789012:role/x", exit_code=3),
            },
        )
    )
    recorder.record_probes(
        NodeProbes(instance_id=NODE, outputs={"slurm_controller": ProbeOutput(stdout="UP")})
    )
    recorder.record_probes(NodeProbes(instance_id="i-0fffffffffffffff0", unreachable="gone"))
    recorder.record_probes(NodeProbes(instance_id="i-0fffffffffffffff0", unreachable="gone"))
    recording = recorder.build(cluster="hp", region="us-west-2")
    assert recording.probes == {
        NODE: {
            "uptime": "12.0 40.0",
            "gpu_list": ProbeRecord(stdout="GPU 0", exit_code=None, truncated=True),
            "services": ProbeRecord(stdout="arn:aws:iam::111122223333:role/x", exit_code=3),
            "slurm_controller": "UP",
        }
    }
    assert recording.unavailable == [
        Unavailable(kind="node", what="i-0fffffffffffffff0", reason="gone")
    ]


def test_kubernetes_lists_merge_by_namespace_and_name() -> None:
    recorder = Recorder()
    pod = {"metadata": {"namespace": "kube-system", "name": "aws-node-1"}, "status": {}}
    other = {"metadata": {"namespace": "default", "name": "aws-node-1"}, "status": {}}
    recorder.record_kube_list("pods", [pod])
    recorder.record_kube_list("pods", [pod, other])
    recorder.record_kube_list("nodes", [_kube_node("ip-10-0-0-1")])
    recorder.record_kube_log("kube-system/aws-node-1/aws-node", "token=abc123 failed\n")
    recording = recorder.build(cluster="hp", region="us-west-2")
    assert recording.kubernetes is not None
    # Kept once each, sorted by namespace and name (the API server's own order).
    assert recording.kubernetes.pods == [other, pod]
    assert [n["metadata"]["name"] for n in recording.kubernetes.nodes] == ["ip-10-0-0-1"]
    assert recording.kubernetes.logs == {
        "kube-system/aws-node-1/aws-node": "token=<redacted> failed\n"
    }
    with pytest.raises(ValueError, match="not a recorded Kubernetes kind"):
        recorder.record_kube_list("secrets", [])


def test_no_kubernetes_reads_no_kubernetes_section() -> None:
    assert Recorder().build(cluster="hp", region="us-west-2").kubernetes is None


# -- replay ----------------------------------------------------------------------------------


def test_replay_answers_kubernetes_from_the_recorded_objects() -> None:
    recording = _recording(kubernetes=KubernetesObjects(nodes=[_kube_node("ip-10-0-0-1")]))
    kube = replay_sources(recording).kube()
    assert [n["metadata"]["name"] for n in kube.list_nodes()] == ["ip-10-0-0-1"]


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({}, "not recorded: Kubernetes objects"),
        (
            {
                "kubernetes": KubernetesObjects(),
                "unavailable": [
                    Unavailable(kind="kubernetes", what="kubeconfig", reason="no kubeconfig")
                ],
            },
            "no kubeconfig",
        ),
    ],
    ids=["none recorded", "unavailable when recorded"],
)
def test_replay_without_kubernetes_says_why(fields: dict[str, Any], reason: str) -> None:
    with pytest.raises(KubernetesUnavailable) as unavailable:
        replay_sources(_recording(**fields)).kube()
    assert unavailable.value.reason == reason
    assert unavailable.value.hint.startswith("Install kubectl")


def test_replay_answers_probes_and_unreachable_nodes() -> None:
    recording = _recording(
        probes={
            NODE: {"uptime": "5.0 1.0", "kernel_release": ProbeRecord(stdout="x", exit_code=2)}
        },
        unavailable=[
            Unavailable(kind="node", what="i-0fffffffffffffff0", reason="TargetNotConnected")
        ],
    )
    runner = replay_sources(recording, NodeOptions(probe_concurrency=3)).probes()
    assert runner.concurrency == 3
    plans = [
        ProbePlan(ProbeTarget("a1b2c3d4e5f6", "g", NODE), ("uptime", "kernel_release", "meminfo")),
        ProbePlan(ProbeTarget("a1b2c3d4e5f6", "g", "i-0fffffffffffffff0"), ("uptime",)),
    ]
    results = runner.run(plans)
    assert results[NODE].outputs == {
        "uptime": ProbeOutput(stdout="5.0 1.0"),
        "kernel_release": ProbeOutput(stdout="x", exit_code=2),
    }
    assert results["i-0fffffffffffffff0"].unreachable == "TargetNotConnected"


@pytest.mark.parametrize(
    ("fields", "options", "reason", "hint"),
    [
        (
            {"probes": {NODE: {"uptime": "1 1"}}},
            NodeOptions(probes=False),
            "node probes disabled",
            "",
        ),
        (
            {
                "unavailable": [
                    Unavailable(
                        kind="tool",
                        what="session-manager-plugin",
                        reason="session-manager-plugin not found on PATH",
                    )
                ]
            },
            NodeOptions(),
            "session-manager-plugin not found on PATH",
            "Install session-manager-plugin (see § K).",
        ),
    ],
    ids=["--no-probes", "plugin was missing"],
)
def test_replay_without_probes_says_why(
    fields: dict[str, Any], options: NodeOptions, reason: str, hint: str
) -> None:
    with pytest.raises(ProbesUnavailable) as unavailable:
        replay_sources(_recording(**fields), options).probes()
    assert unavailable.value.reason.startswith(reason)
    assert unavailable.value.hint == hint


def test_replay_runs_the_local_slurm_probes_only_when_recorded() -> None:
    assert replay_sources(_recording(probes={NODE: {"uptime": "1 1"}})).slurm_local() is None
    local = replay_sources(_recording(probes={"local": {"slurm_controller": "UP"}})).slurm_local()
    assert local is not None
    result = local.probe_node(
        ProbePlan(ProbeTarget("a1b2c3d4e5f6", "local", "local"), ("slurm_controller",))
    )
    assert result.outputs == {"slurm_controller": ProbeOutput(stdout="UP")}
