"""§ J rules of tools/checks/threads_per_core.py over literal DescribeCluster / EC2 dicts."""

from __future__ import annotations

from typing import Any

from cluster_simulator import base
from tools.aws.session import AwsAccess
from tools.checks import threads_per_core as rules
from tools.checks.threads_per_core import CHECK_ID, threads_per_core
from tools.findings import Finding, Priority, Status
from tools.target import TriageTarget
from tools.triage.data import ClusterData
from tools.triage.data.network_model import InstanceTypeInfo
from tools.triage.data.sagemaker_model import parse_instance_groups


# The rules take parsed instance groups; the cases stay literal DescribeCluster entries.
def judge_threads_per_core(
    groups: list[dict[str, Any]], instance_types: list[InstanceTypeInfo]
) -> list[Finding]:
    return rules.judge_threads_per_core(parse_instance_groups(groups), instance_types)


def single_thread_types(groups: list[dict[str, Any]]) -> list[str]:
    return rules.single_thread_types(parse_instance_groups(groups))


def group(name: str, instance_type: str, threads: Any = None) -> dict[str, Any]:
    data: dict[str, Any] = {"InstanceGroupName": name, "InstanceType": instance_type}
    if threads is not None:
        data["ThreadsPerCore"] = threads
    return data


def ec2(name: str, vcpus: int, cores: int, valid: list[int]) -> InstanceTypeInfo:
    return InstanceTypeInfo.from_api(
        {
            "InstanceType": name,
            "VCpuInfo": {
                "DefaultVCpus": vcpus,
                "DefaultCores": cores,
                "DefaultThreadsPerCore": max(valid),
                "ValidThreadsPerCore": valid,
            },
        }
    )


P5 = ec2("p5.48xlarge", 192, 96, [1, 2])


def test_p5_with_one_thread_per_core_warns_p1_with_counts() -> None:
    [finding] = judge_threads_per_core([group("gpu", "ml.p5.48xlarge", 1)], [P5])
    assert finding.status is Status.WARN
    assert finding.priority is Priority.P1
    assert finding.section == "J"
    assert finding.check == CHECK_ID
    assert "96 of 192 vCPUs visible" in finding.message
    assert "ml.p5.48xlarge group gpu" in finding.message
    assert finding.evidence["valid_threads_per_core"] == [1, 2]


def test_two_threads_or_missing_passes() -> None:
    findings = judge_threads_per_core(
        [group("a", "ml.p5.48xlarge", 2), group("b", "ml.p5.48xlarge")], [P5]
    )
    assert [f.status for f in findings] == [Status.PASS, Status.PASS]
    assert "default" in findings[1].message


def test_one_thread_on_a_type_without_smt_passes() -> None:
    single = ec2("trn1.32xlarge", 128, 128, [1])
    [finding] = judge_threads_per_core([group("trn", "ml.trn1.32xlarge", 1)], [single])
    assert finding.status is Status.PASS


def test_missing_type_data_is_info() -> None:
    [finding] = judge_threads_per_core([group("gpu", "ml.p5.48xlarge", 1)], [])
    assert finding.status is Status.INFO


def test_missing_counts_still_warn() -> None:
    partial = InstanceTypeInfo.from_api(
        {"InstanceType": "p5.48xlarge", "VCpuInfo": {"ValidThreadsPerCore": [1, 2]}}
    )
    [finding] = judge_threads_per_core([group("gpu", "ml.p5.48xlarge", 1)], [partial])
    assert finding.status is Status.WARN
    assert "half" in finding.message


def test_garbage_does_not_crash() -> None:
    findings = judge_threads_per_core(
        [{}, group("x", "ml.p5.48xlarge", "1"), group("y", "ml.p5.48xlarge", True)],
        [InstanceTypeInfo.from_api({"InstanceType": "p5.48xlarge", "VCpuInfo": "nope"})],
    )
    assert [f.status for f in findings] == [Status.INFO, Status.PASS, Status.PASS]
    assert "not judged" in findings[0].message


# -- flexible instance groups (no InstanceType) ------------------------------------------


def flexible(name: str, details: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    """A DescribeCluster ClusterInstanceGroupDetails of a flexible group (no InstanceType)."""
    return {"InstanceGroupName": name, "InstanceTypeDetails": details, **extra}


def test_flexible_group_is_judged_per_type_from_instance_type_details() -> None:
    details = [
        {"InstanceType": "ml.p5.48xlarge", "CurrentCount": 2, "ThreadsPerCore": 1},
        {"InstanceType": "ml.p4d.24xlarge", "CurrentCount": 1, "ThreadsPerCore": 2},
    ]
    groups = [flexible("gpu", details)]
    assert single_thread_types(groups) == ["p5.48xlarge"]
    findings = judge_threads_per_core(groups, [P5])
    assert [(f.status, f.evidence["instance_type"]) for f in findings] == [
        (Status.WARN, "ml.p5.48xlarge"),
        (Status.PASS, "ml.p4d.24xlarge"),
    ]
    assert findings[0].priority is Priority.P1
    assert "96 of 192 vCPUs visible" in findings[0].message


def test_flexible_group_with_two_threads_everywhere_passes() -> None:
    details = [{"InstanceType": "ml.p5.48xlarge", "ThreadsPerCore": 2}]
    findings = judge_threads_per_core([flexible("gpu", details, ThreadsPerCore=1)], [P5])
    assert [f.status for f in findings] == [Status.PASS]


def test_types_only_in_instance_requirements_take_the_group_threads() -> None:
    group_ = {
        "InstanceGroupName": "gpu",
        "ThreadsPerCore": 1,
        "InstanceRequirements": {"CurrentInstanceTypes": ["ml.p5.48xlarge"]},
    }
    assert single_thread_types([group_]) == ["p5.48xlarge"]
    [finding] = judge_threads_per_core([group_], [P5])
    assert finding.status is Status.WARN


def test_group_without_any_type_is_info_not_judged() -> None:
    [finding] = judge_threads_per_core([{"InstanceGroupName": "gpu", "ThreadsPerCore": 1}], [P5])
    assert finding.status is Status.INFO
    assert "instance types not judged" in finding.message
    assert single_thread_types([{"InstanceGroupName": "gpu", "ThreadsPerCore": 1}]) == []


def test_only_single_thread_groups_are_described() -> None:
    groups = [group("a", "ml.p5.48xlarge", 1), group("b", "ml.m5.2xlarge", 2), group("c", "", 1)]
    assert single_thread_types(groups) == ["p5.48xlarge"]


def data_for(world: Any) -> ClusterData:
    target = TriageTarget(cluster=world.cluster["ClusterName"], region=world.region)
    return ClusterData(AwsAccess(world.region, replay=world), target, now=base.RECORDED_AT)


def test_registered_check_against_the_base_world() -> None:
    world = base.healthy_eks()
    world.cluster["InstanceGroups"][0]["ThreadsPerCore"] = 1
    findings = list(threads_per_core(data_for(world)))
    assert [f.status for f in findings] == [Status.WARN, Status.PASS]
    assert "96 of 192" in findings[0].message


def test_registered_check_describes_the_types_of_a_flexible_group() -> None:
    world = base.healthy_eks()
    gpu = world.cluster["InstanceGroups"][0]
    del gpu["InstanceType"]
    gpu["InstanceTypeDetails"] = [
        {"InstanceType": "ml.p5.48xlarge", "CurrentCount": 4, "ThreadsPerCore": 1}
    ]
    findings = list(threads_per_core(data_for(world)))
    assert [f.status for f in findings] == [Status.WARN, Status.PASS]
    assert "96 of 192" in findings[0].message
