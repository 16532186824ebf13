"""§ J: the vCPUs a node shows online (lscpu) against what its group's setting gives.

An instance group created with ThreadsPerCore=1 gives each node half the type's vCPUs
(96 of 192 on a p5.48xlarge): that is the group's configuration, which the
threads-per-core check reports once for the group, so here it is an INFO that points
there. Fewer online CPUs than the group's setting gives is a FAIL P1: jobs sized for the
full count oversubscribe the node, and Slurm may drain it for a CPU mismatch.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from tools.checks._node_reads import healthy_summary, read_probe, unreadable
from tools.findings import Finding, Findings, Priority
from tools.parsers.lscpu import CpuInfo, parse_lscpu
from tools.registry import check
from tools.triage.data import ClusterData
from tools.triage.data.sagemaker_model import InstanceGroup

CHECK_ID = "node-vcpus"
FINDINGS = Findings(CHECK_ID, "J")


def judge_vcpus(
    node: str,
    instance_type: str,
    cpu: CpuInfo,
    expected: int | None,
    group: str = "",
    threads_per_core: Any = None,
) -> list[Finding]:
    """One node's lscpu against the type's vCPU count; `threads_per_core` is the group's
    setting as DescribeCluster reports it (None when unknown)."""
    evidence: dict[str, Any] = {
        "instance_type": instance_type,
        "cpus": cpu.cpus,
        "expected_vcpus": expected,
        "threads_per_core_lscpu": cpu.threads_per_core,
        "group": group,
        "group_threads_per_core": threads_per_core,
    }
    if expected is None:
        return [
            FINDINGS.info(
                f"vCPU count of {instance_type or 'an unknown type'} is not known: "
                f"{node} shows {cpu.cpus} CPU(s), not judged",
                resources=[node],
                **evidence,
            )
        ]
    visible = cpu.online_cpus if cpu.online_cpus is not None else cpu.cpus
    evidence["online_cpus"] = visible
    if visible is None or visible >= expected:
        return []
    where = f"instance group {group}" if group else "its instance group"
    offline = (
        f"; {cpu.cpus - visible} of its {cpu.cpus} CPUs are offline"
        if cpu.cpus is not None and cpu.online_cpus is not None and cpu.online_cpus < cpu.cpus
        else ""
    )
    if threads_per_core == 1 and visible == expected // 2:
        return [
            FINDINGS.info(
                f"{node} ({instance_type}) shows {visible} of {expected} vCPUs: {where} runs "
                "with ThreadsPerCore=1 (multithreading off), which gives half of them; see the "
                "ThreadsPerCore finding",
                resources=[node],
                **evidence,
            )
        ]
    if threads_per_core == 1:
        cause = f"fewer than the {expected // 2} that ThreadsPerCore=1 on {where} gives{offline}"
    elif threads_per_core is None:
        cause = f"ThreadsPerCore of {where} is not known; compare lscpu Thread(s) per core{offline}"
    else:
        cause = (
            f"{where} runs with ThreadsPerCore={threads_per_core}, so CPUs are missing for "
            f"another reason{offline}"
        )
    return [
        FINDINGS.fail(
            Priority.P1,
            f"{node} ({instance_type}) shows {visible} of {expected} vCPUs online: {cause}",
            resources=[node],
            **evidence,
        )
    ]


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
            findings.append(unreadable(CHECK_ID, "J", "the CPU count", node, read.problem, "cpu"))
            continue
        facts = data.instance_facts(node.instance_type) if node.instance_type else None
        problems = judge_vcpus(
            node.instance_id,
            node.instance_type,
            cpu,
            facts.vcpus if facts else None,
            node.group,
            group_threads(groups, node.group, node.instance_type),
        )
        findings += problems
        if not problems:
            healthy.append(node.instance_id)
    return findings + healthy_summary(CHECK_ID, "J", "All vCPUs of the type visible", healthy)
