"""Slurm reads: the controller probes parsed once, and Slurm node names mapped to instances.

The Slurm probes run on the controller (or here, when this machine has sinfo and its Slurm
is this cluster's) through `NodeReads.slurm_probes()`; `slurm_source()` says which. Each
probe's output is parsed into a `SlurmRead`, which keeps why an output could not be used
(missing, failed, cut off, the tool not installed) so a check can say "could not read"
rather than judge an empty list.

Slurm knows nodes by host name (`ip-10-1-2-3`), HyperPod by instance id. The map is built
from the cheapest source that answers, and every row says which one did:
1. ListClusterNodes `PrivateDnsHostname` (already read for the node checks);
2. DescribeClusterNode `PrivatePrimaryIp`, only for nodes the list gave no host name,
   only while some Slurm node is still unmatched, and at most DESCRIBE_CAP of them (never
   one call per node of a large cluster);
3. `/opt/ml/config/resource_config.json` from the controller (group, instance, IP).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Generic, TypeVar

from tools.aws.errors import AwsAccessError
from tools.parsers.slurm_config import (
    PingResult,
    ResourceConfig,
    parse_resource_config,
    parse_scontrol_ping,
)
from tools.parsers.slurm_names import ip_from_node_name, node_name_from_ip, short_hostname
from tools.parsers.slurm_sinfo import SinfoNodes, parse_sinfo_nodes
from tools.parsers.slurm_squeue import SqueueJobs, parse_squeue_jobs
from tools.parsers.slurm_text import tool_missing
from tools.probes.model import NodeProbes, ProbeOutput
from tools.sources import ProbesUnavailable
from tools.triage.data.node_probes import NodeReads
from tools.triage.data.sagemaker_model import ClusterNode

T = TypeVar("T")

DESCRIBE_CAP = 10
FROM_LIST = "ListClusterNodes PrivateDnsHostname"
FROM_DESCRIBE = "DescribeClusterNode PrivatePrimaryIp"
FROM_RESOURCE_CONFIG = "resource_config.json"


@dataclass(frozen=True)
class SlurmRead(Generic[T]):
    """One Slurm probe: its parsed value, or why there is none."""

    probe: str
    value: T | None
    problem: str = ""  # why `value` is None or partial ("" when the output was fine)
    output: ProbeOutput | None = None
    tool_missing: bool = False  # the shell could not find the probe's command

    @property
    def missing(self) -> bool:
        return self.output is None


@dataclass(frozen=True)
class SlurmState:
    """Every Slurm controller probe of this run, parsed."""

    host: str  # the instance id the probes ran on, or "local"
    nodes: SlurmRead[SinfoNodes]
    jobs: SlurmRead[SqueueJobs]
    ping: SlurmRead[PingResult]
    resource_config: SlurmRead[ResourceConfig]


def _first_line(text: str) -> str:
    for line in (text or "").splitlines():
        if line.strip():
            return line.strip()[:200]
    return ""


def read_probe(probes: NodeProbes, name: str, parse: Callable[[str], T]) -> SlurmRead[T]:
    """Parse one probe output unless it is missing, failed, cut off or its tool is absent
    (a failed `scontrol ping` is still parsed: its failure is what the check judges)."""
    output = probes.output(name)
    if output is None:
        return SlurmRead(name, None, "the probe did not run", None)
    if tool_missing(output.stdout):
        problem = f"not installed here: {_first_line(output.stdout)}"
        return SlurmRead(name, None, problem, output, tool_missing=True)
    if output.truncated or output.timed_out:
        return SlurmRead(name, parse(output.stdout), "the probe did not finish", output)
    if output.exit_code != 0:
        code = "no exit code" if output.exit_code is None else f"exit code {output.exit_code}"
        detail = _first_line(output.stdout)
        return SlurmRead(
            name, parse(output.stdout), f"{code}{': ' + detail if detail else ''}", output
        )
    return SlurmRead(name, parse(output.stdout), "", output)


def parse_slurm_state(probes: NodeProbes) -> SlurmState:
    return SlurmState(
        host=probes.instance_id,
        nodes=read_probe(probes, "slurm_nodes", parse_sinfo_nodes),
        jobs=read_probe(probes, "slurm_stuck_jobs", parse_squeue_jobs),
        ping=read_probe(probes, "slurm_controller", parse_scontrol_ping),
        resource_config=read_probe(probes, "slurm_resource_config", parse_resource_config),
    )


@dataclass(frozen=True)
class SlurmNodeRow:
    """One Slurm node name and the HyperPod instance behind it (either may be unknown)."""

    slurm_name: str  # "" when a HyperPod node's name could not be found
    instance_id: str  # "" when no instance matched the name
    group: str
    ip: str
    source: str  # where the mapping came from ("" when nothing mapped it)
    in_slurm: bool  # sinfo lists this name


@dataclass(frozen=True)
class SlurmNodeMap:
    rows: tuple[SlurmNodeRow, ...]
    slurm_listed: bool  # sinfo could be read, so `in_slurm` means something
    hyperpod_complete: bool  # the HyperPod node list was read whole
    hyperpod_problem: str = ""  # why the HyperPod node list could not be read
    described: int = 0  # DescribeClusterNode calls made
    undescribed: int = 0  # nodes left without a name because of DESCRIBE_CAP or errors
    notes: tuple[str, ...] = ()

    @cached_property
    def _by_name(self) -> dict[str, SlurmNodeRow]:
        return {row.slurm_name: row for row in reversed(self.rows) if row.slurm_name}

    @cached_property
    def _by_instance(self) -> dict[str, SlurmNodeRow]:
        return {row.instance_id: row for row in reversed(self.rows) if row.instance_id}

    def instance_of(self, slurm_name: str) -> str | None:
        row = self._by_name.get(slurm_name)
        return row.instance_id if row and row.instance_id else None

    def name_of(self, instance_id: str) -> str | None:
        row = self._by_instance.get(instance_id)
        return row.slurm_name if row and row.slurm_name else None

    def row_of_name(self, slurm_name: str) -> SlurmNodeRow | None:
        return self._by_name.get(slurm_name)


@dataclass
class _Entry:
    instance_id: str
    group: str
    ip: str
    source: str


class _MapBuilder:
    """Names found so far: each name and each instance is mapped once, first source wins."""

    def __init__(self) -> None:
        self.by_name: dict[str, _Entry] = {}
        self.mapped: set[str] = set()
        self.notes: list[str] = []
        self.described = 0
        self.undescribed = 0

    def add(self, name: str | None, entry: _Entry) -> None:
        if not name or name in self.by_name:
            return
        if entry.instance_id and entry.instance_id in self.mapped:
            return
        self.by_name[name] = entry
        if entry.instance_id:
            self.mapped.add(entry.instance_id)

    def from_list(self, hyperpod_nodes: list[ClusterNode]) -> list[ClusterNode]:
        """Map every node with a host name; return the nodes that have none."""
        nameless: list[ClusterNode] = []
        for node in hyperpod_nodes:
            instance_id = node.instance_id
            group = node.instance_group
            host = short_hostname(node.private_dns_hostname)
            if host:
                self.add(host, _Entry(instance_id, group, ip_from_node_name(host) or "", FROM_LIST))
            elif instance_id:
                nameless.append(node)
        return nameless

    def from_describe(
        self,
        unmatched: list[str],
        nameless: list[ClusterNode],
        describe: Callable[[str], ClusterNode],
        cap: int,
    ) -> None:
        """Describe nameless nodes while some Slurm name is unmatched, at most `cap`."""
        for node in sorted(nameless, key=lambda n: n.instance_id):
            if all(name in self.by_name for name in unmatched):
                return
            instance_id = node.instance_id
            if self.described >= cap:
                self.undescribed += 1
                continue
            self.described += 1
            try:
                detail = describe(instance_id)
            except AwsAccessError as exc:
                self.undescribed += 1
                self.notes.append(f"DescribeClusterNode {instance_id}: {exc.reason}")
                continue
            ip = detail.private_ip or ""
            from_ip = node_name_from_ip(ip)
            name = from_ip or short_hostname(detail.private_dns_hostname)
            group = node.instance_group
            self.add(name, _Entry(instance_id, group, ip if from_ip else "", FROM_DESCRIBE))

    def from_resource_config(self, config: ResourceConfig) -> None:
        for instance in config.instances:
            entry = _Entry(instance.instance_id, instance.group, instance.ip, FROM_RESOURCE_CONFIG)
            self.add(node_name_from_ip(instance.ip), entry)

    def rows(
        self, slurm_names: list[str] | None, hyperpod_nodes: list[ClusterNode]
    ) -> list[SlurmNodeRow]:
        listed = set(slurm_names or [])
        rows: list[SlurmNodeRow] = []
        for name in sorted(listed | set(self.by_name)):
            entry = self.by_name.get(name) or _Entry("", "", ip_from_node_name(name) or "", "")
            rows.append(
                SlurmNodeRow(
                    name, entry.instance_id, entry.group, entry.ip, entry.source, name in listed
                )
            )
        for node in hyperpod_nodes:
            instance_id = node.instance_id
            if instance_id and instance_id not in self.mapped:
                rows.append(
                    SlurmNodeRow("", instance_id, node.instance_group, "", "", in_slurm=False)
                )
        return rows


@dataclass(frozen=True, slots=True)
class HyperPodNodes:
    """ListClusterNodes as read for the map: the nodes, whether the list is whole, and why
    it could not be read ("" when it could)."""

    nodes: tuple[ClusterNode, ...]
    complete: bool = True
    problem: str = ""


def build_node_map(
    slurm_names: list[str] | None,
    hyperpod: HyperPodNodes,
    describe: Callable[[str], ClusterNode],
    resource_config: ResourceConfig | None,
    *,
    slurm_complete: bool = True,
    describe_cap: int = DESCRIBE_CAP,
) -> SlurmNodeMap:
    """Join Slurm names and HyperPod nodes (see the module docstring for the order)."""
    hyperpod_nodes = list(hyperpod.nodes)
    hyperpod_complete, hyperpod_problem = hyperpod.complete, hyperpod.problem
    builder = _MapBuilder()
    nameless = builder.from_list(hyperpod_nodes)
    unmatched = [n for n in slurm_names or [] if n not in builder.by_name]
    if unmatched and nameless:
        builder.from_describe(unmatched, nameless, describe, describe_cap)
        if builder.described >= describe_cap and builder.undescribed:
            builder.notes.append(
                f"{builder.undescribed} node(s) without a host name were not described "
                f"(at most {describe_cap} DescribeClusterNode calls per run)"
            )
    if resource_config is not None:
        builder.from_resource_config(resource_config)
    return SlurmNodeMap(
        rows=tuple(builder.rows(slurm_names, hyperpod_nodes)),
        slurm_listed=slurm_names is not None and slurm_complete,
        hyperpod_complete=hyperpod_complete and not hyperpod_problem,
        hyperpod_problem=hyperpod_problem,
        described=builder.described,
        undescribed=builder.undescribed,
        notes=tuple(builder.notes),
    )


class SlurmReads(NodeReads):
    def slurm_state(self) -> SlurmState:
        """The Slurm controller probes, parsed; raises SourceUnavailable when they cannot
        run at all (no controller, no session, controller unreachable)."""

        def fetch() -> SlurmState:
            probes = self.slurm_probes()
            if probes.unreachable is not None:
                rejected = self.slurm_source().local_rejected
                not_here = f"; this machine's Slurm was not used: {rejected}" if rejected else ""
                raise ProbesUnavailable(
                    f"the Slurm controller {probes.instance_id} could not be reached: "
                    f"{probes.unreachable}{not_here}",
                    hint="See § K (node reachability over SSM).",
                )
            return parse_slurm_state(probes)

        return self._once(("slurm-state",), fetch)

    def slurm_node_map(self) -> SlurmNodeMap:
        """Slurm node name <-> instance id <-> group, each row with its source."""

        def fetch() -> SlurmNodeMap:
            state = self.slurm_state()
            sinfo = state.nodes.value
            names = [n.name for n in sinfo.nodes] if sinfo is not None and sinfo.nodes else None
            try:
                listed = self.nodes()
                hyperpod = HyperPodNodes(tuple(listed.items), complete=not listed.truncated)
            except AwsAccessError as exc:
                hyperpod = HyperPodNodes(
                    (), complete=False, problem=f"ListClusterNodes: {exc.reason}"
                )
            return build_node_map(
                names,
                hyperpod,
                self.node_detail,
                state.resource_config.value,
                slurm_complete=not state.nodes.problem,
            )

        return self._once(("slurm-node-map",), fetch)

    def slurm_unhealthy_instance_ids(self) -> list[str]:
        """Instance ids of Slurm nodes that are DOWN / DRAIN(ED/ING) / FAIL /
        NOT_RESPONDING (or registered invalid), in sinfo order; unmapped names add nothing."""
        sinfo = self.slurm_state().nodes.value
        if sinfo is None:
            return []
        problem_nodes = sinfo.problem_nodes()
        if not problem_nodes:
            return []
        node_map = self.slurm_node_map()
        found: list[str] = []
        for node in problem_nodes:
            instance_id = node_map.instance_of(node.name)
            if instance_id and instance_id not in found:
                found.append(instance_id)
        return found
