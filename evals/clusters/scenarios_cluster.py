"""Cluster and provisioning fault families (§ D, § F, § J)."""

from __future__ import annotations

import json
from datetime import timedelta

from evals.clusters import base
from evals.clusters.scenario import Scenario, unchanged
from evals.clusters.world import Json, World

FAILED_NODE = base.instance_id(3)  # a gpu-workers node in both base worlds
UNKNOWN_NODE = "i-0deadbeefdeadbeef"
REPLACED_NODE = "i-0feedfacefeedface"  # a gpu-workers node HyperPod has since replaced
NEVER_JOINED = "i-0badcafebadcafe00"  # a gpu-workers launch that failed for capacity


def _set_status(world: World, instance: str, status: str, message: str) -> None:
    for node in world.nodes:
        if node["InstanceId"] == instance:
            node["InstanceStatus"] = {"Status": status, "Message": message}
    if instance in world.node_details:
        world.node_details[instance]["InstanceStatus"] = {"Status": status, "Message": message}


def _group_of(world: World, instance: str) -> str:
    return str(next(n for n in world.nodes if n["InstanceId"] == instance)["InstanceGroupName"])


def _log(world: World, stream: str, lines: list[str], start: timedelta) -> None:
    """Replace a stream's events with `lines`, written `start` before the recording time."""
    moment = base.RECORDED_AT - start
    world.log_events[stream] = [
        {"timestamp": base.ms(moment + timedelta(seconds=i)), "message": line}
        for i, line in enumerate(lines)
    ]


def _event(world: World, event_id: str, instance: str, level: str, description: str) -> Json:
    event: Json = {
        "EventId": event_id,
        "ClusterArn": world.cluster["ClusterArn"],
        "ClusterName": world.cluster["ClusterName"],
        "InstanceGroupName": _group_of(world, instance),
        "InstanceId": instance,
        "ResourceType": "Instance",
        "EventTime": base.iso(base.RECORDED_AT - timedelta(minutes=50)),
        "Description": description,
        "EventLevel": level,
    }
    world.events.insert(0, event)  # ListClusterEvents answers newest first
    return event


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


def lifecycle_optional_step_failed(world: World) -> None:
    """A Running gpu-workers node logged a failed optional step; its scripts went on."""
    group = _group_of(world, FAILED_NODE)
    _log(
        world,
        f"LifecycleConfig/{group}/{FAILED_NODE}",
        [
            "Running on_create.sh",
            "[WARN] optional setup script install_dcgm.sh failed; continuing",
            "Lifecycle scripts completed successfully",
        ],
        timedelta(hours=3),
    )


def lifecycle_crlf(world: World) -> None:
    group = _group_of(world, FAILED_NODE)
    lifecycle_crlf_logs(world)
    event = _event(
        world,
        "evt-lcs-0001",
        FAILED_NODE,
        "Error",
        f"Instance creation in Cluster {world.cluster['ClusterName']} and InstanceGroup "
        f"{group} failed",
    )
    world.event_metadata[event["EventId"]] = {
        "Instance": {
            "FailureMessage": "Lifecycle script on_create.sh exited with a non-zero status",
        }
    }


def lifecycle_crlf_logs(world: World) -> None:
    """FAILED_NODE, a replacement launched an hour ago, is in Failure: its on_create.sh has
    Windows line endings."""
    group = _group_of(world, FAILED_NODE)
    stream = f"LifecycleConfig/{group}/{FAILED_NODE}"
    _set_status(
        world,
        FAILED_NODE,
        "Failure",
        f"Lifecycle scripts did not complete. See {stream} in CloudWatch Logs for details.",
    )
    for node in world.nodes:
        if node["InstanceId"] == FAILED_NODE:
            node["LaunchTime"] = base.iso(base.RECORDED_AT - timedelta(hours=1))
    _log(
        world,
        stream,
        [
            f"Downloading lifecycle scripts from s3://{base.LIFECYCLE_BUCKET}/lifecycle/",
            "Running on_create.sh",
            "/tmp/on_create.sh: line 2: $'\\r': command not found",
            "/tmp/on_create.sh: line 3: set: -\r: invalid option",
            "on_create.sh failed with exit code 2",
        ],
        timedelta(minutes=55),
    )


def lifecycle_bucket_not_sagemaker(world: World) -> None:
    for group in world.cluster["InstanceGroups"]:
        group["LifeCycleConfig"]["SourceS3Uri"] = "s3://my-company-lcs/hyperpod/"
    for details in world.node_details.values():
        details["LifeCycleConfig"] = {
            **details["LifeCycleConfig"],
            "SourceS3Uri": "s3://my-company-lcs/hyperpod/",
        }
    # The role can read another of the company's buckets, not the lifecycle one.
    world.role_inline_policies[base.ROLE_NAME] = {
        "training-data": {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Effect": "Allow",
                    "Action": ["s3:GetObject", "s3:ListBucket"],
                    "Resource": ["arn:aws:s3:::my-company-data", "arn:aws:s3:::my-company-data/*"],
                }
            ],
        }
    }


