"""§ B.1 vpc-membership: the existence and one-VPC rules alone, without their words."""

from __future__ import annotations

from tools.checks.vpc_membership import (
    Missing,
    MissingResources,
    missing_verdicts,
    placement_verdict,
)
from tools.triage.data.network_model import SecurityGroup, Subnet


def subnet(subnet_id: str, vpc: str) -> Subnet:
    return Subnet.from_api({"SubnetId": subnet_id, "VpcId": vpc})


def sg(group_id: str, vpc: str) -> SecurityGroup:
    return SecurityGroup.from_api({"GroupId": group_id, "VpcId": vpc})


def test_missing_subnets_and_groups_each_give_a_sorted_verdict() -> None:
    assert missing_verdicts(["subnet-b", "subnet-a"], ["sg-1"]) == [
        MissingResources(Missing.SUBNETS, ("subnet-a", "subnet-b")),
        MissingResources(Missing.SECURITY_GROUPS, ("sg-1",)),
    ]
    assert missing_verdicts([], []) == []


def test_the_cluster_level_subnets_name_the_vpc_and_the_rest_must_follow() -> None:
    subnets = [
        subnet("subnet-1", "vpc-a"),
        subnet("subnet-2", "vpc-b"),
        subnet("subnet-3", "vpc-b"),
    ]
    verdict = placement_verdict(subnets, [sg("sg-1", "vpc-b")], ["subnet-1"])
    assert verdict is not None
    assert verdict.vpc_id == "vpc-a"
    assert verdict.outside == (("sg-1", "vpc-b"), ("subnet-2", "vpc-b"), ("subnet-3", "vpc-b"))
    assert (verdict.subnets, verdict.security_groups) == (3, 1)


def test_one_vpc_leaves_nothing_outside_and_no_vpc_no_verdict() -> None:
    verdict = placement_verdict([subnet("subnet-1", "vpc-a")], [sg("sg-1", "vpc-a")], [])
    assert verdict is not None
    assert verdict.outside == ()
    assert placement_verdict([], [], []) is None
