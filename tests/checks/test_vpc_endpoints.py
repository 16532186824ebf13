"""§ B.4 over literal DescribeVpcEndpoints / DescribeRouteTables dicts, parsed into models.

Covers endpoint service names (`VpcEndpoint.service`, all partitions) and
vpc_endpoints (B.4): which endpoints a subnet without egress needs.
"""

from __future__ import annotations

import pytest

from tools.checks._network import REQUIRED_ENDPOINTS, required_endpoints
from tools.checks.vpc_endpoints import (
    CHECK_ENDPOINTS,
    EndpointNeed,
    endpoint_coverage,
    judge_endpoints,
)
from tools.checks.vpc_membership import judge_s3_gateway
from tools.findings import Priority, Status
from tools.triage.data.network_model import VpcEndpoint

from ._vpc import (
    APPLIANCE_DEFAULT,
    IGW_DEFAULT,
    LOCAL,
    NAT_DEFAULT,
    SUBNET,
    SUBNET2,
    VPC,
    assert_well_formed,
    endpoint,
    problems,
    subnet,
    table,
)

# -- endpoint service names (VpcEndpoint) ------------------------------------------------


@pytest.mark.parametrize(
    ("name", "service"),
    [
        ("com.amazonaws.us-west-2.ecr.api", "ecr.api"),
        ("com.amazonaws.us-west-2.s3", "s3"),
        ("com.amazonaws.eu-central-1.sagemaker.api", "sagemaker.api"),
        ("aws.sagemaker.us-west-2.notebook", "aws.sagemaker.us-west-2.notebook"),
        ("cn.com.amazonaws.cn-north-1.ecr.api", "ecr.api"),
        ("cn.com.amazonaws.cn-northwest-1.ecr.dkr", "ecr.dkr"),
        ("com.amazonaws.cn-north-1.s3", "s3"),
        ("com.amazonaws.us-gov-west-1.ecr.api", "ecr.api"),
        ("com.amazonaws.us-gov-east-1.sagemaker.api", "sagemaker.api"),
        ("com.amazonaws.s3-global.accesspoint", "com.amazonaws.s3-global.accesspoint"),
    ],
)
def test_endpoint_service_names(name: str, service: str) -> None:
    assert VpcEndpoint.from_api({"ServiceName": name}).service == service


def _china(service: str, kind: str = "Interface") -> VpcEndpoint:
    prefix = "com.amazonaws" if service in ("s3", "sts", "logs") else "cn.com.amazonaws"
    return endpoint(service, kind, ServiceName=f"{prefix}.cn-north-1.{service}")


def test_china_region_endpoint_names_satisfy_b4() -> None:
    tables = [table("rtb", [LOCAL], subnets=(SUBNET,))]
    names = [n for n in REQUIRED_ENDPOINTS if n != "s3"]
    endpoints = [_china("s3", "Gateway"), *(_china(n) for n in names)]
    findings = judge_endpoints(VPC, [subnet()], tables, endpoints, "slurm")
    assert [f.status for f in findings] == [Status.PASS]
    missing = judge_endpoints(VPC, [subnet()], tables, endpoints[:-1], "slurm")
    assert [(f.status, f.priority) for f in missing] == [(Status.FAIL, Priority.P0)]
    assert missing[0].evidence["missing"] == [names[-1]]


def test_govcloud_s3_gateway_endpoint_is_found() -> None:
    gov = endpoint("s3", "Gateway", ServiceName="com.amazonaws.us-gov-west-1.s3")
    assert [f.status for f in judge_s3_gateway(VPC, [gov])] == [Status.PASS]


# -- B.4 --------------------------------------------------------------------------------

ALL_ENDPOINTS = [endpoint("s3", "Gateway")] + [
    endpoint(name) for name in REQUIRED_ENDPOINTS if name != "s3"
]


def test_nat_makes_endpoints_optional() -> None:
    tables = [table("rtb", [LOCAL, NAT_DEFAULT], subnets=(SUBNET,))]
    findings = judge_endpoints(VPC, [subnet()], tables, [], "eks")
    assert [(f.check, f.status, f.section) for f in findings] == [
        (CHECK_ENDPOINTS, Status.PASS, "B.4")
    ]


def test_no_egress_lists_every_missing_endpoint_in_one_finding() -> None:
    tables = [table("rtb", [LOCAL], subnets=(SUBNET,))]
    findings = judge_endpoints(VPC, [subnet()], tables, [endpoint("s3", "Gateway")], "eks")
    assert len(findings) == 1
    finding = findings[0]
    assert (finding.status, finding.priority, finding.section) == (
        Status.FAIL,
        Priority.P0,
        "B.4",
    )
    expected = [n for n in REQUIRED_ENDPOINTS if n != "s3"] + ["eks"]
    assert finding.evidence["missing"] == expected
    for name in expected:
        assert name in finding.message
    assert SUBNET in finding.resources
    assert_well_formed(findings)


def test_eks_endpoint_only_needed_on_eks() -> None:
    tables = [table("rtb", [LOCAL], subnets=(SUBNET,))]
    slurm = judge_endpoints(VPC, [subnet()], tables, ALL_ENDPOINTS, "slurm")
    assert [f.status for f in slurm] == [Status.PASS]
    eks = judge_endpoints(VPC, [subnet()], tables, ALL_ENDPOINTS, "eks")
    assert eks[0].status == Status.FAIL
    assert eks[0].evidence["missing"] == ["eks"]


