"""A Kubernetes read refused during a live run is recorded per kind and refused again on replay.

The live run reads the healthy EKS world's objects through a transport that answers 403 to
one kind of request (nodes stay readable), with the recorder's hooks attached as `record`
attaches them. The recording is dumped, loaded and replayed through replay_sources: the
checks that need the refused kind are skipped with the live run's reason, and the others
judge the same objects as before.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from cluster_simulator import base
from cluster_simulator.node_samples import k8s_faults, k8s_node, k8s_objects
from tools.aws.session import AwsAccess
from tools.kube.access import KubeAccess, KubeObservers, Query, guard
from tools.kube.responder import respond
from tools.recorded.model import KubernetesObjects, dump_recorded, load_recorded
from tools.recorded.recorder import Recorder
from tools.sources import KubernetesUnavailable
from tools.target import TriageTarget
from tools.triage.data import NodeSources
from tools.triage.node_sources import replay_sources
from tools.triage.open_cluster import DataSource, open_cluster, triage_cluster
from tools.triage.report import TriageReport
from tools.triage.runner import run_triage

K8S_CHECKS = ("k8s-node-health", "k8s-node-mapping", "k8s-cni", "k8s-pod-failures")
FORBIDDEN = json.dumps(
    {
        "kind": "Status",
        "apiVersion": "v1",
        "status": "Failure",
        "reason": "Forbidden",
        "code": 403,
        "message": 'pods is forbidden: User "triage" cannot list resource "pods"',
    }
).encode()


def _objects(world_nodes: list[k8s_node.NodeSpec]) -> KubernetesObjects:
    objects = k8s_objects.healthy_objects(world_nodes)
    # A crashing aws-node pod, so k8s-cni reads a log tail.
    return k8s_faults.aws_node_crashloop(objects, world_nodes[0][0])


def _live_access(
    objects: KubernetesObjects, refused: Callable[[str], bool], recorder: Recorder
) -> KubeAccess:
    def transport(method: str, path: str, query: Query) -> tuple[int, bytes]:
        guard(method, path)
        if refused(path):
            return 403, FORBIDDEN
        status, body, _ = respond(objects, path, query)
        return status, body

    return KubeAccess(
        transport,
        observers=KubeObservers(
            on_list=recorder.record_kube_list,
            on_log=recorder.record_kube_log,
            on_error=recorder.record_kube_unavailable,
        ),
    )


def _k8s(report: TriageReport) -> tuple[dict[str, str], list[tuple[str, str, str]]]:
    skipped = {s.check: s.reason for s in report.skipped if s.check in K8S_CHECKS}
    findings = sorted(
        (f.check, f.status.value, f.message) for f in report.findings if f.check in K8S_CHECKS
    )
    return skipped, findings


REFUSALS: dict[str, tuple[Callable[[str], bool], str, set[str]]] = {
    # kind recorded, checks that need it
    "pods": (lambda path: path.endswith("/pods"), "pods", {"k8s-cni", "k8s-pod-failures"}),
    "logs": (lambda path: path.endswith("/log"), "logs", {"k8s-cni"}),
}


@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_a_refused_kind_is_recorded_and_replayed_as_refused(case: str, tmp_path: Path) -> None:
    refused, kind, skipped_checks = REFUSALS[case]
    world = base.healthy_eks()
    nodes = [
        (n["InstanceId"], n["InstanceGroupName"], n["InstanceType"], base.AZ) for n in world.nodes
    ]
    objects = _objects(nodes)
    target = TriageTarget(cluster=world.cluster["ClusterName"], region=world.region)
    recorder = Recorder()
    access = AwsAccess(world.region, replay=world, recorder=recorder)
    kube = _live_access(objects, refused, recorder)
    live = triage_cluster(target, access, now=recorder.now, sources=NodeSources(kube=lambda: kube))

    path = tmp_path / "recorded.json"
    dump_recorded(recorder.build(cluster=target.cluster, region=world.region), path)
    recording = load_recorded(path)
    entries = [(u.what, u.reason) for u in recording.unavailable if u.kind == "kubernetes"]
    assert [what for what, _ in entries] == [kind]
    assert "forbidden" in entries[0][1]

    replayed = run_triage(open_cluster(target, source=DataSource(recorded=recording)))
    live_skipped, live_findings = _k8s(live)
    replay_skipped, replay_findings = _k8s(replayed)
    assert set(live_skipped) == skipped_checks
    assert replay_skipped == live_skipped
    assert set(live_skipped.values()) == {entries[0][1]}
    # Nodes were readable: the checks that need only them judged the same objects.
    assert replay_findings == live_findings
    assert any(check == "k8s-node-health" for check, _, _ in replay_findings)


def test_a_recording_without_objects_but_with_refused_kinds_replays_the_refusals() -> None:
    world = base.healthy_eks()
    recorder = Recorder()
    recorder.record_kube_unavailable("nodes", "forbidden: cannot list nodes")
    recording = recorder.build(cluster="c", region=world.region)
    assert recording.kubernetes is None
    kube = replay_sources(recording).kube()
    with pytest.raises(KubernetesUnavailable, match="forbidden: cannot list nodes"):
        kube.list_nodes()
    # Kinds the live run never refused answer from the (empty) objects.
    assert kube.list_events() == []


def test_an_unknown_kind_is_not_recorded() -> None:
    with pytest.raises(ValueError, match="not a recorded Kubernetes read"):
        Recorder().record_kube_unavailable("secrets", "forbidden")


def test_a_kubeconfig_failure_still_refuses_every_read() -> None:
    recorder = Recorder()
    recorder.record_unavailable("kubernetes", "kubeconfig", "no kubeconfig at ~/.kube/config")
    recorder.record_kube_unavailable("pods", "forbidden: pods")
    recording = recorder.build(cluster="c", region="us-west-2")
    with pytest.raises(KubernetesUnavailable, match="no kubeconfig at"):
        replay_sources(recording).kube()
