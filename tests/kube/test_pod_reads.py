"""Without --node, kube-system's pods come from the one cluster-wide pod list; with RBAC
that only allows kube-system, they are still read from there."""

from __future__ import annotations

from typing import Any

import pytest

from tools.aws.session import AwsAccess
from tools.kube.access import KubeAccess
from tools.recorded.model import KubernetesObjects, RecordedCall, RecordedCluster
from tools.target import TriageTarget
from tools.triage.data import ClusterData, NodeSources


def _pod(namespace: str, name: str, app: str, *, crashing: bool = False) -> dict[str, Any]:
    waiting = {"waiting": {"reason": "CrashLoopBackOff"}} if crashing else {}
    return {
        "metadata": {"name": name, "namespace": namespace, "labels": {"k8s-app": app}},
        "spec": {"nodeName": "ip-10-0-0-1"},
        "status": {
            "phase": "Running",
            "containerStatuses": [
                {
                    "name": app,
                    "ready": not crashing,
                    "restartCount": 7 if crashing else 0,
                    "state": waiting or {"running": {}},
                }
            ],
        },
    }


PODS = [
    _pod("kube-system", "coredns-1", "kube-dns"),
    _pod("kube-system", "aws-node-ok", "aws-node"),
    _pod("kube-system", "aws-node-bad", "aws-node", crashing=True),
    _pod("team-a", "trainer", "trainer", crashing=True),
    _pod("team-a", "healthy", "trainer"),
]


def _data(kube: KubeAccess) -> tuple[ClusterData, list[str]]:
    paths: list[str] = []
    recording = RecordedCluster(
        recorded_at="2026-11-20T12:00:00Z",
        cluster="c",
        region="us-west-2",
        aws=[
            RecordedCall(
                service="sagemaker",
                operation="DescribeCluster",
                params={"ClusterName": "c"},
                response={"ClusterName": "c", "Orchestrator": {"Eks": {"ClusterArn": ""}}},
            )
        ],
    )
    original = kube._transport

    def transport(method: str, path: str, query: Any) -> Any:
        paths.append(path)
        return original(method, path, query)

    kube._transport = transport
    data = ClusterData(
        AwsAccess("us-west-2", replay=recording),
        TriageTarget(cluster="c", region="us-west-2"),
        sources=NodeSources(kube=lambda: kube),
    )
    return data, paths


def test_system_pods_and_failing_pods_come_from_one_list() -> None:
    data, paths = _data(KubeAccess.from_objects(KubernetesObjects(pods=PODS)))
    system = {p.name for p in data.kube_system_pods()}
    failing = {p.name for p in data.kube_pods_in_scope()}
    assert system == {"coredns-1", "aws-node-bad"}
    assert failing == {"aws-node-bad", "trainer"}
    assert paths == ["/api/v1/pods"]


def test_system_pods_are_read_from_kube_system_when_the_cluster_list_is_refused() -> None:
    kube = KubeAccess.from_objects(KubernetesObjects(pods=PODS))
    recorded = kube._transport
    asked: list[str] = []

    def only_kube_system(method: str, path: str, query: Any) -> Any:
        asked.append(path)
        if path == "/api/v1/pods":
            return 403, b'{"kind":"Status","message":"pods is forbidden at the cluster scope"}'
        return recorded(method, path, query)

    kube._transport = only_kube_system
    data, _ = _data(kube)
    system = {p.name for p in data.kube_system_pods()}
    assert system == {"coredns-1", "aws-node-bad"}
    assert asked == ["/api/v1/pods", "/api/v1/namespaces/kube-system/pods"]


def test_a_simulated_latency_is_waited_before_each_replayed_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    waits: list[float] = []
    monkeypatch.setattr("tools.kube.access.time.sleep", waits.append)
    kube = KubeAccess.from_objects(KubernetesObjects(pods=PODS), page_size=2, latency=0.05)
    assert len(kube.list_pods()) == len(PODS)
    assert waits == [0.05, 0.05, 0.05]  # three pages of two pods
    quiet = KubeAccess.from_objects(KubernetesObjects(pods=PODS), page_size=2)
    quiet.list_pods()
    assert waits == [0.05, 0.05, 0.05]
