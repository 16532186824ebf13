"""Node name ↔ instance id ↔ group rows and instances that never joined (k8s-node-mapping)."""

from __future__ import annotations

from typing import Any

from cluster_simulator.node_samples import k8s_objects
from tools.checks.k8s_node_mapping import (
    NeverJoined,
    NodeRow,
    judge_mapping,
    k8s_node_mapping,
    mapping_rows,
    node_membership,
)
from tools.findings import Priority, Status
from tools.triage.data.kube_model import GROUP_LABEL, KubeNode
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


# -- the rules alone: rows and membership, no words -------------------------------------


def kube_node(name: str, group: str | None = None) -> KubeNode:
    labels = {GROUP_LABEL: group} if group else {}
    return KubeNode.from_api({"metadata": {"name": name, "labels": labels}})


def hyperpod_node(instance_id: str, group: str = "gpu", status: str = "Running") -> ClusterNode:
    return ClusterNode.from_api(
        {
            "InstanceId": instance_id,
            "InstanceGroupName": group,
            "InstanceStatus": {"Status": status},
        }
    )


I1, I2, I3 = "i-0000000000000001a", "i-0000000000000002b", "i-0000000000000003c"


def test_rows_take_the_label_before_hyperpods_group_and_sort_by_group() -> None:
    nodes = [kube_node(f"hyperpod-{I1}", "worker"), kube_node(f"hyperpod-{I2}"), kube_node("ip")]
    rows = mapping_rows(nodes, {I1: "gpu", I2: "cpu"})
    assert rows == [
        NodeRow("ip", None, None),  # sorted by str(group): "None" before lower-case names
        NodeRow(f"hyperpod-{I2}", I2, "cpu"),
        NodeRow(f"hyperpod-{I1}", I1, "worker"),
    ]


def test_membership_names_running_instances_without_a_node() -> None:
    rows = mapping_rows([kube_node(f"hyperpod-{I1}")], {})
    hyperpod = [hyperpod_node(I1), hyperpod_node(I2), hyperpod_node(I3, status="Pending")]
    membership = node_membership(rows, rows, hyperpod, None)
    assert membership.never_joined == (NeverJoined(I2, "gpu"),)
    assert not membership.all_joined
    focused = node_membership(rows, [], hyperpod, I1)
    assert (focused.never_joined, focused.all_joined) == ((), False)


def test_membership_finds_labelled_nodes_of_unknown_instances() -> None:
    rows = mapping_rows([kube_node(f"hyperpod-{I1}"), kube_node(f"hyperpod-{I3}", "gpu")], {})
    membership = node_membership(rows, rows, [hyperpod_node(I1)], None)
    assert membership.strangers == (f"hyperpod-{I3}",)
    assert membership.all_joined
