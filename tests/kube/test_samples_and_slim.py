"""The sample objects are complete API objects; slimming keeps what checks read."""

from __future__ import annotations

from typing import Any

import pytest

from cluster_simulator.node_samples import k8s_faults, k8s_node, k8s_objects
from tools.kube.slim import DETAILS_LIMIT, TEXT_LIMIT, slim
from tools.recorded.model import KubernetesObjects

from .conftest import GPU


def test_every_sample_object_passes_the_clients_strict_models(objects: KubernetesObjects) -> None:
    from kubernetes import client

    k8s_faults.coredns_pending(objects)
    k8s_faults.oom_killed(objects, GPU[0][0])
    k8s_faults.set_node_not_ready(objects, GPU[1][0])
    k8s_faults.set_node_pressure(objects, GPU[3][0], "MemoryPressure")
    k8s_faults.set_node_health(
        objects,
        GPU[0][0],
        "UnschedulablePendingReplacement",
        deep="Failed",
        fault=k8s_faults.NodeFault(
            type="NvidiaGpuError",
            reason="XidHardwareFailure",
            details=k8s_faults.xid_fault_details(),
        ),
    )
    models: list[tuple[Any, list[dict[str, Any]]]] = [
        (client.V1Node, objects.nodes),
        (client.V1Pod, objects.pods),
        (client.V1DaemonSet, objects.daemonsets),
        (client.V1Deployment, objects.deployments),
        (client.CoreV1Event, objects.events),
    ]
    for model, items in models:
        assert items
        for item in items:
            model.from_dict(item)


def test_round_trip_through_the_recorded_format(objects: KubernetesObjects) -> None:
    again = KubernetesObjects.model_validate(objects.model_dump(mode="json"))
    assert again == objects


def test_slim_node_keeps_hyperpod_annotations_only(objects: KubernetesObjects) -> None:
    k8s_faults.set_node_health(
        objects,
        GPU[0][0],
        "UnschedulablePendingReboot",
        fault=k8s_faults.NodeFault(details="x" * 20_000),
    )
    slimmed = slim("nodes", k8s_node.find_node(objects, GPU[0][0]))
    assert list(slimmed["metadata"]["annotations"]) == ["sagemaker.amazonaws.com/fault-details"]
    assert len(slimmed["metadata"]["annotations"]["sagemaker.amazonaws.com/fault-details"]) == (
        DETAILS_LIMIT + 1
    )
    assert slimmed["spec"]["taints"][0]["key"] == "sagemaker.amazonaws.com/node-health-status"


@pytest.mark.parametrize("field", ["message", "reason"])
def test_slim_pod_caps_text_and_keeps_states(objects: KubernetesObjects, field: str) -> None:
    pod = k8s_objects.find_pod(objects, "aws-node", GPU[2][0])
    pod["status"]["containerStatuses"][0]["state"]["waiting"][field] = "y" * 5_000
    slimmed = slim("pods", pod)
    waiting = slimmed["status"]["containerStatuses"][0]["state"]["waiting"]
    assert len(waiting[field]) == (TEXT_LIMIT + 1 if field == "message" else 5_000)
    assert slimmed["status"]["containerStatuses"][0]["lastState"]["terminated"]["exitCode"] == 1
    assert set(slimmed["spec"]) == {"nodeName", "containers"}
    # Of the containers only the name and a memory limit stay (the image, args, env go).
    assert slimmed["spec"]["containers"] == [{"name": "aws-node", "resources": {}}]
    assert slimmed["metadata"]["ownerReferences"] == [{"kind": "DaemonSet", "name": "aws-node"}]
