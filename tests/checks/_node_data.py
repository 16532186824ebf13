"""A ClusterData whose node probes answer with prepared outputs, for the on-node checks.

The cluster itself is a healthy base world (EKS or Slurm) replayed through AwsAccess, so
orchestrator, instance groups and DescribeInstanceTypes facts are the real reads. Only the
choice of nodes is fixed by the test: `probe_plans` returns the prepared nodes, and their
outputs travel through the real runner, bundle framing and recorded-probe transport.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from cluster_simulator import base
from cluster_simulator.node_samples import system
from cluster_simulator.world import World
from tools.aws.session import AwsAccess
from tools.findings import Finding, Status
from tools.probes.model import NodeProbes, ProbeOutput
from tools.probes.runner import ProbePlan, ProbeRunner
from tools.probes.transport import ProbeTarget, RecordedProbes
from tools.target import TriageTarget
from tools.triage.data import ClusterData, NodeSources

# Instance ids of the base worlds (base.instance_id(n)): EKS 1-4 are p5.48xlarge GPU
# workers, 5-6 m5.2xlarge CPU workers; Slurm 1 is the m5.4xlarge controller, 2-5 p5 workers.
GPU_NODE = base.instance_id(1)
GPU_NODE_2 = base.instance_id(2)
CPU_NODE = base.instance_id(5)
SLURM_CONTROLLER = base.instance_id(1)
SLURM_WORKER = base.instance_id(2)

Output = str | ProbeOutput


def healthy_outputs(orchestrator: str = "eks", *, controller: bool = False) -> dict[str, Output]:
    """Every system probe of a healthy node, as the samples print them."""
    services = (
        system.eks_services()
        if orchestrator == "eks"
        else system.slurm_services(controller=controller)
    )
    return {
        "disk_usage": system.df_usage(),
        "disk_inodes": system.df_inodes(),
        "meminfo": system.meminfo(),
        "uptime": system.uptime(),
        "cpu": system.lscpu(),
        "kernel_release": system.kernel_release(),
        "kernel_log": system.kernel_log(),
        "kernel_log_previous_boot": system.kernel_log_previous_boot(None),
        "time_sync": system.time_sync(),
        "services": system.services(services),
    }


def node(
    instance_id: str = GPU_NODE,
    *,
    group: str = base.GPU_GROUP,
    instance_type: str = "ml.p5.48xlarge",
    unreachable: str | None = None,
    outputs: Mapping[str, Output] | None = None,
    omit: Iterable[str] = (),
    **overrides: Output,
) -> NodeProbes:
    """A probed node: healthy outputs (or `outputs`), with `overrides` replacing single
    probes and `omit` leaving probes out (not run)."""
    chosen: dict[str, Output] = dict(outputs if outputs is not None else healthy_outputs())
    chosen.update(overrides)
    for name in omit:
        chosen.pop(name, None)
    return NodeProbes(
        instance_id=instance_id,
        group=group,
        instance_type=instance_type,
        outputs={
            name: value if isinstance(value, ProbeOutput) else ProbeOutput(stdout=value)
            for name, value in chosen.items()
        },
        unreachable=unreachable,
    )


def cpu_node(instance_id: str = CPU_NODE, **overrides: Output) -> NodeProbes:
    outputs = healthy_outputs()
    outputs["cpu"] = system.lscpu(cpus=8, sockets=1, model="Intel(R) Xeon(R) Platinum 8259CL")
    outputs.update(overrides)
    return node(instance_id, group=base.CPU_GROUP, instance_type="ml.m5.2xlarge", outputs=outputs)


class NodeData(ClusterData):
    """ClusterData over a base world that probes exactly the prepared nodes."""

    def __init__(self, world: World, nodes: Iterable[NodeProbes]) -> None:
        self._prepared = list(nodes)
        outputs = {n.instance_id: n.outputs for n in self._prepared if n.unreachable is None}
        unreachable = {n.instance_id: n.unreachable for n in self._prepared if n.unreachable}
        runner = ProbeRunner(
            RecordedProbes(outputs, unreachable), retry_delays_s=(), sleep=lambda _: None
        )
        target = TriageTarget(cluster=world.cluster["ClusterName"], region=world.region)
        super().__init__(
            AwsAccess(world.region, replay=world),
            target,
            now=base.RECORDED_AT,
            sources=NodeSources(probes=lambda: runner),
        )

    def probe_plans(self) -> list[ProbePlan]:
        return [
            ProbePlan(
                ProbeTarget(self.cluster_id, n.group, n.instance_id, n.instance_type),
                tuple(n.outputs) or ("uptime",),
            )
            for n in self._prepared
        ]


def node_data(
    *nodes: NodeProbes,
    orchestrator: str = "eks",
    threads_per_core: int | None = None,
    instance_store: bool = True,
    edit: Callable[[World], None] | None = None,
) -> NodeData:
    """A NodeData over the healthy EKS or Slurm world. `threads_per_core` sets the GPU
    group's value; `instance_store` sets the p5's InstanceStorageSupported."""
    world = base.healthy_eks() if orchestrator == "eks" else base.healthy_slurm()
    for entry in world.instance_types:
        if entry["InstanceType"] == "p5.48xlarge":
            entry["InstanceStorageSupported"] = instance_store
    if threads_per_core is not None:
        for group in world.cluster["InstanceGroups"]:
            if group["InstanceGroupName"] == base.GPU_GROUP:
                group["ThreadsPerCore"] = threads_per_core
    if edit is not None:
        edit(world)
    return NodeData(world, nodes)


def statuses(findings: Iterable[Finding]) -> list[Status]:
    return [f.status for f in findings]


def problems(findings: Iterable[Finding]) -> list[Finding]:
    return [f for f in findings if f.status in (Status.FAIL, Status.WARN)]


def assert_well_formed(findings: Iterable[Finding]) -> None:
    """Messages are one sentence without a final period; problems name their node."""
    for finding in findings:
        assert finding.message
        assert not finding.message.endswith(".")
        if finding.status in (Status.FAIL, Status.WARN):
            assert finding.priority is not None
            assert finding.resources
            assert all(r in finding.message for r in finding.resources)
