"""Cluster, node and health-monitoring fault families (§ C, § F, § J)."""

from __future__ import annotations

import json
from datetime import timedelta

from cluster_simulator import base
from cluster_simulator.edits import (
    FAILED_NODE,
    NEVER_JOINED,
    REPLACED_NODE,
    UNKNOWN_NODE,
    group_of,
    set_status,
    write_log,
)
from cluster_simulator.scenario import Scenario, unchanged
from cluster_simulator.world import World


def capacity_failure_ongoing(world: World) -> None:
    """gpu-workers was scaled to 5 but the fifth launch failed for capacity: the instance
    never joined and the group is still below target."""
    group = next(
        g for g in world.cluster["InstanceGroups"] if g["InstanceGroupName"] == base.GPU_GROUP
    )
    group["TargetCount"] = group["CurrentCount"] + 1
    world.events.insert(
        0,
        {
            "EventId": "evt-cap-0001",
            "ClusterArn": world.cluster["ClusterArn"],
            "ClusterName": world.cluster["ClusterName"],
            "InstanceGroupName": "gpu-workers",
            "InstanceId": NEVER_JOINED,
            "ResourceType": "Instance",
            "EventTime": base.iso(base.RECORDED_AT - timedelta(minutes=20)),
            "Description": "Instance launch failed: InsufficientInstanceCapacity: We currently "
            "do not have sufficient p5.48xlarge capacity in the Availability Zone you requested",
            "EventLevel": "Error",
        },
    )


def node_recovery_none_failed_node(world: World) -> None:
    world.cluster["NodeRecovery"] = "None"
    set_status(
        world,
        FAILED_NODE,
        "Failure",
        "Instance failed health checks: 7 of 8 GPUs visible to nvidia-smi",
    )


def threads_per_core_p5(world: World) -> None:
    for group in world.cluster["InstanceGroups"]:
        if group["InstanceType"] == "ml.p5.48xlarge":
            group["ThreadsPerCore"] = 1
            for details in world.node_details.values():
                if details["InstanceGroupName"] == group["InstanceGroupName"]:
                    details["ThreadsPerCore"] = 1


def events_unavailable(world: World) -> None:
    del world.cluster["NodeProvisioningMode"]
    world.events = []


def hma_xid_detection(world: World) -> None:
    group = group_of(world, FAILED_NODE)
    stream = f"SagemakerHealthMonitoringAgent/{group}/{FAILED_NODE}"
    when = base.RECORDED_AT - timedelta(hours=3)
    detail = {
        "severity": "warn",
        "timestamp": base.iso(when),
        "reason": "XidHardwareFailure",
        "message": (
            "Node condition NvidiaErrorReboot is now: True, reason: XidHardwareFailure, "
            'message: "NVRM: Xid (PCI:0000:a8:00): 79, pid=<unknown>, name=<unknown>, '
            'GPU has fallen off the bus."'
        ),
    }
    detection = {
        "level": "info",
        "ts": base.iso(when),
        "msg": "NPD caught event: %v",
        "details: ": detail,
        "HealthMonitoringAgentDetectionEvent": "HealthEvent",
    }
    write_log(
        world,
        stream,
        [
            json.dumps({"level": "info", "ts": base.iso(when), "msg": "GPU health check passed"}),
            json.dumps(detection),
        ],
        timedelta(hours=3),
    )


def hma_replaced_node_history(world: World) -> None:
    """The Health Monitoring Agent flagged a gpu-workers node (Xid 79) three hours ago and
    HyperPod replaced it: the stream belongs to an instance the cluster no longer has."""
    hma_xid_detection(world)
    group = group_of(world, FAILED_NODE)
    old = f"SagemakerHealthMonitoringAgent/{group}/{FAILED_NODE}"
    world.log_events[f"SagemakerHealthMonitoringAgent/{group}/{REPLACED_NODE}"] = (
        world.log_events.pop(old)
    )


