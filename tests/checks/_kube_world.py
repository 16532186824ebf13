"""A replayed EKS world with Kubernetes objects for the registered k8s checks."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from cluster_simulator import base
from cluster_simulator.node_samples import k8s_node, k8s_objects
from cluster_simulator.world import World
from tools.aws.session import AwsAccess
from tools.kube.access import KubeAccess
from tools.recorded.model import KubernetesObjects
from tools.target import TriageTarget
from tools.triage.data import ClusterData, NodeSources
from tools.triage.data.kube_model import KubeEvent, Pod


def specs(world: World) -> list[k8s_node.NodeSpec]:
    return [
        (n["InstanceId"], n["InstanceGroupName"], n["InstanceType"], base.AZ) for n in world.nodes
    ]


def world_and_objects() -> tuple[World, KubernetesObjects, list[str]]:
    world = base.healthy_eks()
    nodes = specs(world)
    return world, k8s_objects.healthy_objects(nodes), [n[0] for n in nodes]


def kube_data(
    world: World,
    objects: KubernetesObjects | None = None,
    node: str | None = None,
    kube: Callable[[], KubeAccess] | None = None,
) -> ClusterData:
    target = TriageTarget(cluster=world.cluster["ClusterName"], region=world.region, node=node)
    source = kube or (lambda: KubeAccess.from_objects(objects or KubernetesObjects()))
    return ClusterData(
        AwsAccess(world.region, replay=world),
        target,
        now=base.RECORDED_AT,
        sources=NodeSources(kube=source),
    )


def parsed_pods(raw: Iterable[dict[str, Any]]) -> list[Pod]:
    """Literal (API-shaped) pods as the Kubernetes reads return them."""
    return [Pod.from_api(pod) for pod in raw]


def parsed_events(raw: Iterable[dict[str, Any]]) -> list[KubeEvent]:
    """Literal (API-shaped) events as the Kubernetes reads return them."""
    return [KubeEvent.from_api(event) for event in raw]
