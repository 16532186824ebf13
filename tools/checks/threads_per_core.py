"""§ J: instance groups created with ThreadsPerCore=1 on types that support two threads."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from tools.findings import Finding, Findings, Priority
from tools.registry import check
from tools.triage.data import ClusterData, ec2_type
from tools.triage.data.network_model import InstanceTypeInfo
from tools.triage.data.sagemaker_model import InstanceGroup

CHECK_ID = "threads-per-core"
FINDINGS = Findings(CHECK_ID, "J")


def single_thread_types(groups: Sequence[InstanceGroup]) -> list[str]:
    """EC2 types run with one thread per core (the only ones worth describing)."""
    return sorted(
        {
            ec2_type(hyperpod_type)
            for g in groups
            for hyperpod_type, threads in g.type_threads
            if threads == 1
        }
    )


def judge_threads_per_core(
    groups: Sequence[InstanceGroup], instance_types: Sequence[InstanceTypeInfo]
) -> list[Finding]:
    """WARN P1 when ThreadsPerCore=1 hides half the vCPUs of a type that supports 2."""
    by_type = {t.instance_type: t for t in instance_types}
    findings: list[Finding] = []
    for group in groups:
        name = group.name or "?"
        pairs = group.type_threads
        if not pairs:
            findings.append(
                FINDINGS.info(
                    f"Instance group {name}: no instance type reported (neither InstanceType "
                    "nor the InstanceTypeDetails / InstanceRequirements of a flexible group): "
                    "instance types not judged",
                    group=name,
                    threads_per_core=group.threads_per_core,
                )
            )
            continue
        for hyperpod_type, reported in pairs:
            findings.append(_judge_type(name, hyperpod_type, reported, by_type))
    return findings


def _judge_type(
    name: str, hyperpod_type: str, threads: int | None, by_type: dict[str, InstanceTypeInfo]
) -> Finding:
    evidence: dict[str, Any] = {
        "group": name,
        "instance_type": hyperpod_type,
        "threads_per_core": threads,
    }
    if threads != 1:
        shown = threads if threads is not None else "not set (default)"
        return FINDINGS.passed(
            f"Instance group {name} ({hyperpod_type}): ThreadsPerCore {shown}", **evidence
        )
    described = by_type.get(ec2_type(hyperpod_type))
    vcpu = described.vcpu if described else None
    if vcpu is None:
        return FINDINGS.info(
            f"Instance group {name} ({hyperpod_type}) runs with ThreadsPerCore=1; "
            "no instance-type data to tell whether that hides vCPUs",
            **evidence,
        )
    valid = list(vcpu.valid_threads_per_core)
    cores, total = vcpu.default_cores, vcpu.default_vcpus
    evidence.update(valid_threads_per_core=valid, default_cores=cores, default_vcpus=total)
    if 2 not in valid:
        return FINDINGS.passed(
            f"Instance group {name} ({hyperpod_type}): ThreadsPerCore 1, the type has "
            "no simultaneous multithreading",
            **evidence,
        )
    if cores is not None and total is not None:
        counts = f": {cores} of {total} vCPUs visible"
    else:
        counts = ": half of the vCPUs are hidden"
    return FINDINGS.warn(
        Priority.P1,
        f"{hyperpod_type} group {name} runs with ThreadsPerCore=1{counts} "
        "(ThreadsPerCore=2 restores them)",
        **evidence,
    )


@check(FINDINGS, title="Threads per core")
def threads_per_core(data: ClusterData) -> Iterable[Finding]:
    """Groups with multithreading off on types that support it (e.g. 96 of 192 vCPUs on p5)."""
    groups = data.instance_groups()
    wanted = single_thread_types(groups)
    described = data.instance_types(wanted) if wanted else []
    return judge_threads_per_core(groups, described)
