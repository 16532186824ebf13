"""Orchestrator fault families: Kubernetes (§ F.2, § M, § O) and Slurm (§ H)."""

from __future__ import annotations

from cluster_simulator import base
from cluster_simulator.node_samples import k8s_faults, slurm
from cluster_simulator.node_scenario import (
    GPU_NODE,
    SECOND_GPU_NODE,
    ExpectedFinding,
    one_finding,
    rewrite_sinfo,
    set_controller,
)
from cluster_simulator.node_world import slurm_name
from cluster_simulator.scenario import Scenario
from cluster_simulator.world import World
from tools.recorded.model import KubernetesObjects


def _objects(world: World) -> KubernetesObjects:
    assert world.kubernetes is not None, "an EKS world has Kubernetes objects"
    return world.kubernetes


# -- Kubernetes (§ F.2, § M, § O) --------------------------------------------------------------


def aws_node_crashloop(world: World) -> None:
    k8s_faults.aws_node_crashloop(_objects(world), base.instance_id(5))


def coredns_pending(world: World) -> None:
    k8s_faults.coredns_pending(_objects(world))


def image_pull_backoff(world: World) -> None:
    k8s_faults.image_pull_backoff(_objects(world), GPU_NODE)


def pending_replacement(world: World) -> None:
    k8s_faults.set_node_health(
        _objects(world),
        SECOND_GPU_NODE,
        "UnschedulablePendingReplacement",
        fault=k8s_faults.NodeFault(
            type="NvidiaErrorReplace",
            reason="XidHardwareFailure",
            details=k8s_faults.xid_fault_details(),
        ),
    )


# -- Slurm (§ H) -------------------------------------------------------------------------------


def slurm_unexpected_reboot(world: World) -> None:
    rewrite_sinfo(world, {SECOND_GPU_NODE: ("down", "Node unexpectedly rebooted")})


def slurm_job_stuck_completing(world: World) -> None:
    rewrite_sinfo(world, {SECOND_GPU_NODE: ("down*", "Not responding")})
    name = slurm_name(next(n for n in world.nodes if n["InstanceId"] == SECOND_GPU_NODE))
    set_controller(
        world,
        "slurm_stuck_jobs",
        slurm.squeue([("4412", "COMPLETING", "3:12:40", name, "pretrain")]),
    )


def slurmctld_down(world: World) -> None:
    set_controller(world, "slurm_controller", slurm.scontrol_ping_unreachable())


ORCHESTRATORS: list[Scenario] = [
    one_finding(
        "aws-node-crashloop-50051",
        "aws-node crash-loops on one node: ipamd never listens on 127.0.0.1:50051.",
        "eks",
        aws_node_crashloop,
        ExpectedFinding("k8s-cni", "FAIL", "O", base.instance_id(5)),
    ),
    one_finding(
        "coredns-pending",
        "Both CoreDNS pods are Pending: no node would schedule them.",
        "eks",
        coredns_pending,
        ExpectedFinding("k8s-cni", "FAIL", "O", ""),
    ),
    one_finding(
        "image-pull-backoff",
        "A training pod on a GPU node is in ImagePullBackOff (a mistyped image tag).",
        "eks",
        image_pull_backoff,
        ExpectedFinding("k8s-pod-failures", "FAIL", "M", GPU_NODE),
    ),
    one_finding(
        "k8s-pending-replacement",
        "HyperPod labelled a GPU node UnschedulablePendingReplacement after a hardware Xid.",
        "eks",
        pending_replacement,
        ExpectedFinding("k8s-node-health", "FAIL", "F.2", SECOND_GPU_NODE),
    ),
    one_finding(
        "slurm-node-unexpected-reboot",
        'A Slurm worker is DOWN with reason "Node unexpectedly rebooted".',
        "slurm",
        slurm_unexpected_reboot,
        ExpectedFinding("slurm-nodes", "FAIL", "H.1", SECOND_GPU_NODE),
    ),
    Scenario(
        "slurm-job-stuck-completing",
        "A job is stuck COMPLETING on a worker that stopped responding.",
        "slurm",
        slurm_job_stuck_completing,
        expect=[("slurm-nodes", "FAIL", "H.1"), ("slurm-jobs", "FAIL", "H.2")],
        resources={"slurm-jobs": [SECOND_GPU_NODE], "slurm-nodes": [SECOND_GPU_NODE]},
    ),
    one_finding(
        "slurmctld-down",
        "slurmctld does not answer scontrol ping on the controller.",
        "slurm",
        slurmctld_down,
        ExpectedFinding("slurm-nodes", "FAIL", "H", ""),
    ),
]
