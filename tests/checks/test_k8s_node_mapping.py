"""Node name ↔ instance id ↔ group rows and instances that never joined (k8s-node-mapping)."""

from __future__ import annotations

from typing import Any

from cluster_simulator.node_samples import k8s_objects
from tools.checks.k8s_node_mapping import judge_mapping, k8s_node_mapping
from tools.findings import Priority, Status
from tools.triage.data.kube_model import KubeNode
from tools.triage.data.sagemaker_model import ClusterNode

from ._kube_world import kube_data, world_and_objects


def instance_id_of(raw: dict[str, Any]) -> str | None:
    return KubeNode.from_api(raw).instance_id


def test_instance_id_from_provider_name_or_label() -> None:
    assert instance_id_of({"spec": {"providerID": "aws:///us-west-2c/i-0123456789abcdef0"}}) == (
        "i-0123456789abcdef0"
    )
    assert instance_id_of({"metadata": {"name": "hyperpod-i-0123456789abcdef0"}}) == (
        "i-0123456789abcdef0"
    )
    assert instance_id_of({"metadata": {"name": "n", "labels": {"x": "i-0123456789abcdef0"}}}) == (
        "i-0123456789abcdef0"
    )
    assert instance_id_of({"metadata": {"name": "ip-10-1-2-3.internal"}}) is None


def test_rows_and_an_instance_that_never_joined() -> None:
    world, objects, ids = world_and_objects()
    objects.nodes.pop()
    findings = list(k8s_node_mapping(kube_data(world, objects)))
    rows = [f for f in findings if f.status is Status.INFO]
    assert len(rows) == len(ids) - 1
    assert rows[0].message.startswith("Kubernetes node hyperpod-i-")
    [missing] = [f for f in findings if f.status is Status.WARN]
    assert (missing.priority, missing.section, missing.resources) == (Priority.P1, "F.2", [ids[-1]])
    focused = list(k8s_node_mapping(kube_data(world, objects, node=ids[0])))
    assert [f.status for f in focused] == [Status.INFO]


def test_large_clusters_get_one_summary_and_grouped_missing() -> None:
    specs = [(f"i-0{n:016x}", "gpu", "ml.p5.48xlarge", "us-west-2c") for n in range(1, 61)]
    objects = k8s_objects.healthy_objects(specs[:30])
    hyperpod = [
        ClusterNode.from_api(
            {
                "InstanceId": s[0],
                "InstanceGroupName": "gpu",
                "InstanceStatus": {"Status": "Running"},
            }
        )
        for s in specs
    ]
    findings = judge_mapping([KubeNode.from_api(n) for n in objects.nodes], hyperpod)
    [summary] = [f for f in findings if f.status is Status.INFO]
    assert summary.evidence["count"] == 30
    [missing] = [f for f in findings if f.status is Status.WARN]
    assert missing.evidence["count"] == 30
    assert len(missing.resources) == 10


def test_all_joined_passes() -> None:
    world, objects, _ = world_and_objects()
    assert Status.PASS in [f.status for f in k8s_node_mapping(kube_data(world, objects))]
