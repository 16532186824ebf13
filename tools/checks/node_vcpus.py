"""§ J: the vCPUs a node shows online (lscpu) against what its group's setting gives.

An instance group created with ThreadsPerCore=1 gives each node half the type's vCPUs
(96 of 192 on a p5.48xlarge): that is the group's configuration, which the
threads-per-core check reports once for the group, so here it is an INFO that points
there. Fewer online CPUs than the group's setting gives is a FAIL P1: jobs sized for the
full count oversubscribe the node, and Slurm may drain it for a CPU mismatch.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from tools.checks._node_reads import healthy_summary, read_probe, unreadable
from tools.findings import Finding, Findings, Priority
from tools.parsers.lscpu import CpuInfo, parse_lscpu
from tools.registry import check
from tools.triage.data import ClusterData
from tools.triage.data.sagemaker_model import InstanceGroup

CHECK_ID = "node-vcpus"
FINDINGS = Findings(CHECK_ID, "J")


@dataclass(frozen=True, slots=True)
class NodeCpus:
    """What is judged of one node: its lscpu, the type's vCPU count (None when unknown)
    and its group's ThreadsPerCore as DescribeCluster reports it (None when unknown)."""

    node: str
    instance_type: str
    cpu: CpuInfo
    expected: int | None
    group: str = ""
    threads_per_core: Any = None


class VcpuState(StrEnum):
    """How the CPUs a node shows online compare with what its type and group give."""

    UNKNOWN_TYPE = "unknown-type"  # the type's vCPU count is not known: not judged
    ALL_VISIBLE = "all-visible"  # (or the online count is unread)
    HALVED_BY_SETTING = "halved-by-setting"  # ThreadsPerCore=1 gives exactly half
    BELOW_SETTING = "below-setting"  # fewer than the half ThreadsPerCore=1 gives
    SETTING_UNKNOWN = "setting-unknown"  # fewer, and the group's setting is not known
    MISSING = "missing"  # fewer, with multithreading on: missing for another reason


@dataclass(frozen=True, slots=True)
class VcpuCount:
    state: VcpuState
    visible: int | None = None  # online CPUs (all CPUs when lscpu lists no online ones)
    offline: int = 0  # CPUs lscpu lists as offline


def vcpu_verdict(subject: NodeCpus) -> VcpuCount:
    """The rule of the module docstring for one node."""
    cpu, expected = subject.cpu, subject.expected
    if expected is None:
        return VcpuCount(VcpuState.UNKNOWN_TYPE)
    visible = cpu.online_cpus if cpu.online_cpus is not None else cpu.cpus
    if visible is None or visible >= expected:
        return VcpuCount(VcpuState.ALL_VISIBLE, visible)
    offline = (
        cpu.cpus - visible
        if cpu.cpus is not None and cpu.online_cpus is not None and cpu.online_cpus < cpu.cpus
        else 0
    )
    if subject.threads_per_core == 1:
        halved = visible == expected // 2
        state = VcpuState.HALVED_BY_SETTING if halved else VcpuState.BELOW_SETTING
    elif subject.threads_per_core is None:
        state = VcpuState.SETTING_UNKNOWN
    else:
        state = VcpuState.MISSING
    return VcpuCount(state, visible, offline)


def _cause(verdict: VcpuCount, subject: NodeCpus, expected: int, where: str) -> str:
    offline = (
        f"; {verdict.offline} of its {subject.cpu.cpus} CPUs are offline" if verdict.offline else ""
    )
    if verdict.state is VcpuState.BELOW_SETTING:
        return f"fewer than the {expected // 2} that ThreadsPerCore=1 on {where} gives{offline}"
    if verdict.state is VcpuState.SETTING_UNKNOWN:
        return f"ThreadsPerCore of {where} is not known; compare lscpu Thread(s) per core{offline}"
    return (
        f"{where} runs with ThreadsPerCore={subject.threads_per_core}, so CPUs are missing for "
        f"another reason{offline}"
    )


def word_vcpus(verdict: VcpuCount, subject: NodeCpus) -> Finding:
    """The finding that states a short vCPU count (or that it is not judged)."""
    node, instance_type, expected = subject.node, subject.instance_type, subject.expected
    evidence: dict[str, Any] = {
        "instance_type": instance_type,
        "cpus": subject.cpu.cpus,
        "expected_vcpus": expected,
        "threads_per_core_lscpu": subject.cpu.threads_per_core,
        "group": subject.group,
        "group_threads_per_core": subject.threads_per_core,
    }
    if expected is None:
        return FINDINGS.info(
            f"vCPU count of {instance_type or 'an unknown type'} is not known: "
            f"{node} shows {subject.cpu.cpus} CPU(s), not judged",
            resources=[node],
            **evidence,
        )
    evidence["online_cpus"] = verdict.visible
    where = f"instance group {subject.group}" if subject.group else "its instance group"
    shows = f"{node} ({instance_type}) shows {verdict.visible} of {expected} vCPUs"
    if verdict.state is VcpuState.HALVED_BY_SETTING:
        return FINDINGS.info(
            f"{shows}: {where} runs with ThreadsPerCore=1 (multithreading off), which gives "
            "half of them; see the ThreadsPerCore finding",
            resources=[node],
            **evidence,
        )
    return FINDINGS.fail(
        Priority.P1,
        f"{shows} online: {_cause(verdict, subject, expected, where)}",
        resources=[node],
        **evidence,
    )


def judge_vcpus(
    node: str,
    instance_type: str,
    cpu: CpuInfo,
    expected: int | None,
    *,
    group: str = "",
    threads_per_core: int | None = None,
) -> list[Finding]:
    """One node's lscpu against the type's vCPU count; `threads_per_core` is the group's
    setting as DescribeCluster reports it (None when unknown)."""
    subject = NodeCpus(node, instance_type, cpu, expected, group, threads_per_core)
    verdict = vcpu_verdict(subject)
    if verdict.state is VcpuState.ALL_VISIBLE:
        return []
    return [word_vcpus(verdict, subject)]


def group_threads(groups: Sequence[InstanceGroup], group: str, instance_type: str) -> int | None:
    """ThreadsPerCore of `group` for `instance_type` (per type in a flexible group)."""
    for candidate in groups:
        if candidate.name != group:
            continue
        for hyperpod_type, threads in candidate.type_threads:
            if hyperpod_type == instance_type:
                return threads
        return candidate.threads_per_core
    return None


@check(FINDINGS, title="vCPUs visible on the node", scope="node")
def node_vcpus(data: ClusterData) -> Iterable[Finding]:
    """Online CPUs below what the type and the group's ThreadsPerCore give (offline CPUs,
    missing cores); ThreadsPerCore=1 halving them is an INFO."""
    findings: list[Finding] = []
    healthy: list[str] = []
    groups = data.instance_groups()
    for node in data.reachable_nodes():
        read = read_probe(node, "cpu")
        cpu = parse_lscpu(read.text)
        if cpu.cpus is None:
            findings.append(unreadable(FINDINGS, "the CPU count", node, read.problem, "cpu"))
            continue
        facts = data.instance_facts(node.instance_type) if node.instance_type else None
        problems = judge_vcpus(
            node.instance_id,
            node.instance_type,
            cpu,
            facts.vcpus if facts else None,
            group=node.group,
            threads_per_core=group_threads(groups, node.group, node.instance_type),
        )
        findings += problems
        if not problems:
            healthy.append(node.instance_id)
    return findings + healthy_summary(CHECK_ID, "J", "All vCPUs of the type visible", healthy)
