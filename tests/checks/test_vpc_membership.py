"""§ B.1, B.2 and B.6 over literal DescribeSubnets / DescribeSecurityGroups / ... dicts,
parsed into the models the checks take.

Covers vpc_membership (B.1: one VPC, the S3 gateway endpoint), vpc_dns (B.2), subnet_free_ips
(B.6), and the A and B checks on clusters in the SageMaker-managed VPC (no VpcConfig).
"""

from __future__ import annotations

from typing import Any

import pytest

from tools.checks.private_subnets import CHECK_PRIVATE
from tools.checks.subnet_free_ips import CHECK_FREE_IPS, WARN_FLOOR, judge_free_ips
from tools.checks.vpc_dns import CHECK_DNS, judge_dns
from tools.checks.vpc_endpoints import CHECK_ENDPOINTS
from tools.checks.vpc_membership import (
    CHECK_MEMBERSHIP,
    CHECK_S3,
    judge_s3_gateway,
    judge_vpc_membership,
)
from tools.findings import Priority, Status
from tools.triage.data.network_model import SecurityGroup, Subnet, VpcEndpoint

from ._vpc import OTHER_VPC, SUBNET, SUBNET2, VPC, assert_well_formed, endpoint, subnet

# -- B.1 --------------------------------------------------------------------------------


def sg(group_id: str, vpc: str = VPC) -> SecurityGroup:
    return SecurityGroup.from_api({"GroupId": group_id, "VpcId": vpc})


def test_membership_passes_when_everything_shares_one_vpc() -> None:
    findings = judge_vpc_membership(
        [subnet(), subnet(SUBNET2)], [], [sg("sg-1"), sg("sg-2")], [], [SUBNET]
    )
    assert [(f.check, f.status, f.section) for f in findings] == [
        (CHECK_MEMBERSHIP, Status.PASS, "B.1")
    ]
    assert findings[0].evidence["cluster_vpc"] == VPC


def test_override_subnet_and_sg_in_another_vpc_fail_naming_the_odd_ones() -> None:
    findings = judge_vpc_membership(
        [subnet(), subnet(SUBNET2, vpc=OTHER_VPC)],
        [],
        [sg("sg-1"), sg("sg-odd", vpc=OTHER_VPC)],
        [],
        [SUBNET],
    )
    assert len(findings) == 1
    finding = findings[0]
    assert (finding.status, finding.priority, finding.section) == (
        Status.FAIL,
        Priority.P0,
        "B.1",
    )
    assert finding.resources == ["sg-odd", SUBNET2]
    assert VPC in finding.message
    assert OTHER_VPC in finding.message
    assert_well_formed(findings)


def test_reference_vpc_is_the_cluster_level_one_even_when_outnumbered() -> None:
    findings = judge_vpc_membership(
        [subnet(), subnet("subnet-x", vpc=OTHER_VPC), subnet("subnet-y", vpc=OTHER_VPC)],
        [],
        [],
        [],
        [SUBNET],
    )
    assert findings[0].status == Status.FAIL
    assert findings[0].resources == ["subnet-x", "subnet-y"]


def test_missing_subnet_and_sg_fail() -> None:
    findings = judge_vpc_membership([subnet()], ["subnet-gone"], [sg("sg-1")], ["sg-gone"], [])
    fails = [f for f in findings if f.status == Status.FAIL]
    assert [f.resources for f in fails] == [["subnet-gone"], ["sg-gone"]]
    assert all(f.priority == Priority.P0 for f in fails)
    assert any(f.status == Status.PASS for f in findings)
    assert_well_formed(findings)


def test_membership_with_nothing_found_only_reports_the_missing() -> None:
    findings = judge_vpc_membership([], [SUBNET], [], [], [SUBNET])
    assert [f.status for f in findings] == [Status.FAIL]


def test_s3_gateway_endpoint_present() -> None:
    findings = judge_s3_gateway(VPC, [endpoint("s3", "Gateway")])
    assert findings[0].status == Status.PASS
    assert findings[0].check == CHECK_S3


@pytest.mark.parametrize(
    "endpoints",
    [
        [],
        [endpoint("s3", "Interface")],
        [endpoint("s3", "Gateway", State="deleted")],
        [endpoint("ecr.api")],
    ],
)
def test_s3_gateway_endpoint_missing_warns_p2(endpoints: list[VpcEndpoint]) -> None:
    findings = judge_s3_gateway(VPC, endpoints)
    assert [(f.status, f.priority, f.section) for f in findings] == [
        (Status.WARN, Priority.P2, "B.1")
    ]
    assert findings[0].resources == [VPC]
    assert_well_formed(findings)


# -- B.2 --------------------------------------------------------------------------------


def test_dns_both_on_passes() -> None:
    findings = judge_dns(VPC, True, True)
    assert [(f.check, f.status) for f in findings] == [(CHECK_DNS, Status.PASS)]


