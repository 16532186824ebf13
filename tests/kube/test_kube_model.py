"""tools/triage/data/kube_model.py: typed Kubernetes objects read defensively, and the
paging filter over raw pods agreeing with the parsed pods' rule."""

from __future__ import annotations

from typing import Any

import pytest

from cluster_simulator.node_samples import k8s_faults
from tools.kube.objects import pod_needs_attention
from tools.kube.slim import slim
from tools.recorded.model import KubernetesObjects
from tools.triage.data.kube_model import (
    DaemonSet,
    Deployment,
    KubeEvent,
    KubeNode,
    Namespace,
    Pod,
)

from .conftest import GPU


def test_the_paging_filter_and_the_parsed_pod_agree(objects: KubernetesObjects) -> None:
    k8s_faults.coredns_pending(objects)
    k8s_faults.oom_killed(objects, GPU[0][0], memory_limit="8Gi")
    odd: list[dict[str, Any]] = [
        {},
        {"status": {"phase": "Succeeded"}},
        {"status": {"phase": "Running", "containerStatuses": [{"ready": False}]}},
        {"status": {"phase": "Running", "containerStatuses": [{"state": {"waiting": {}}}]}},
        {"status": {"phase": "Running", "containerStatuses": [{"restartCount": "2"}]}},
        {"status": {"phase": "Running", "initContainerStatuses": ["x", {"ready": True}]}},
    ]
    pods = [slim("pods", p) for p in objects.pods] + objects.pods + odd
    verdicts = [pod_needs_attention(p) for p in pods]
    assert True in verdicts
    assert False in verdicts
    assert [Pod.from_api(p).needs_attention for p in pods] == verdicts


@pytest.mark.parametrize(
    "raw",
    [
        {},
        {"metadata": None, "spec": "x", "status": []},
        {"metadata": {"labels": ["x"], "annotations": "x"}, "status": {"conditions": "x"}},
        {"status": {"conditions": [None, "x", {"type": None}]}},
    ],
)
def test_malformed_objects_parse_to_empty_values(raw: dict[str, Any]) -> None:
    node = KubeNode.from_api(raw)
    assert (node.name, node.instance_id, node.health_status, node.fault_details) == (
        "",
        None,
        None,
        (),
    )
    assert node.ready_status == "Unknown"
    assert node.unhealthy
    pod = Pod.from_api(raw)
    assert (pod.name, pod.node, pod.phase, pod.app, pod.container_statuses) == (
        "",
        "",
        "",
        None,
        (),
    )
    assert pod.needs_attention
    assert DaemonSet.from_api(raw) == DaemonSet("", 0, 0)
    assert Deployment.from_api(raw) == Deployment("", 0)
    assert Namespace.from_api(raw) == Namespace("", "")
    event = KubeEvent.from_api(raw)
    assert (event.source_host, event.involved, event.count, event.seen_at) == (
        "",
        "None/None",
        1,
        "",
    )


def test_a_node_reads_its_instance_health_labels_and_conditions(
    objects: KubernetesObjects,
) -> None:
    instance = GPU[1][0]
    k8s_faults.set_node_health(
        objects,
        instance,
        "UnschedulablePendingReboot",
        deep="Failed",
        fault=k8s_faults.NodeFault(
            reason="XidHardwareFailure", details=k8s_faults.xid_fault_details(), plural=True
        ),
    )
    k8s_faults.set_node_pressure(objects, instance, "MemoryPressure")
    nodes = [KubeNode.from_api(slim("nodes", n)) for n in objects.nodes]
    [node] = [n for n in nodes if n.instance_id == instance]
    assert (node.health_status, node.deep_health_status) == ("UnschedulablePendingReboot", "Failed")
    assert (node.group_label, node.fault_reason) == ("gpu-workers", "XidHardwareFailure")
    assert node.fault_details
    assert node.fault_details_problem is None
    pressure = node.condition("MemoryPressure")
    assert pressure is not None
    assert pressure.status == "True"
    assert node.unhealthy
    assert [n.instance_id for n in nodes if n.unhealthy] == [instance]


def test_a_pod_reads_its_containers_states_and_limits(objects: KubernetesObjects) -> None:
    k8s_faults.oom_killed(objects, GPU[0][0], memory_limit="8Gi")
    pods = [Pod.from_api(slim("pods", p)) for p in objects.pods]
    [killed] = [
        p
        for p in pods
        if any(
            c.last_terminated and c.last_terminated.reason == "OOMKilled"
            for c in p.container_statuses
        )
    ]
    [status] = killed.container_statuses
    assert status.last_terminated is not None
    assert status.last_terminated.exit_code == "137"
    assert status.crashed
    assert status.restart_count == 3
    assert [(c.name, c.memory_limit) for c in killed.containers] == [(status.name, "8Gi")]
    assert killed.key == f"{killed.namespace}/{killed.name}"
    crashing = [p for p in pods if p.app == "aws-node" and p.needs_attention]
    [aws_node] = crashing
    waiting = aws_node.container_statuses[0].waiting
    assert waiting is not None
    assert waiting.reason == "CrashLoopBackOff"
