"""A lightweight stand-in for ClusterData for the accelerator, EFA and version checks:
probed nodes with their raw outputs, and instance facts from the built-in table."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import cast

from cluster_simulator.node_samples import accelerators as samples
from tools.findings import Finding
from tools.probes.instance_facts import InstanceFacts, fallback
from tools.probes.model import NodeProbes, ProbeOutput
from tools.registry import get_check
from tools.triage.data import ClusterData

P5 = "ml.p5.48xlarge"
TRN1 = "ml.trn1.32xlarge"
CPU = "ml.m5.2xlarge"


class FakeNodeData:
    """Only the reads the node checks use: reachable_nodes, node_probes, instance_facts,
    orchestrator."""

    def __init__(
        self,
        nodes: Iterable[NodeProbes],
        facts: Mapping[str, InstanceFacts] | None = None,
        orchestrator: str = "eks",
    ) -> None:
        self._nodes = list(nodes)
        self._facts = dict(facts or {})
        self.orchestrator = orchestrator

    def node_probes(self) -> dict[str, NodeProbes]:
        return {n.instance_id: n for n in self._nodes}

    def reachable_nodes(self) -> list[NodeProbes]:
        return [n for n in self._nodes if n.unreachable is None]

    def instance_facts(self, instance_type: str) -> InstanceFacts:
        return self._facts.get(instance_type) or fallback(instance_type)


def node(
    instance_id: str,
    instance_type: str = P5,
    outputs: Mapping[str, str | ProbeOutput] | None = None,
    unreachable: str | None = None,
) -> NodeProbes:
    converted = {
        name: value if isinstance(value, ProbeOutput) else ProbeOutput(stdout=value)
        for name, value in (outputs or {}).items()
    }
    return NodeProbes(
        instance_id=instance_id,
        group="gpu",
        instance_type=instance_type,
        outputs=converted,
        unreachable=unreachable,
    )


def healthy_p5(**overrides: str | ProbeOutput) -> dict[str, str | ProbeOutput]:
    """Every GPU, EFA and version probe of a healthy p5.48xlarge; overrides replace some."""
    outputs: dict[str, str | ProbeOutput] = {
        "gpu_list": samples.gpu_list(),
        "gpu_query": samples.gpu_query(),
        "gpu_row_remap": samples.row_remap(),
        "gpu_page_retirement": samples.page_retirement(),
        "dcgm_health": samples.dcgm_health(),
        "dcgm_diag_logs": samples.dcgm_diag_logs(),
        "nvidia_driver": samples.nvidia_driver(),
        "nccl_libraries": samples.nccl_libraries(),
        "kernel_log": "",
        "kernel_log_previous_boot": "",
        "efa_module": samples.lsmod(),
        "efa_devices": samples.infiniband(32),
        "efa_provider": samples.fi_info(32),
        "efa_packages": samples.efa_packages(),
        "ofi_nccl_plugin": samples.ofi_nccl_plugin(),
    }
    outputs.update(overrides)
    return outputs


def without(outputs: Mapping[str, str | ProbeOutput], *names: str) -> dict[str, str | ProbeOutput]:
    return {k: v for k, v in outputs.items() if k not in names}


def run_check(check_id: str, *nodes: NodeProbes, orchestrator: str = "eks") -> list[Finding]:
    """Run a registered check against the fake data, as the triage runner would."""
    spec = get_check(check_id)
    run: Callable[[ClusterData], Iterable[Finding]] = spec.run
    return list(run(cast(ClusterData, FakeNodeData(nodes, orchestrator=orchestrator))))
