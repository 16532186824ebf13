"""Lifecycle-script fault families (§ D.1, § D.2)."""

from __future__ import annotations

from datetime import timedelta

from cluster_simulator import base
from cluster_simulator.edits import (
    FAILED_NODE,
    REPLACED_NODE,
    add_event,
    group_of,
    set_status,
    write_log,
)
from cluster_simulator.scenario import Scenario
from cluster_simulator.world import World


def lifecycle_optional_step_failed(world: World) -> None:
    """A Running gpu-workers node logged a failed optional step; its scripts went on."""
    group = group_of(world, FAILED_NODE)
    write_log(
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
    group = group_of(world, FAILED_NODE)
    lifecycle_crlf_logs(world)
    event = add_event(
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
    group = group_of(world, FAILED_NODE)
    stream = f"LifecycleConfig/{group}/{FAILED_NODE}"
    set_status(
        world,
        FAILED_NODE,
        "Failure",
        f"Lifecycle scripts did not complete. See {stream} in CloudWatch Logs for details.",
    )
    for node in world.nodes:
        if node["InstanceId"] == FAILED_NODE:
            node["LaunchTime"] = base.iso(base.RECORDED_AT - timedelta(hours=1))
    write_log(
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


def lifecycle_replaced_node_history(world: World) -> None:
    """Two days ago a gpu-workers node timed out fetching its lifecycle scripts and was
    replaced; the replacement runs and the group is back at its target count."""
    stream = f"LifecycleConfig/{base.GPU_GROUP}/{REPLACED_NODE}"
    url = f"https://{base.LIFECYCLE_BUCKET}.s3.{base.REGION}.amazonaws.com/lifecycle/on_create.sh"
    write_log(
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
        write_log(
            world,
            stream,
            [
                f"download: s3://{base.LIFECYCLE_BUCKET}/lifecycle/pkg/part{n:03d}.tar to "
                f"/tmp/lcs/part{n:03d}.tar (timeout=60)"
                for n in range(110)
            ],
            timedelta(hours=3),
        )


def cluster_failed_lifecycle_script(world: World) -> None:
    """The cluster's creation failed: on a gpu-workers instance lifecycle_script.py ran
    mount_fsx.sh, which stopped at line 31 (the Lustre client tools are missing) with exit
    status 127. HyperPod failed the group and the cluster and the instances are gone; only
    the LifecycleConfig stream tells why."""
    group = group_of(world, FAILED_NODE)
    stream = f"LifecycleConfig/{group}/{FAILED_NODE}"
    world.cluster["ClusterStatus"] = "Failed"
    world.cluster["FailureMessage"] = (
        f"Lifecycle scripts did not complete on an instance of InstanceGroup {group}. "
        "See the LifecycleConfig log streams in CloudWatch Logs for details."
    )
    for details in world.cluster["InstanceGroups"]:
        details["CurrentCount"] = 0
        details["Status"] = "Failed"
    world.nodes.clear()
    world.node_details.clear()
    fsx = f"fs-0123456789abcdef0.fsx.{base.REGION}.amazonaws.com"
    write_log(
        world,
        stream,
        [
            f"Downloading lifecycle scripts from s3://{base.LIFECYCLE_BUCKET}/lifecycle/",
            "Running lifecycle_script.py with resourceConfig: /opt/ml/config/"
            "resource_config.json, provisioning_parameters: provisioning_parameters.json",
            f"Execute script: mount_fsx.sh {fsx} abcdefgh /fsx",
            "/tmp/sagemaker-lcs/mount_fsx.sh: line 31: lfs: command not found",
            "Traceback (most recent call last):",
            '  File "/tmp/sagemaker-lcs/lifecycle_script.py", line 150, in <module>',
            "subprocess.CalledProcessError: Command '['sudo', 'bash', 'mount_fsx.sh', "
            f"'{fsx}', 'abcdefgh', '/fsx']' returned non-zero exit status 127.",
        ],
        timedelta(hours=2),
    )
    streams = world.log_streams[world.log_groups[0]]
    if stream not in streams:
        streams.append(stream)


LIFECYCLE: list[Scenario] = [
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
        "cluster-failed-lifecycle-script",
        "Slurm: the cluster failed to create because mount_fsx.sh, run by the lifecycle "
        "scripts on a gpu-workers instance, stopped at line 31 with exit status 127; the "
        "instances are gone, so the LifecycleConfig stream is the root cause (D.2 FAIL), "
        "not history.",
        "slurm",
        cluster_failed_lifecycle_script,
        expect=[
            ("cluster-status", "FAIL", "F.1"),
            ("instance-groups", "FAIL", "F"),  # gpu-workers
            ("instance-groups", "FAIL", "F"),  # controller: the whole create failed
            ("lifecycle-logs", "FAIL", "D.2"),
        ],
        resources={"lifecycle-logs": [FAILED_NODE]},
        # With no instance left there is no Slurm controller to read.
        skipped_include=["no Slurm controller group found"],
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
]