def hma_detections_on_two_nodes(world: World) -> None:
    """The Xid 79 detection on FAILED_NODE, and a newer one on another gpu-workers node."""
    hma_xid_detection(world)
    other = base.instance_id(2)
    stream = f"SagemakerHealthMonitoringAgent/{group_of(world, other)}/{other}"
    detection = {
        "level": "info",
        "msg": "NPD caught event: %v",
        "details: ": {
            "severity": "warn",
            "reason": "NvidiaGpuCountMismatch",
            "message": "Node condition NvidiaErrorTerminate is now: True, reason: "
            "NvidiaGpuCountMismatch, message: 7 of 8 GPUs visible",
        },
        "HealthMonitoringAgentDetectionEvent": "HealthEvent",
    }
    write_log(world, stream, [json.dumps(detection)], timedelta(minutes=30))


CLUSTER: list[Scenario] = [
    Scenario(
        "capacity-failure-ongoing",
        "EKS: gpu-workers is one node below target because its latest launch failed with "
        "InsufficientInstanceCapacity; the failed instance never joined, so the Error event "
        "is a current § C failure, not history.",
        "eks",
        capacity_failure_ongoing,
        expect=[("cluster-events", "FAIL", "C"), ("instance-groups", "WARN", "F")],
        resources={"cluster-events": [NEVER_JOINED]},
        must_not=[("cluster-events", "INFO")],
    ),
    Scenario(
        "node-recovery-none-failed-node",
        "EKS: NodeRecovery is None and one GPU node is in Failure after failing health checks.",
        "eks",
        node_recovery_none_failed_node,
        expect=[("node-recovery", "WARN", "F.1"), ("cluster-nodes", "FAIL", "F")],
        resources={"cluster-nodes": [FAILED_NODE]},
    ),
    Scenario(
        "threads-per-core-p5",
        "EKS: the p5.48xlarge group was created with ThreadsPerCore=1 (96 of 192 vCPUs).",
        "eks",
        threads_per_core_p5,
        expect=[("threads-per-core", "WARN", "J")],
    ),
    Scenario(
        "node-not-in-cluster",
        "EKS: triage is focused on an instance id the cluster does not know.",
        "eks",
        unchanged,
        expect=[("node-detail", "FAIL", "F")],
        resources={"node-detail": [UNKNOWN_NODE]},
        node=UNKNOWN_NODE,
    ),
    Scenario(
        "hma-focused-node",
        "EKS, triage focused on one GPU node: the Health Monitoring Agent flagged it (Xid 79) "
        "and, more recently, another node; only the focused node's stream is read.",
        "eks",
        hma_detections_on_two_nodes,
        expect=[("health-monitoring-agent", "WARN", "F.3")],
        resources={"health-monitoring-agent": [FAILED_NODE]},
        node=FAILED_NODE,
    ),
    Scenario(
        "hma-replaced-node-history",
        "EKS: the Health Monitoring Agent flagged a GPU node (Xid 79) that HyperPod has since "
        "replaced; the cluster is whole again, so the detection is history (INFO).",
        "eks",
        hma_replaced_node_history,
        expect=[("health-monitoring-agent", "INFO", "F.3")],
        resources={"health-monitoring-agent": [REPLACED_NODE]},
        must_not=[("health-monitoring-agent", "WARN")],
    ),
    Scenario(
        "events-unavailable",
        "Slurm: a healthy cluster without NodeProvisioningMode=Continuous, so no events.",
        "slurm",
        events_unavailable,
        expect=[],
        must_not=[("cluster-events", "FAIL"), ("cluster-events", "WARN")],
    ),
    Scenario(
        "hma-xid-detection",
        "EKS: the Health Monitoring Agent reported an Xid hardware failure on one GPU node.",
        "eks",
        hma_xid_detection,
        expect=[("health-monitoring-agent", "WARN", "F.3")],
        resources={"health-monitoring-agent": [FAILED_NODE]},
    ),
]
