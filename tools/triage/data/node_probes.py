"""Node-level reads: which nodes to probe, their probe outputs, and instance-type facts.

Probing is the expensive part of a triage (one SSM session per node), so it happens once,
for a deliberate set of nodes: with `--node`, that node; otherwise the failing nodes first
(HyperPod status, EKS health labels / NotReady, Slurm DOWN / DRAIN / FAIL), capped, then
one healthy accelerator node so a GPU / Neuron host is always looked at (never only the
controller). On Slurm the controller answers the Slurm probes, or this machine when it has
sinfo and its Slurm is shown to be this cluster's (tools/triage/data/slurm_source.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tools.aws.errors import AwsAccessError
from tools.probes.catalog import CATALOGUE, NodeKind, probes_for
from tools.probes.instance_facts import (
    InstanceFacts,
    accelerator_family,
    ec2_type,
    fallback,
)
from tools.probes.model import NodeProbes
from tools.probes.runner import ProbePlan, ProbeRunner
from tools.probes.transport import ProbeTarget
from tools.sources import ProbesUnavailable, SourceUnavailable
from tools.triage.data import slurm_source
from tools.triage.data.network import NetworkReads
from tools.triage.data.network_model import InstanceTypeInfo
from tools.triage.data.sagemaker_model import ClusterNode
from tools.triage.data.slurm_source import LocalVerdict, SlurmSource, local_slurm_verdict

MAX_FAILING_NODES = 16
HEALTHY_STATUSES = frozenset({"Running", "SystemUpdating", "DeepHealthCheckInProgress"})
CONTROLLER_GROUP = re.compile(r"controller|head", re.IGNORECASE)
LOCAL = slurm_source.LOCAL  # the "instance id" of this machine's Slurm probes


def _facts(entry: InstanceTypeInfo) -> InstanceFacts:
    """The probe-selection facts of a described instance type."""
    vcpus = entry.vcpu.default_vcpus if entry.vcpu else None
    return InstanceFacts(
        instance_type=entry.instance_type,
        vcpus=vcpus,
        gpus=entry.gpu_count,
        neuron_devices=entry.neuron_device_count,
        efa_interfaces=entry.max_efa_interfaces,
        instance_store=entry.instance_storage_supported,
    )


def _not_configured() -> Any:
    raise ProbesUnavailable("node probes are not configured for this run", hint="")


@dataclass
class NodeSources:
    """Factories for the node-level sources; each raises SourceUnavailable when the source
    cannot be used (the runner then skips the checks that need it)."""

    kube: Callable[[], Any] = field(default=_not_configured)
    probes: Callable[[], ProbeRunner] = field(default=_not_configured)
    # Runs the Slurm controller probes on this machine (it has sinfo), or None.
    slurm_local: Callable[[], ProbeRunner | None] = field(default=lambda: None)
    max_failing_nodes: int = MAX_FAILING_NODES


class NodeReads(NetworkReads):
    sources: NodeSources

    # -- instance-type facts --------------------------------------------------------------

    def instance_facts(self, instance_type: str) -> InstanceFacts:
        name = ec2_type(instance_type)

        def fetch() -> InstanceFacts:
            # An unreadable type falls back to the built-in table.
            for entry in self.optional(lambda: self.instance_types([name])) or ():
                if entry.instance_type == name:
                    return _facts(entry)
            return fallback(name)

        return self._once(("instance-facts", name), fetch)

    def node_kinds(self, instance_type: str) -> set[NodeKind]:
        facts = self.instance_facts(instance_type)
        kinds: set[NodeKind] = set()
        accelerator = facts.accelerator or accelerator_family(instance_type)
        if accelerator == "nvidia":
            kinds.add(NodeKind.NVIDIA)
        elif accelerator == "neuron":
            kinds.add(NodeKind.NEURON)
        if facts.efa_interfaces:
            kinds.add(NodeKind.EFA)
        if self.orchestrator == "eks":
            kinds.add(NodeKind.EKS)
        else:
            kinds.add(NodeKind.SLURM)
        return kinds

    def node_probe_names(self, instance_type: str) -> tuple[str, ...]:
        kinds = self.node_kinds(instance_type)
        return tuple(
            name
            for name in probes_for(kinds)
            if CATALOGUE[name].kind is not NodeKind.SLURM_CONTROLLER
        )

    # -- which nodes ------------------------------------------------------------------------

    def slurm_controller_node(self) -> ClusterNode | None:
        """The first node of the controller group (named like 'controller' or 'head')."""
        if self.orchestrator != "slurm":
            return None
        for node in self.nodes().items:
            if CONTROLLER_GROUP.search(node.instance_group):
                return node
        return None

    def failing_instance_ids(self) -> list[str]:
        """Nodes that look unhealthy from the control plane, Kubernetes and Slurm, in that
        order (sources that are unavailable add nothing)."""
        failing: list[str] = []
        for node in self.nodes().items:
            if node.status not in HEALTHY_STATUSES:
                failing.append(node.instance_id)
        for extra in self._unhealthy_from_orchestrator():
            if extra not in failing:
                failing.append(extra)
        return failing

    def kube_unhealthy_instance_ids(self) -> list[str]:
        """Overridden by the Kubernetes reads (tools/triage/data/kube.py)."""
        return []

    def slurm_unhealthy_instance_ids(self) -> list[str]:
        """Overridden by the Slurm reads (tools/triage/data/slurm_reads.py)."""
        return []

    def _unhealthy_from_orchestrator(self) -> list[str]:
        finder = (
            self.kube_unhealthy_instance_ids
            if self.orchestrator == "eks"
            else self.slurm_unhealthy_instance_ids
        )
        try:
            return list(finder())
        except (SourceUnavailable, AwsAccessError):
            return []  # that source's own checks report why it could not be read

    def probe_plans(self) -> list[ProbePlan]:
        nodes = {n.instance_id: n for n in self.nodes().items}
        controller = self.slurm_controller_node()
        controller_id = controller.instance_id if controller else None
        if self.target.node:
            chosen = [self.target.node] if self.target.node in nodes else []
        else:
            chosen = [i for i in self.failing_instance_ids() if i in nodes][
                : self.sources.max_failing_nodes
            ]
            if not any(self._is_accelerator(nodes[i]) for i in chosen):
                for instance_id, node in nodes.items():
                    if (
                        instance_id != controller_id
                        and node.status == "Running"
                        and self._is_accelerator(node)
                    ):
                        chosen.append(instance_id)
                        break
        plans: list[ProbePlan] = []
        for instance_id in chosen:
            node = nodes[instance_id]
            instance_type = node.instance_type
            plans.append(
                ProbePlan(
                    target=ProbeTarget(
                        self.cluster_id, node.instance_group, instance_id, instance_type
                    ),
                    probes=self.node_probe_names(instance_type),
                )
            )
        return plans

    def _is_accelerator(self, node: ClusterNode) -> bool:
        instance_type = node.instance_type
        facts = self.instance_facts(instance_type)
        return (facts.accelerator or accelerator_family(instance_type)) is not None

    # -- probe results ----------------------------------------------------------------------

    def node_probes(self) -> dict[str, NodeProbes]:
        """Every planned node's probe outputs (one session per node, run once per triage)."""

        focus = self.target.node

        def fetch() -> dict[str, NodeProbes]:
            if focus is not None:
                # A node the whole-cluster view already probed is not probed again.
                with self._lock:
                    everyone = self._memo.get(("node-probes", None))
                if isinstance(everyone, dict) and focus in everyone:
                    return {focus: everyone[focus]}
            plans = self.probe_plans()
            if not plans:  # e.g. --node names no node of this cluster: nothing to ask for
                return {}
            return self.sources.probes().run(plans)

        return self._once(("node-probes", focus), fetch)

    def reachable_nodes(self) -> list[NodeProbes]:
        return [n for n in self.node_probes().values() if n.unreachable is None]

    def slurm_probes(self) -> NodeProbes:
        """The Slurm controller probes: run here when this machine has sinfo and its Slurm
        is this cluster's, else on the controller node over SSM."""
        return self._slurm_run()[0]

    def slurm_source(self) -> SlurmSource:
        """Where `slurm_probes()` ran and why there (and why not here, when not)."""
        return self._slurm_run()[1]

    def _slurm_run(self) -> tuple[NodeProbes, SlurmSource]:
        def fetch() -> tuple[NodeProbes, SlurmSource]:
            names = tuple(
                p
                for p in probes_for({NodeKind.SLURM_CONTROLLER})
                if CATALOGUE[p].kind is NodeKind.SLURM_CONTROLLER
            )
            rejected = ""
            local = self.sources.slurm_local()
            if local is not None:
                here = local.probe_node(
                    ProbePlan(ProbeTarget(self.cluster_id, LOCAL, LOCAL), names)
                )
                verdict = self._local_slurm_verdict(here)
                if verdict.belongs:
                    return here, SlurmSource(LOCAL, verdict.reason)
                rejected = verdict.reason
            return self._controller_slurm_probes(names, rejected)

        return self._once(("slurm-probes",), fetch)

    def _local_slurm_verdict(self, here: NodeProbes) -> LocalVerdict:
        if here.unreachable is not None:
            return LocalVerdict(False, f"the probes did not run here: {here.unreachable}")
        try:
            listed = self.nodes()
        except AwsAccessError as exc:
            return LocalVerdict(
                False, f"ListClusterNodes could not be read to confirm it: {exc.reason}"
            )
        verdict = local_slurm_verdict(here, list(listed.items), self.target.cluster)
        if not verdict.belongs and listed.truncated:
            return LocalVerdict(False, verdict.reason + " (the node list read was cut short)")
        return verdict

    def _controller_slurm_probes(
        self, names: tuple[str, ...], rejected: str
    ) -> tuple[NodeProbes, SlurmSource]:
        not_here = f"; this machine's Slurm was not used: {rejected}" if rejected else ""
        controller = self.slurm_controller_node()
        if controller is None:
            raise ProbesUnavailable(
                "no Slurm controller group found (an instance group named like "
                "'controller' or 'head') and "
                + (
                    f"this machine's Slurm is not this cluster's ({rejected})"
                    if rejected
                    else "sinfo is not installed here"
                ),
                hint="Run hyperpod-debug on the Slurm controller, or use --node.",
            )
        try:
            runner = self.sources.probes()
        except ProbesUnavailable as exc:
            if not rejected:
                raise
            raise ProbesUnavailable(exc.reason + not_here, hint=exc.hint) from None
        instance_id = controller.instance_id
        target = ProbeTarget(
            self.cluster_id, controller.instance_group, instance_id, controller.instance_type
        )
        reason = (
            "this machine's Slurm is not this cluster's"
            if rejected
            else "sinfo is not installed here"
        )
        source = SlurmSource(instance_id, reason, rejected)
        return runner.probe_node(ProbePlan(target, names)), source
