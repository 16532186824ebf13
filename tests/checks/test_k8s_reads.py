"""tools/triage/data/kube.py: one memoised access, the cluster-endpoint guard, and skips."""

from __future__ import annotations

from typing import Any

import pytest

from cluster_simulator.node_samples import k8s_faults, k8s_node, k8s_objects
from tools.kube.access import KubeAccess, KubeObservers, Query, guard
from tools.kube.responder import respond
from tools.recorded.model import KubernetesObjects
from tools.registry import get_check
from tools.sources import KubernetesUnavailable
from tools.triage.runner import run_check

from ._kube_world import kube_data, world_and_objects

K8S_CHECKS = ("k8s-node-health", "k8s-node-mapping", "k8s-cni", "k8s-pod-failures")


def test_missing_kubeconfig_skips_every_kubernetes_check_with_one_reason() -> None:
    world, _, _ = world_and_objects()
    calls: list[int] = []

    def unavailable() -> KubeAccess:
        calls.append(1)
        return KubeAccess.from_kubeconfig(None, None)

    data = kube_data(world, kube=unavailable)
    outputs = [run_check(get_check(c), data) for c in K8S_CHECKS]
    assert all(o.findings == [] for o in outputs)
    reasons = {s.reason for o in outputs for s in o.skipped}
    hints = {s.hint for o in outputs for s in o.skipped}
    assert len(reasons) == 1
    assert "no kubeconfig" in reasons.pop()
    assert hints == {"Install kubectl and authenticate (see § K)."}
    assert calls == [1]
    assert data.failing_instance_ids() == []  # node selection goes on without Kubernetes


class Recording:
    """A transport answering from objects and remembering each request, as a live
    KubeAccess pointed at `server` would send them."""

    def __init__(self, objects: KubernetesObjects) -> None:
        self.objects = objects
        self.seen: list[tuple[str, dict[str, str]]] = []

    def __call__(self, method: str, path: str, query: Query) -> tuple[int, bytes]:
        guard(method, path)
        self.seen.append((path, dict(query)))
        status, body, _ = respond(self.objects, path, query)
        return status, body


def live_like(transport: Recording, server: str, **kwargs: Any) -> KubeAccess:
    return KubeAccess(transport, server=server, context="ml-eks-admin", **kwargs)


EKS_ENDPOINT = "https://0123ABCD.gr7.us-west-2.eks.amazonaws.com"


def test_kubeconfig_for_another_cluster_is_refused() -> None:
    world, objects, _ = world_and_objects()
    world.eks_clusters["ml-eks"]["endpoint"] = EKS_ENDPOINT
    transport = Recording(objects)
    data = kube_data(
        world, kube=lambda: live_like(transport, "https://FFFF.yl4.us-west-2.eks.amazonaws.com")
    )
    with pytest.raises(KubernetesUnavailable) as caught:
        data.kube_nodes()
    assert transport.seen == []  # refused before any read
    assert "context ml-eks-admin points at https://FFFF" in caught.value.reason
    assert "not at EKS cluster ml-eks" in caught.value.reason
    assert "--context" in caught.value.reason


def test_a_refused_context_is_recorded_and_replays_as_the_same_skip() -> None:
    from tools.recorded.recorder import Recorder
    from tools.triage.node_sources import replay_sources

    world, objects, _ = world_and_objects()
    world.eks_clusters["ml-eks"]["endpoint"] = EKS_ENDPOINT
    recorder = Recorder()
    other = "https://FFFF.yl4.us-west-2.eks.amazonaws.com"
    live = kube_data(
        world,
        kube=lambda: live_like(
            Recording(objects),
            other,
            observers=KubeObservers(on_error=recorder.record_kube_unavailable),
        ),
    )
    with pytest.raises(KubernetesUnavailable) as caught:
        live.kube_nodes()
    recording = recorder.build(cluster="ml-cluster-eks", region="us-west-2")
    assert [(u.kind, u.what) for u in recording.unavailable] == [("kubernetes", "kubeconfig")]
    replayed = kube_data(world, kube=replay_sources(recording).kube)
    with pytest.raises(KubernetesUnavailable) as again:
        replayed.kube_nodes()
    assert again.value.reason == caught.value.reason


def test_kubeconfig_for_this_cluster_reads_through_once() -> None:
    world, objects, ids = world_and_objects()
    k8s_faults.set_node_not_ready(objects, ids[1])
    world.eks_clusters["ml-eks"]["endpoint"] = EKS_ENDPOINT
    transport = Recording(objects)
    # Same host, spelled with an explicit default port and a trailing slash.
    data = kube_data(world, kube=lambda: live_like(transport, EKS_ENDPOINT.lower() + ":443/"))
    assert data.kube_unhealthy_instance_ids() == [ids[1]]
    assert data.kube_nodes() is data.kube_nodes()
    assert [path for path, _ in transport.seen] == ["/api/v1/nodes"]


def test_pods_in_scope_use_a_node_field_selector_with_focus() -> None:
    world, objects, ids = world_and_objects()
    k8s_faults.image_pull_backoff(objects, ids[0])
    k8s_faults.image_pull_backoff(objects, ids[1])
    transport = Recording(objects)
    data = kube_data(world, node=ids[0], kube=lambda: KubeAccess(transport))
    pods = data.kube_pods_in_scope()
    assert [p.node for p in pods] == [k8s_node.node_name(ids[0])]
    [pod_query] = [q for path, q in transport.seen if path == "/api/v1/pods"]
    assert pod_query["fieldSelector"] == f"spec.nodeName={k8s_node.node_name(ids[0])}"


def test_without_focus_only_troubled_pods_are_kept() -> None:
    world, objects, ids = world_and_objects()
    k8s_faults.oom_killed(objects, ids[2])
    data = kube_data(world, objects)
    assert [p.name for p in data.kube_pods_in_scope()] == ["llm-train-worker-2"]


def test_only_crashing_aws_node_pods_have_their_logs_read() -> None:
    world, objects, ids = world_and_objects()
    k8s_faults.aws_node_crashloop(objects, ids[3])
    logs: list[str] = []
    data = kube_data(
        world,
        kube=lambda: KubeAccess.from_objects(
            objects, observers=KubeObservers(on_log=lambda k, _: logs.append(k))
        ),
    )
    crashed = k8s_objects.find_pod(objects, "aws-node", ids[3])["metadata"]["name"]
    assert list(data.aws_node_logs()) == [crashed]
    assert logs == [f"kube-system/{crashed}/aws-node#previous"]
