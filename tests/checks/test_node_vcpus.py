"""§ J node-vcpus: lscpu CPU(s) below the type's vCPUs, worded with the group's ThreadsPerCore."""

from __future__ import annotations

from cluster_simulator.node_samples import system
from tools.checks.node_vcpus import CHECK_ID, group_threads, judge_vcpus, node_vcpus
from tools.findings import Priority, Status
from tools.parsers.lscpu import parse_lscpu
from tools.triage.data.sagemaker_model import parse_instance_groups

from ._node_data import GPU_NODE, assert_well_formed, cpu_node, node, node_data, statuses

HALF = parse_lscpu(system.lscpu(cpus=96, threads_per_core=1))
FULL = parse_lscpu(system.lscpu())


def test_96_of_192_as_threads_per_core_1_sets_is_info_pointing_at_the_group() -> None:
    [finding] = judge_vcpus("i-1", "ml.p5.48xlarge", HALF, 192, group="gpu", threads_per_core=1)
    assert (finding.status, finding.section) == (Status.INFO, "J")
    assert finding.check == CHECK_ID
    assert "shows 96 of 192 vCPUs" in finding.message
    assert "ThreadsPerCore=1" in finding.message
    assert finding.evidence["group_threads_per_core"] == 1
    assert_well_formed([finding])


def test_fewer_than_the_groups_setting_gives_fails() -> None:
    [finding] = judge_vcpus(
        "i-1",
        "ml.p5.48xlarge",
        parse_lscpu(system.lscpu(cpus=80, threads_per_core=1)),
        192,
        group="gpu",
        threads_per_core=1,
    )
    assert (finding.status, finding.priority) == (Status.FAIL, Priority.P1)
    assert "fewer than the 96 that ThreadsPerCore=1 on instance group gpu gives" in finding.message


def test_offline_cpus_are_counted_and_said() -> None:
    text = system.lscpu().replace(
        "On-line CPU(s) list:              0-191", "On-line CPU(s) list:              0-187"
    )
    cpu = parse_lscpu(text)
    assert cpu.online_cpus == 188
    [finding] = judge_vcpus("i-1", "ml.p5.48xlarge", cpu, 192, group="gpu", threads_per_core=2)
    assert finding.status is Status.FAIL
    assert "188 of 192 vCPUs online" in finding.message
    assert "4 of its 192 CPUs are offline" in finding.message


def test_other_causes_are_worded_apart() -> None:
    [two] = judge_vcpus("i-1", "ml.p5.48xlarge", HALF, 192, group="gpu", threads_per_core=2)
    assert "missing for another reason" in two.message
    [unknown] = judge_vcpus("i-1", "ml.p5.48xlarge", HALF, 192, group="gpu", threads_per_core=None)
    assert "not known" in unknown.message


def test_full_count_or_unknown_type() -> None:
    assert judge_vcpus("i-1", "ml.p5.48xlarge", FULL, 192) == []
    [finding] = judge_vcpus("i-1", "ml.x9.huge", FULL, None)
    assert finding.status is Status.INFO


def test_group_threads_reads_flexible_groups_per_type() -> None:
    groups = parse_instance_groups(
        [
            {"InstanceGroupName": "a", "InstanceType": "ml.p5.48xlarge", "ThreadsPerCore": 1},
            {
                "InstanceGroupName": "b",
                "ThreadsPerCore": 2,
                "InstanceTypeDetails": [{"InstanceType": "ml.p5.48xlarge", "ThreadsPerCore": 1}],
            },
        ]
    )
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
    assert statuses(findings) == [Status.INFO, Status.PASS]
    assert "96 of 192" in findings[0].message
    assert "instance group gpu-workers runs with ThreadsPerCore=1" in findings[0].message


def test_registered_check_unreadable() -> None:
    data = node_data(node(GPU_NODE, cpu="sh: 1: lscpu: not found"))
    [finding] = node_vcpus(data)
    assert finding.status is Status.INFO
    assert "Could not read the CPU count" in finding.message