@pytest.mark.parametrize(
    ("support", "hostnames", "fails"),
    [(False, True, 1), (True, False, 1), (False, False, 2)],
)
def test_dns_each_disabled_attribute_fails_p0(support: bool, hostnames: bool, fails: int) -> None:
    findings = judge_dns(VPC, support, hostnames)
    assert len(findings) == fails
    for finding in findings:
        assert (finding.status, finding.priority, finding.section) == (
            Status.FAIL,
            Priority.P0,
            "B.2",
        )
        assert finding.resources == [VPC]
        assert finding.evidence["enableDnsSupport"] is support
        assert finding.evidence["enableDnsHostnames"] is hostnames
    assert_well_formed(findings)
    if not support:
        assert "enableDnsSupport=false" in findings[0].message


# -- B.6 --------------------------------------------------------------------------------


def test_free_ips_threshold() -> None:
    findings = judge_free_ips(
        [
            subnet(AvailableIpAddressCount=WARN_FLOOR),
            subnet(SUBNET2, AvailableIpAddressCount=WARN_FLOOR - 1),
        ]
    )
    by_subnet = {f.evidence["subnet"]: f for f in findings}
    assert by_subnet[SUBNET].status == Status.PASS
    low = by_subnet[SUBNET2]
    assert (low.check, low.status, low.priority, low.section) == (
        CHECK_FREE_IPS,
        Status.WARN,
        Priority.P1,
        "B.6",
    )
    assert low.evidence["available_ips"] == WARN_FLOOR - 1
    assert str(WARN_FLOOR - 1) in low.message
    assert_well_formed(findings)


def test_free_ips_zero_and_missing_count() -> None:
    missing_count = Subnet.from_api({"SubnetId": SUBNET2})
    findings = judge_free_ips([subnet(AvailableIpAddressCount=0), missing_count])
    assert [f.status for f in findings] == [Status.FAIL, Status.INFO]


# -- clusters in the SageMaker-managed VPC (no VpcConfig) -------------------------------


def test_uses_managed_vpc_only_without_any_vpc_config() -> None:
    from tools.triage.data.sagemaker_model import Cluster

    def uses_managed_vpc(raw: dict[str, Any]) -> bool:
        return Cluster.from_api(raw).uses_managed_vpc

    assert uses_managed_vpc({"InstanceGroups": [{"InstanceGroupName": "gpu"}]})
    assert uses_managed_vpc({})
    assert not uses_managed_vpc({"VpcConfig": {"SecurityGroupIds": ["sg-1"], "Subnets": [SUBNET]}})
    override = {"OverrideVpcConfig": {"SecurityGroupIds": ["sg-1"], "Subnets": [SUBNET]}}
    assert not uses_managed_vpc({"InstanceGroups": [override]})


def test_a_and_b_checks_say_not_applicable_on_the_managed_vpc() -> None:
    from cluster_simulator import base
    from tools.aws.session import AwsAccess
    from tools.checks.private_subnets import private_subnets
    from tools.checks.security_groups import efa_security_groups
    from tools.checks.vpc_endpoints import vpc_endpoints
    from tools.checks.vpc_membership import s3_gateway_endpoint, vpc_membership
    from tools.target import TriageTarget
    from tools.triage.data import ClusterData

    world = base.healthy_slurm()
    del world.cluster["VpcConfig"]
    world.denied |= {("ec2", "DescribeSubnets"), ("ec2", "DescribeSecurityGroups")}
    target = TriageTarget(cluster=world.cluster["ClusterName"], region=world.region)
    data = ClusterData(AwsAccess(world.region, replay=world), target, now=base.RECORDED_AT)
    checks = (efa_security_groups, vpc_membership, s3_gateway_endpoint, private_subnets)
    findings = [f for run in (*checks, vpc_endpoints) for f in run(data)]
    assert [(f.check, f.status) for f in findings] == [
        ("efa-security-groups", Status.INFO),
        (CHECK_MEMBERSHIP, Status.INFO),
        (CHECK_S3, Status.INFO),
        (CHECK_PRIVATE, Status.INFO),
        (CHECK_ENDPOINTS, Status.INFO),
    ]
    for finding in findings:
        assert "SageMaker-managed VPC" in finding.message
        assert finding.message.endswith("not applicable")
    # With a VpcConfig the same checks judge the customer VPC.
    healthy = base.healthy_slurm()
    data = ClusterData(AwsAccess(world.region, replay=healthy), target, now=base.RECORDED_AT)
    judged = [f for run in (*checks, vpc_endpoints) for f in run(data)]
    # PASS, and the INFO that names the template's all-traffic egress beside the self rules.
    assert {f.status for f in judged} == {Status.PASS, Status.INFO}
    assert [f.check for f in judged if f.status is Status.INFO] == ["efa-security-groups"]
    assert not any("SageMaker-managed" in f.message for f in judged)
