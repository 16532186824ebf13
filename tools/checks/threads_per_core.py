"""§ J: instance groups created with ThreadsPerCore=1 on types that support two threads."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tools.checks.capacity import group_instance_types
from tools.findings import Finding, Priority, info, passed, warn
from tools.registry import check
from tools.triage.data import ClusterData, ec2_type

CHECK_ID = "threads-per-core"


def _threads(group: dict[str, Any]) -> int | None:
    value = group.get("ThreadsPerCore")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def type_threads(group: dict[str, Any]) -> list[tuple[str, Any]]:
    """(HyperPod type, ThreadsPerCore as reported) for each type the group runs.

    A flexible group reports ThreadsPerCore per type in InstanceTypeDetails; a type it
    lists only in InstanceRequirements takes the group's ThreadsPerCore.
    """
    per_type = {
        str(d["InstanceType"]): d.get("ThreadsPerCore", group.get("ThreadsPerCore"))
        for d in group.get("InstanceTypeDetails") or []
        if isinstance(d, dict) and d.get("InstanceType")
    }
    return [(t, per_type.get(t, group.get("ThreadsPerCore"))) for t in group_instance_types(group)]


def single_thread_types(groups: list[dict[str, Any]]) -> list[str]:
    """EC2 types run with one thread per core (the only ones worth describing)."""
    return sorted(
        {
            ec2_type(hyperpod_type)
            for g in groups
            for hyperpod_type, threads in type_threads(g)
            if _threads({"ThreadsPerCore": threads}) == 1
        }
    )


def judge_threads_per_core(
    groups: list[dict[str, Any]], instance_types: list[dict[str, Any]]
) -> list[Finding]:
    """WARN P1 when ThreadsPerCore=1 hides half the vCPUs of a type that supports 2."""
    by_type = {str(t.get("InstanceType")): t for t in instance_types if isinstance(t, dict)}
    findings: list[Finding] = []
    for group in groups:
        name = str(group.get("InstanceGroupName") or "?")
        pairs = type_threads(group)
        if not pairs:
            findings.append(
                info(
                    CHECK_ID,
                    "J",
                    f"Instance group {name}: no instance type reported (neither InstanceType "
                    "nor the InstanceTypeDetails / InstanceRequirements of a flexible group): "
                    "instance types not judged",
                    group=name,
                    threads_per_core=group.get("ThreadsPerCore"),
                )
            )
            continue
        for hyperpod_type, reported in pairs:
            findings.append(_judge_type(name, hyperpod_type, reported, by_type))
    return findings


def _judge_type(
    name: str, hyperpod_type: str, reported: Any, by_type: dict[str, dict[str, Any]]
) -> Finding:
    threads = _threads({"ThreadsPerCore": reported})
    evidence: dict[str, Any] = {
        "group": name,
        "instance_type": hyperpod_type,
        "threads_per_core": reported,
    }
    if threads != 1:
        shown = threads if threads is not None else "not set (default)"
        return passed(
            CHECK_ID,
            "J",
            f"Instance group {name} ({hyperpod_type}): ThreadsPerCore {shown}",
            **evidence,
        )
    described = by_type.get(ec2_type(hyperpod_type))
    vcpu = described.get("VCpuInfo") if described else None
    if not isinstance(vcpu, dict):
        return info(
            CHECK_ID,
            "J",
            f"Instance group {name} ({hyperpod_type}) runs with ThreadsPerCore=1; "
            "no instance-type data to tell whether that hides vCPUs",
            **evidence,
        )
    valid = [v for v in vcpu.get("ValidThreadsPerCore") or [] if isinstance(v, int)]
    cores = vcpu.get("DefaultCores")
    total = vcpu.get("DefaultVCpus")
    evidence.update(valid_threads_per_core=valid, default_cores=cores, default_vcpus=total)
    if 2 not in valid:
        return passed(
            CHECK_ID,
            "J",
            f"Instance group {name} ({hyperpod_type}): ThreadsPerCore 1, the type has "
            "no simultaneous multithreading",
            **evidence,
        )
    if isinstance(cores, int) and isinstance(total, int):
        counts = f": {cores} of {total} vCPUs visible"
    else:
        counts = ": half of the vCPUs are hidden"
    return warn(
        CHECK_ID,
        Priority.P1,
        "J",
        f"{hyperpod_type} group {name} runs with ThreadsPerCore=1{counts} "
        "(ThreadsPerCore=2 restores them)",
        **evidence,
    )


@check(CHECK_ID, section="J", title="Threads per core")
def threads_per_core(data: ClusterData) -> Iterable[Finding]:
    """Groups with multithreading off on types that support it (e.g. 96 of 192 vCPUs on p5)."""
    groups = data.instance_groups()
    wanted = single_thread_types(groups)
    described = data.instance_types(wanted) if wanted else []
    return judge_threads_per_core(groups, described)
