"""Fetching: every AWS read a check needs, made once per run and shared between checks.

Checks never call AWS themselves; they ask this object, which memoises each answer (or
each error, so a denied API is asked once and reported once per check that needs it).
Parameters are deterministic so a recorded cluster replays them exactly.

The reads are grouped by service, one mixin each over the shared memo (`_memo.Memo`):
`sagemaker` (the cluster, nodes, events), `network` (EC2 / VPC), `eks`, `iam` (role
policy documents), `logs` (CloudWatch Logs) and `ownership` (tags, CloudFormation).
`ClusterData` composes them.
"""

from __future__ import annotations

from collections.abc import Callable

from tools.probes.instance_facts import ec2_type
from tools.triage.data.eks import EksReads
from tools.triage.data.iam import IamReads
from tools.triage.data.kube import KubeReads
from tools.triage.data.logs import LOG_PAGE_BUDGET, LOG_WINDOW, LOG_WINDOWS, LogReads
from tools.triage.data.network import NetworkReads
from tools.triage.data.node_probes import NodeReads, NodeSources
from tools.triage.data.ownership import OwnershipReads
from tools.triage.data.sagemaker import (
    EKS_CLUSTER_ARN,
    EVENT_CAP,
    EVENT_PAGE,
    NODE_CAP,
    NODE_PAGE,
    ClusterNotFound,
    SageMakerReads,
    cluster_id_from_arn,
)
from tools.triage.data.slurm_reads import SlurmReads

__all__ = [
    "EKS_CLUSTER_ARN",
    "EVENT_CAP",
    "EVENT_PAGE",
    "LOG_PAGE_BUDGET",
    "LOG_WINDOW",
    "LOG_WINDOWS",
    "NODE_CAP",
    "NODE_PAGE",
    "ClusterData",
    "ClusterNotFound",
    "NodeSources",
    "cluster_id_from_arn",
    "ec2_type",
]


class ClusterData(
    KubeReads,
    SlurmReads,
    NodeReads,
    NetworkReads,
    EksReads,
    IamReads,
    LogReads,
    OwnershipReads,
    SageMakerReads,
):
    """Every read of one triage: `ClusterData(access, target, now=...)`."""

    def long_reads(self) -> list[Callable[[], object]]:
        """The long, independent reads a whole triage needs (the node listing, the events,
        the Kubernetes node and pod lists): started first and side by side, so that no
        check waits for one of them and then starts the next (see run_checks)."""
        reads: list[Callable[[], object]] = [self.nodes]
        if self.events_available():
            reads.append(self.events)
        if self.orchestrator == "eks":
            reads.append(self.kube_nodes)
            if self.target.node is None:
                reads.append(self.kube_pods_in_scope)
        return reads