def node_recovery_none_failed_node(world: World) -> None:
    world.cluster["NodeRecovery"] = "None"
    _set_status(
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
    group = _group_of(world, FAILED_NODE)
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
    _log(
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
    group = _group_of(world, FAILED_NODE)
    old = f"SagemakerHealthMonitoringAgent/{group}/{FAILED_NODE}"
    world.log_events[f"SagemakerHealthMonitoringAgent/{group}/{REPLACED_NODE}"] = (
        world.log_events.pop(old)
    )


def lifecycle_replaced_node_history(world: World) -> None:
    """Two days ago a gpu-workers node timed out fetching its lifecycle scripts and was
    replaced; the replacement runs and the group is back at its target count."""
    stream = f"LifecycleConfig/{base.GPU_GROUP}/{REPLACED_NODE}"
    url = f"https://{base.LIFECYCLE_BUCKET}.s3.{base.REGION}.amazonaws.com/lifecycle/on_create.sh"
    _log(
        world,
        stream,
        [
            f"Downloading lifecycle scripts from s3://{base.LIFECYCLE_BUCKET}/lifecycle/",
            f'Connect timeout on endpoint URL: "{url}"',
            "on_create.sh failed with exit code 255",
        ],
        timedelta(days=2),
    )
    world.log_streams[world.log_groups[0]].append(stream)
    world.events.insert(
        0,
        {
            "EventId": "evt-replaced-0001",
            "ClusterArn": world.cluster["ClusterArn"],
            "ClusterName": world.cluster["ClusterName"],
            "InstanceGroupName": base.GPU_GROUP,
            "InstanceId": REPLACED_NODE,
            "ResourceType": "Instance",
            "EventTime": base.iso(base.RECORDED_AT - timedelta(days=2)),
            "Description": "Lifecycle script on_create.sh failed on the instance",
            "EventLevel": "Error",
        },
    )


def lifecycle_newest_failure_past_noise(world: World) -> None:
    """A node failed its lifecycle scripts 40 minutes ago, while the other nodes' streams
    hold more benign candidate lines (download options that mention a timeout) from the
    hours before than the scan reads: the newest window is read first, so the failure is
    still seen and the scan reports itself capped."""
    lifecycle_crlf_logs(world)
    for node in world.nodes:
        if node["InstanceId"] == FAILED_NODE or node["InstanceGroupName"] != base.GPU_GROUP:
            continue
        stream = f"LifecycleConfig/{node['InstanceGroupName']}/{node['InstanceId']}"
        _log(
            world,
            stream,
            [
                f"download: s3://{base.LIFECYCLE_BUCKET}/lifecycle/pkg/part{n:03d}.tar to "
                f"/tmp/lcs/part{n:03d}.tar (timeout=60)"
                for n in range(110)
            ],
            timedelta(hours=3),
        )


def hma_detections_on_two_nodes(world: World) -> None:
    """The Xid 79 detection on FAILED_NODE, and a newer one on another gpu-workers node."""
    hma_xid_detection(world)
    other = base.instance_id(2)
    stream = f"SagemakerHealthMonitoringAgent/{_group_of(world, other)}/{other}"
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
    _log(world, stream, [json.dumps(detection)], timedelta(minutes=30))


CLUSTER: list[Scenario] = [
    Scenario(
        "lifecycle-optional-step-failed",
        "EKS: a gpu-workers node logged that an optional setup script failed, but it is "
        "Running (HyperPod fails a node whose lifecycle script exits non-zero): WARN P2, "
        "not a P0.",
        "eks",
        lifecycle_optional_step_failed,
        expect=[("lifecycle-logs", "WARN", "D.2")],
        resources={"lifecycle-logs": [FAILED_NODE]},
        must_not=[("lifecycle-logs", "FAIL")],
    ),
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
        "lifecycle-crlf",
        "Slurm: a replacement gpu-workers node fails provisioning because on_create.sh has "
        "Windows (CRLF) line endings; the node is in Failure and an Error event reports it.",
        "slurm",
        lifecycle_crlf,
        expect=[
            ("cluster-nodes", "FAIL", "F"),
            ("cluster-events", "FAIL", "D"),
            ("lifecycle-logs", "FAIL", "D.2"),
        ],
        resources={
            "cluster-nodes": [FAILED_NODE],
            "cluster-events": [FAILED_NODE],
            "lifecycle-logs": [FAILED_NODE],
        },
    ),
    Scenario(
        "lifecycle-bucket-not-sagemaker",
        "EKS: the lifecycle scripts live in s3://my-company-lcs, which the execution role's "
        "identity policies (managed policy only, plus access to another bucket) do not grant; "
        "the bucket policy is not read, so this is a WARN, not a FAIL.",
        "eks",
        lifecycle_bucket_not_sagemaker,
        expect=[("lifecycle-bucket-access", "WARN", "D.1")],
        must_not=[("lifecycle-bucket-access", "FAIL")],
        resources={"lifecycle-bucket-access": [base.ROLE_ARN]},
    ),
    Scenario(
        "lifecycle-replaced-node-history",
        "EKS: two days ago a gpu-workers node timed out fetching its lifecycle scripts from S3 "
        "and was replaced; the cluster is healthy now, so its lifecycle log lines and its "
        "Error event are history (INFO), not failures.",
        "eks",
        lifecycle_replaced_node_history,
        expect=[],
        must_not=[
            ("lifecycle-logs", "FAIL"),
            ("lifecycle-logs", "WARN"),
            ("cluster-events", "FAIL"),
            ("cluster-events", "WARN"),
        ],
    ),
    Scenario(
        "lifecycle-newest-failure-capped",
        "Slurm: a replacement gpu-workers node failed its CRLF on_create.sh 55 minutes ago "
        "while the other gpu nodes logged 330 benign download lines (with a timeout option) "
        "in the hours before: the scan reads the newest hour first, finds the failure, and "
        "says it was capped.",
        "slurm",
        lifecycle_newest_failure_past_noise,
        expect=[
            ("cluster-nodes", "FAIL", "F"),
            ("lifecycle-logs", "FAIL", "D.2"),
            ("lifecycle-logs", "WARN", "D.2"),
        ],
        resources={"cluster-nodes": [FAILED_NODE], "lifecycle-logs": [FAILED_NODE]},
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
