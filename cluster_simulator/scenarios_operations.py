"""Cluster operations and deep health check results (§ F, § G.1.b)."""

from __future__ import annotations

from datetime import timedelta

from cluster_simulator import base
from cluster_simulator.edits import FAILED_NODE, add_event, group_of, set_status, write_log
from cluster_simulator.node_samples import deep_health_check as dhc
from cluster_simulator.node_world import set_probe
from cluster_simulator.scenario import Scenario
from cluster_simulator.world import Json, World

SCALING_OP = "5a6b7c8d-1e2f-4a3b-8c4d-5e6f7a8b9c0d"
DHC_OP = "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a"
NEW_NODES = (base.instance_id(90), base.instance_id(91))
DHC_STREAM = "DeepHealthCheckResults/0c1d2e3f"


def _operation(world: World, op_id: str, kind: str, status: str, age: timedelta) -> Json:
    summary: Json = {
        "OperationId": op_id,
        "ClusterArn": world.cluster["ClusterArn"],
        "Type": kind,
        "Status": status,
        "CreationTime": base.iso(base.RECORDED_AT - age),
    }
    world.operations.insert(0, summary)  # ListClusterOperations answers newest first
    return summary


def scaling_in_progress(world: World) -> None:
    """gpu-workers is being scaled from 4 to 6 nodes: the scaling operation started 40
    minutes ago and its two new nodes are still Pending."""
    group = next(
        g for g in world.cluster["InstanceGroups"] if g["InstanceGroupName"] == base.GPU_GROUP
    )
    group["TargetCount"] = group["CurrentCount"] + len(NEW_NODES)
    _operation(world, SCALING_OP, "Scaling", "InProgress", timedelta(minutes=40))
    world.operation_details[SCALING_OP] = {
        "ScalingDetails": [
            {
                "InstanceGroupName": base.GPU_GROUP,
                "Status": "InProgress",
                "Original": {"CurrentCount": 4, "TargetCount": 4},
                "Desired": {"TargetCount": 4 + len(NEW_NODES)},
            }
        ]
    }
    template = next(n for n in world.nodes if n["InstanceGroupName"] == base.GPU_GROUP)
    for instance in NEW_NODES:
        world.nodes.append(
            {
                **template,
                "InstanceId": instance,
                "LaunchTime": base.iso(base.RECORDED_AT - timedelta(minutes=35)),
                "InstanceStatus": {"Status": "Pending", "Message": ""},
            }
        )


def deep_health_check_replace(world: World) -> None:
    """An on-demand deep health check of one GPU node found it faulty two hours ago: the
    operation's events report the failure, its CloudWatch result asks for a replacement,
    and the node's own log says replacementRequired: true. NodeRecovery is None, so the
    node is still there, in Failure."""
    world.cluster["NodeRecovery"] = "None"
    set_status(world, FAILED_NODE, "Failure", "Instance failed deep health checks")
    group = group_of(world, FAILED_NODE)
    _operation(world, DHC_OP, "DeepHealthCheck", "Done", timedelta(hours=2))
    world.operation_details[DHC_OP] = {
        "DeepHealthCheckDetails": [
            {
                "InstanceGroupName": group,
                "InstanceIds": [FAILED_NODE],
                "DeepHealthChecks": ["InstanceStress", "InstanceConnectivity"],
            }
        ]
    }
    event = add_event(
        world,
        "evt-dhc-0001",
        FAILED_NODE,
        "Error",
        "Deep health check failed for the instance: DCGM diagnostic reported a failure",
    )
    event["OperationId"] = DHC_OP
    event["EventTime"] = base.iso(base.RECORDED_AT - timedelta(hours=1, minutes=30))
    log_group = world.log_groups[0]
    world.log_streams[log_group] = sorted([*world.log_streams[log_group], DHC_STREAM])
    moment = base.RECORDED_AT - timedelta(hours=1, minutes=35)
    write_log(
        world,
        DHC_STREAM,
        [dhc.cloudwatch_faulty(FAILED_NODE, moment, "p5.48xlarge")],
        timedelta(hours=1, minutes=35),
    )
    set_probe(
        world,
        FAILED_NODE,
        "deep_health_check_log",
        dhc.node_log("replace", base.RECORDED_AT - timedelta(hours=2)),
    )


OPERATIONS: list[Scenario] = [
    Scenario(
        "scaling-in-progress",
        "EKS: gpu-workers is being scaled from 4 to 6 nodes; the scaling operation started 40 "
        "minutes ago and the two new nodes are Pending, which the operation explains (INFO).",
        "eks",
        scaling_in_progress,
        # The group below target and the Pending nodes are what the other checks see; the
        # operation in progress is the INFO that explains them.
        expect=[
            ("instance-groups", "WARN", "F"),
            ("cluster-nodes", "WARN", "F"),
            ("cluster-nodes", "WARN", "F"),
        ],
        must_not=[("cluster-operations", "FAIL"), ("cluster-operations", "WARN")],
    ),
    Scenario(
        "deep-health-check-replace",
        "EKS, NodeRecovery None: an on-demand deep health check found a GPU node faulty; its "
        "operation has an Error event, the DeepHealthCheckResults stream names the instance "
        "to replace and the node's log says replacementRequired: true.",
        "eks",
        deep_health_check_replace,
        expect=[
            ("cluster-nodes", "FAIL", "F"),
            ("cluster-events", "FAIL", "F"),
            ("node-recovery", "WARN", "F.1"),
            ("cluster-operations", "FAIL", "G.1.b"),
            ("deep-health-check-logs", "FAIL", "G.1.b"),
            ("node-deep-health-check", "FAIL", "G.1.b"),
        ],
        resources={
            "cluster-operations": [FAILED_NODE],
            "deep-health-check-logs": [FAILED_NODE],
            "node-deep-health-check": [FAILED_NODE],
        },
    ),
]
