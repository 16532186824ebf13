"""§ J node-vcpus: lscpu CPU(s) below the type's vCPUs, worded with the group's ThreadsPerCore."""

from __future__ import annotations

from evals.clusters.node_samples import system
from tools.checks.node_vcpus import CHECK_ID, group_threads, judge_vcpus, node_vcpus
from tools.findings import Priority, Status
from tools.parsers.lscpu import parse_lscpu

from ._node_data import GPU_NODE, assert_well_formed, cpu_node, node, node_data, statuses

HALF = parse_lscpu(system.lscpu(cpus=96, threads_per_core=1))
FULL = parse_lscpu(system.lscpu())


def test_96_of_192_with_threads_per_core_1() -> None:
    [finding] = judge_vcpus("i-1", "ml.p5.48xlarge", HALF, 192, "gpu", 1)
    assert (finding.status, finding.priority, finding.section) == (Status.FAIL, Priority.P1, "J")
    assert finding.check == CHECK_ID
    assert "shows 96 of 192 vCPUs" in finding.message
    assert "ThreadsPerCore=1" in finding.message
    assert "ThreadsPerCore=2" in finding.message
    assert finding.evidence["group_threads_per_core"] == 1
    assert_well_formed([finding])


def test_other_causes_are_worded_apart() -> None:
    [two] = judge_vcpus("i-1", "ml.p5.48xlarge", HALF, 192, "gpu", 2)
    assert "offline for another reason" in two.message
    [unknown] = judge_vcpus("i-1", "ml.p5.48xlarge", HALF, 192, "gpu", None)
    assert "not known" in unknown.message


def test_full_count_or_unknown_type() -> None:
    assert judge_vcpus("i-1", "ml.p5.48xlarge", FULL, 192) == []
    [finding] = judge_vcpus("i-1", "ml.x9.huge", FULL, None)
    assert finding.status is Status.INFO


def test_group_threads_reads_flexible_groups_per_type() -> None:
    groups = [
        {"InstanceGroupName": "a", "InstanceType": "ml.p5.48xlarge", "ThreadsPerCore": 1},
        {
            "InstanceGroupName": "b",
            "ThreadsPerCore": 2,
            "InstanceTypeDetails": [{"InstanceType": "ml.p5.48xlarge", "ThreadsPerCore": 1}],
        },
    ]
    assert group_threads(groups, "a", "ml.p5.48xlarge") == 1
    assert group_threads(groups, "b", "ml.p5.48xlarge") == 1
    assert group_threads(groups, "b", "ml.p4d.24xlarge") == 2
    assert group_threads(groups, "zzz", "ml.p5.48xlarge") is None


def test_registered_check_reads_the_group_setting() -> None:
    data = node_data(
        node(GPU_NODE, cpu=system.lscpu(cpus=96, threads_per_core=1)),
        cpu_node(),
        threads_per_core=1,
    )
    findings = list(node_vcpus(data))
    assert statuses(findings) == [Status.FAIL, Status.PASS]
    assert "96 of 192" in findings[0].message
    assert "gpu-workers runs with ThreadsPerCore=1" in findings[0].message


def test_registered_check_unreadable() -> None:
    data = node_data(node(GPU_NODE, cpu="sh: 1: lscpu: not found"))
    [finding] = node_vcpus(data)
    assert finding.status is Status.INFO
    assert "Could not read the CPU count" in finding.message
