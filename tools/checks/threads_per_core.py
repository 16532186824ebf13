"""§ J: instance groups created with ThreadsPerCore=1 on types that support two threads."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tools.findings import Finding, Priority, info, passed, warn
from tools.registry import check
from tools.triage.data import ClusterData, ec2_type

CHECK_ID = "threads-per-core"


def _threads(group: dict[str, Any]) -> int | None:
    value = group.get("ThreadsPerCore")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def single_thread_types(groups: list[dict[str, Any]]) -> list[str]:
    """EC2 types of the groups that run one thread per core (the only ones worth describing)."""
    return sorted(
        {
            ec2_type(str(g.get("InstanceType") or ""))
            for g in groups
            if _threads(g) == 1 and g.get("InstanceType")
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
        hyperpod_type = str(group.get("InstanceType") or "?")
        threads = _threads(group)
        evidence: dict[str, Any] = {
            "group": name,
            "instance_type": hyperpod_type,
            "threads_per_core": group.get("ThreadsPerCore"),
        }
        if threads != 1:
            shown = threads if threads is not None else "not set (default)"
            findings.append(
                passed(
                    CHECK_ID,
                    "J",
                    f"Instance group {name} ({hyperpod_type}): ThreadsPerCore {shown}",
                    **evidence,
                )
            )
            continue
        described = by_type.get(ec2_type(hyperpod_type))
        vcpu = described.get("VCpuInfo") if described else None
        if not isinstance(vcpu, dict):
            findings.append(
                info(
                    CHECK_ID,
                    "J",
                    f"Instance group {name} ({hyperpod_type}) runs with ThreadsPerCore=1; "
                    "no instance-type data to tell whether that hides vCPUs",
                    **evidence,
                )
            )
            continue
        valid = [v for v in vcpu.get("ValidThreadsPerCore") or [] if isinstance(v, int)]
        cores = vcpu.get("DefaultCores")
        total = vcpu.get("DefaultVCpus")
        evidence.update(valid_threads_per_core=valid, default_cores=cores, default_vcpus=total)
        if 2 not in valid:
            findings.append(
                passed(
                    CHECK_ID,
                    "J",
                    f"Instance group {name} ({hyperpod_type}): ThreadsPerCore 1, the type has "
                    "no simultaneous multithreading",
                    **evidence,
                )
            )
            continue
        if isinstance(cores, int) and isinstance(total, int):
            counts = f": {cores} of {total} vCPUs visible"
        else:
            counts = ": half of the vCPUs are hidden"
        findings.append(
            warn(
                CHECK_ID,
                Priority.P1,
                "J",
                f"{hyperpod_type} group {name} runs with ThreadsPerCore=1{counts} "
                "(ThreadsPerCore=2 restores them)",
                **evidence,
            )
        )
    return findings


@check(CHECK_ID, section="J", title="Threads per core")
def threads_per_core(data: ClusterData) -> Iterable[Finding]:
    """Groups with multithreading off on types that support it (e.g. 96 of 192 vCPUs on p5)."""
    groups = data.instance_groups()
    wanted = single_thread_types(groups)
    described = data.instance_types(wanted) if wanted else []
    return judge_threads_per_core(groups, described)