def test_s3_interface_endpoint_satisfies_s3() -> None:
    endpoints = [endpoint("s3", "Interface"), *ALL_ENDPOINTS[1:]]
    tables = [table("rtb", [LOCAL], subnets=(SUBNET,))]
    assert [f.status for f in judge_endpoints(VPC, [subnet()], tables, endpoints, "slurm")] == [
        Status.PASS
    ]


def test_unavailable_endpoint_does_not_count() -> None:
    endpoints = [
        e if e.service_name[-3:] != "sts" else endpoint("sts", State="pending")
        for e in ALL_ENDPOINTS
    ]
    tables = [table("rtb", [LOCAL], subnets=(SUBNET,))]
    findings = judge_endpoints(VPC, [subnet()], tables, endpoints, "slurm")
    assert findings[0].evidence["missing"] == ["sts"]


def test_blackhole_nat_needs_endpoints() -> None:
    tables = [table("rtb", [LOCAL, {**NAT_DEFAULT, "State": "blackhole"}], subnets=(SUBNET,))]
    findings = judge_endpoints(VPC, [subnet()], tables, [], "slurm")
    assert findings[0].status == Status.FAIL


def test_inspection_endpoint_makes_endpoints_optional() -> None:
    tables = [table("rtb", [LOCAL, APPLIANCE_DEFAULT], subnets=(SUBNET,))]
    findings = judge_endpoints(VPC, [subnet()], tables, [endpoint("s3", "Gateway")], "eks")
    assert [(f.check, f.status, f.section) for f in findings] == [
        (CHECK_ENDPOINTS, Status.PASS, "B.4")
    ]
    assert findings[0].evidence["subnets_without_egress"] == []
    assert findings[0].evidence["egress_via_appliance"] == {SUBNET: "vpce-0firewall"}
    assert "vpce-0firewall" in findings[0].message
    assert_well_formed(findings)


def test_blackhole_inspection_endpoint_needs_endpoints() -> None:
    dead = {**APPLIANCE_DEFAULT, "State": "blackhole"}
    tables = [table("rtb", [LOCAL, dead], subnets=(SUBNET,))]
    findings = judge_endpoints(VPC, [subnet()], tables, [], "slurm")
    assert [(f.status, f.priority) for f in findings] == [(Status.FAIL, Priority.P0)]
    assert "egress_via_appliance" not in findings[0].evidence


def test_public_subnets_are_left_to_b3() -> None:
    tables = [table("rtb", [LOCAL, IGW_DEFAULT], subnets=(SUBNET,))]
    findings = judge_endpoints(VPC, [subnet()], tables, [], "eks")
    assert [f.status for f in findings] == [Status.PASS]


def test_only_subnets_without_egress_are_named() -> None:
    tables = [
        table("rtb-nat", [LOCAL, NAT_DEFAULT], subnets=(SUBNET,)),
        table("rtb-iso", [LOCAL], subnets=(SUBNET2,)),
    ]
    findings = judge_endpoints(VPC, [subnet(), subnet(SUBNET2)], tables, [], "slurm")
    assert findings[0].evidence["subnets_without_egress"] == [SUBNET2]
    assert SUBNET not in findings[0].resources


def test_interface_endpoint_without_private_dns_warns() -> None:
    endpoints = [
        endpoint("ecr.dkr", PrivateDnsEnabled=False) if e.service_name.endswith("ecr.dkr") else e
        for e in ALL_ENDPOINTS
    ]
    tables = [table("rtb", [LOCAL], subnets=(SUBNET,))]
    findings = judge_endpoints(VPC, [subnet()], tables, endpoints, "slurm")
    assert [(f.status, f.priority) for f in problems(findings)] == [(Status.WARN, Priority.P1)]
    assert "vpce-ecrdkr" in findings[0].resources


# -- the rule alone: coverage verdicts, no words ----------------------------------------


def test_rule_finds_endpoints_optional_behind_nat_or_an_inspection_endpoint() -> None:
    tables = [
        table("rtb-nat", [LOCAL, NAT_DEFAULT], subnets=(SUBNET,)),
        table("rtb-fw", [LOCAL, APPLIANCE_DEFAULT], subnets=(SUBNET2,)),
    ]
    coverage = endpoint_coverage(VPC, [subnet(), subnet(SUBNET2)], tables, [], "slurm")
    assert coverage.need is EndpointNeed.OPTIONAL
    assert coverage.subnets_without_egress == ()
    assert coverage.egress_via_appliance == {SUBNET2: "vpce-0firewall"}


def test_rule_lists_the_missing_endpoints_of_an_isolated_subnet() -> None:
    tables = [table("rtb", [LOCAL], subnets=(SUBNET,))]
    coverage = endpoint_coverage(VPC, [subnet()], tables, ALL_ENDPOINTS[1:], "eks")
    assert coverage.need is EndpointNeed.MISSING
    assert (coverage.subnets_without_egress, coverage.missing) == ((SUBNET,), ("s3", "eks"))


def test_rule_keeps_interface_endpoints_without_private_dns() -> None:
    no_dns = endpoint("sts", PrivateDnsEnabled=False)
    endpoints = [e if not e.service_name.endswith(".sts") else no_dns for e in ALL_ENDPOINTS]
    tables = [table("rtb", [LOCAL], subnets=(SUBNET,))]
    coverage = endpoint_coverage(VPC, [subnet()], tables, endpoints, "slurm")
    assert coverage.need is EndpointNeed.PRESENT
    assert coverage.without_private_dns == ("vpce-sts",)


def test_eks_requires_the_eks_endpoint_too() -> None:
    assert required_endpoints("slurm") == REQUIRED_ENDPOINTS
    assert required_endpoints("eks") == (*REQUIRED_ENDPOINTS, "eks")
