"""§ B.7 network interfaces against the Region quota (tools/checks/eni_quota.py): the pure
rule over literal numbers, and the registered check over a replayed world."""

from __future__ import annotations

from typing import Any

from tools.checks.eni_quota import CHECK_ID, DEFAULT_QUOTA, judge_eni_quota
from tools.findings import Priority, Status
from tools.triage.runner import run_checks


def verdict(in_use: int, quota: float | None = 1000.0) -> tuple[Status, Priority | None]:
    [finding] = judge_eni_quota(in_use, quota)
    assert (finding.check, finding.section) == (CHECK_ID, "B.7")
    return finding.status, finding.priority


def test_tiers() -> None:
    assert verdict(800) == (Status.PASS, None)
    assert verdict(801) == (Status.WARN, Priority.P1)
    assert verdict(949) == (Status.WARN, Priority.P1)
    assert verdict(950) == (Status.FAIL, Priority.P1)
    assert verdict(999) == (Status.FAIL, Priority.P1)
    assert verdict(1000) == (Status.FAIL, Priority.P0)
    assert verdict(1200) == (Status.FAIL, Priority.P0)


def test_no_quota_value_is_info() -> None:
    assert verdict(10, None) == (Status.INFO, None)
    assert verdict(10, 0) == (Status.INFO, None)


def test_message_and_evidence_name_the_region_count_and_the_cluster_vpc() -> None:
    [finding] = judge_eni_quota(
        900,
        1000.0,
        at_least=True,
        per_vpc={"vpc-1": 600, "vpc-2": 300},
        cluster_vpcs=["vpc-1"],
    )
    assert "at least 900 of 1000" in finding.message
    assert "600 in vpc-1" in finding.message
    assert finding.evidence["cluster_vpcs"] == {"vpc-1": 600}
    assert finding.evidence["quota_code"] == "vpc/L-DF5E4CA3"


def _world() -> Any:
    from cluster_simulator import base

    return base.healthy_eks()


def _run(world: Any) -> Any:
    from cluster_simulator import base
    from tools.aws.session import AwsAccess
    from tools.target import TriageTarget
    from tools.triage.data import ClusterData

    target = TriageTarget(cluster=world.cluster["ClusterName"], region=world.region)
    data = ClusterData(AwsAccess(world.region, replay=world), target, now=base.RECORDED_AT)
    [output] = run_checks(data, [CHECK_ID])
    return output


def test_registered_check_counts_the_whole_region() -> None:
    world = _world()
    [finding] = _run(world).findings
    assert finding.status is Status.PASS
    assert finding.evidence["in_use"] == len(world.network_interfaces)
    inside = sum(1 for e in world.network_interfaces if e["VpcId"] != "vpc-0a1b2c3d4e5f6ffff")
    assert list(finding.evidence["cluster_vpcs"].values()) == [inside]


def test_registered_check_warns_near_the_quota() -> None:
    world = _world()
    world.eni_quota = len(world.network_interfaces) / 0.9  # 90 % in use
    [finding] = _run(world).findings
    assert (finding.status, finding.priority) == (Status.WARN, Priority.P1)


def test_no_applied_quota_value_falls_back_to_the_default() -> None:
    world = _world()
    world.eni_quota = None
    [finding] = _run(world).findings
    assert finding.evidence["quota"] == DEFAULT_QUOTA
    assert finding.evidence["quota_source"] == "default"


def test_access_denied_on_either_read_skips_the_check() -> None:
    for denied in (("service-quotas", "GetServiceQuota"), ("ec2", "DescribeNetworkInterfaces")):
        world = _world()
        world.denied.add(denied)
        output = _run(world)
        assert output.findings == []
        [skipped] = output.skipped
        assert denied[1] in skipped.reason


def test_interfaces_are_recorded_reduced_and_replay_the_same() -> None:
    from cluster_simulator import base
    from tools.aws.session import AwsAccess
    from tools.recorded.recorder import Recorder
    from tools.target import TriageTarget
    from tools.triage.data import ClusterData

    world = _world()
    for interface in world.network_interfaces:
        interface["Description"] = "a field the check never reads"
    recorder = Recorder()
    target = TriageTarget(cluster=world.cluster["ClusterName"], region=world.region)
    live = ClusterData(
        AwsAccess(world.region, replay=world, recorder=recorder), target, now=base.RECORDED_AT
    )
    [first] = run_checks(live, [CHECK_ID])
    recording = recorder.build(cluster=target.cluster, region=target.region)
    calls = {(c.service, c.operation): c for c in recording.aws}
    stored = calls[("ec2", "DescribeNetworkInterfaces")].response or {}
    assert all("Description" not in i for i in stored["NetworkInterfaces"])
    assert ("service-quotas", "GetServiceQuota") in calls
    replayed = ClusterData(AwsAccess(world.region, replay=recording), target, now=base.RECORDED_AT)
    [again] = run_checks(replayed, [CHECK_ID])
    assert [f.message for f in again.findings] == [f.message for f in first.findings]
