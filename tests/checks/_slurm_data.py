"""A ClusterData for the Slurm checks: the real Slurm reads over literal HyperPod nodes and
literal controller probe outputs (no AWS, no SSM)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from cluster_simulator.node_samples import slurm as samples
from tools.aws.errors import AccessDenied
from tools.aws.session import AwsAccess
from tools.findings import Finding, Status
from tools.probes.model import NodeProbes, ProbeOutput
from tools.registry import get_check
from tools.sources import ProbesUnavailable
from tools.target import TriageTarget
from tools.triage.data import ClusterData
from tools.triage.data.sagemaker_model import Cluster, ClusterNode, NodeListing
from tools.triage.data.slurm_source import SlurmSource

REGION = "us-west-2"
CONTROLLER = "i-0c0000000000000aa"


def hp_node(
    instance_id: str,
    ip: str,
    group: str = "workers",
    *,
    hostname: bool = True,
    status: str = "Running",
    instance_type: str = "ml.p5.48xlarge",
) -> dict[str, Any]:
    """A ListClusterNodes summary; `hostname=False` leaves PrivateDnsHostname out."""
    node: dict[str, Any] = {
        "InstanceGroupName": group,
        "InstanceId": instance_id,
        "InstanceType": instance_type,
        "InstanceStatus": {"Status": status},
    }
    if hostname:
        node["PrivateDnsHostname"] = f"ip-{ip.replace('.', '-')}.{REGION}.compute.internal"
    return node


def output(stdout: str, exit_code: int | None = 0, truncated: bool = False) -> ProbeOutput:
    return ProbeOutput(stdout=stdout, exit_code=exit_code, truncated=truncated)


def probe_outputs(
    sinfo: str | ProbeOutput | None = "",
    squeue: str | ProbeOutput | None = "",
    ping: str | ProbeOutput | None = None,
    resource_config: str | ProbeOutput | None = None,
) -> dict[str, ProbeOutput]:
    """The four controller probes; a string is a successful output, None leaves it out."""
    ping = samples.scontrol_ping() if ping is None else ping
    named = {
        "slurm_nodes": sinfo,
        "slurm_stuck_jobs": squeue,
        "slurm_controller": ping,
        "slurm_resource_config": resource_config,
    }
    return {
        name: value if isinstance(value, ProbeOutput) else output(value)
        for name, value in named.items()
        if value is not None
    }


@dataclass(frozen=True)
class NodeReadFaults:
    """How the literal HyperPod node reads fail: ListClusterNodes capped or denied,
    DescribeClusterNode denied."""

    list_truncated: bool = False
    list_denied: bool = False
    describe_denied: bool = False


class SlurmData(ClusterData):
    """`nodes()`, `node_detail()` and `slurm_probes()` answer from literals; every other
    read is the real one (memo, Slurm parsing, the node map, the orchestrator)."""

    def __init__(
        self,
        outputs: dict[str, ProbeOutput] | None,
        nodes: list[dict[str, Any]] | None = None,
        *,
        details: dict[str, dict[str, Any]] | None = None,
        focus: str | None = None,
        unreachable: str | None = None,
        faults: NodeReadFaults | None = None,
    ) -> None:
        faults = faults or NodeReadFaults()
        target = TriageTarget(cluster="ml-cluster", region=REGION, node=focus)
        super().__init__(cast(AwsAccess, None), target)
        self._outputs = outputs
        self._nodes = nodes or []
        self._details = details or {}
        self._unreachable = unreachable
        self._list_truncated = faults.list_truncated
        self._list_denied = faults.list_denied
        self._describe_denied = faults.describe_denied
        self.described: list[str] = []

    def cluster(self) -> Cluster:
        return Cluster.from_api(
            {
                "ClusterName": "ml-cluster",
                "ClusterArn": f"arn:aws:sagemaker:{REGION}:111122223333:cluster/abcd1234efgh",
                "ClusterStatus": "InService",
                "InstanceGroups": [],
            }
        )

    def nodes(self) -> NodeListing:
        if self._list_denied:
            raise AccessDenied("sagemaker", "ListClusterNodes", "denied")
        items = tuple(ClusterNode.from_api(n) for n in self._nodes)
        return NodeListing(items=items, truncated=self._list_truncated)

    def node_detail(self, node_id: str) -> ClusterNode:
        self.described.append(node_id)
        if self._describe_denied:
            raise AccessDenied("sagemaker", "DescribeClusterNode", "denied")
        return ClusterNode.from_api(self._details.get(node_id, {}))

    def slurm_source(self) -> SlurmSource:
        self.slurm_probes()  # the same error when the probes cannot run
        return SlurmSource(CONTROLLER, "sinfo is not installed here")

    def slurm_probes(self) -> NodeProbes:
        if self._outputs is None:
            raise ProbesUnavailable("node probes are not configured for this run", hint="")
        return NodeProbes(
            instance_id=CONTROLLER,
            group="controller-machine",
            outputs=self._outputs,
            unreachable=self._unreachable,
        )


def run(check_id: str, data: SlurmData) -> list[Finding]:
    return list(get_check(check_id).run(data))


def problems(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.status in (Status.FAIL, Status.WARN)]
