"""§ B rules of the VPC checks over literal DescribeSubnets / RouteTables / ... dicts.

Covers tools/checks/_network.py and the per-subsection modules vpc_membership (B.1),
vpc_dns (B.2), private_subnets (B.3), vpc_endpoints (B.4) and subnet_free_ips (B.6).
"""

from __future__ import annotations

from typing import Any

import pytest

from tools.checks._network import default_route, endpoint_service, route_table_for
from tools.checks.private_subnets import CHECK_PRIVATE, judge_private_subnets
from tools.checks.subnet_free_ips import CHECK_FREE_IPS, MIN_FREE_IPS, judge_free_ips
from tools.checks.vpc_dns import CHECK_DNS, judge_dns
from tools.checks.vpc_endpoints import CHECK_ENDPOINTS, REQUIRED_ENDPOINTS, judge_endpoints
from tools.checks.vpc_membership import (
    CHECK_MEMBERSHIP,
    CHECK_S3,
    judge_s3_gateway,
    judge_vpc_membership,
)
from tools.findings import Finding, Priority, Status

VPC, OTHER_VPC = "vpc-aaa", "vpc-bbb"
SUBNET, SUBNET2 = "subnet-111", "subnet-222"
LOCAL = {"DestinationCidrBlock": "10.0.0.0/16", "GatewayId": "local", "State": "active"}
NAT_DEFAULT = {"DestinationCidrBlock": "0.0.0.0/0", "NatGatewayId": "nat-1", "State": "active"}
IGW_DEFAULT = {"DestinationCidrBlock": "0.0.0.0/0", "GatewayId": "igw-1", "State": "active"}


def subnet(subnet_id: str = SUBNET, vpc: str = VPC, **extra: Any) -> dict[str, Any]:
    return {
        "SubnetId": subnet_id,
        "VpcId": vpc,
        "CidrBlock": "10.0.0.0/24",
        "AvailabilityZone": "us-west-2a",
        "AvailableIpAddressCount": 200,
        "MapPublicIpOnLaunch": False,
        **extra,
    }


def table(
    table_id: str,
    routes: list[dict[str, Any]],
    *,
    subnets: tuple[str, ...] = (),
    main: bool = False,
    vpc: str = VPC,
) -> dict[str, Any]:
    associations: list[dict[str, Any]] = [
        {"Main": False, "RouteTableId": table_id, "SubnetId": s} for s in subnets
    ]
    if main:
        associations.append({"Main": True, "RouteTableId": table_id})
    return {"RouteTableId": table_id, "VpcId": vpc, "Associations": associations, "Routes": routes}


def endpoint(service: str, kind: str = "Interface", **extra: Any) -> dict[str, Any]:
    return {
        "VpcEndpointId": f"vpce-{service.replace('.', '')}",
        "VpcEndpointType": kind,
        "VpcId": VPC,
        "ServiceName": f"com.amazonaws.us-west-2.{service}",
        "State": "available",
        **extra,
    }


def problems(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.status in (Status.FAIL, Status.WARN)]


def assert_well_formed(findings: list[Finding]) -> None:
    for finding in findings:
        assert not finding.message.endswith(".")
        if finding.status in (Status.FAIL, Status.WARN):
            assert finding.priority is not None


# -- helpers ----------------------------------------------------------------------------


def test_explicit_association_wins_over_main_table() -> None:
    tables = [
        table("rtb-main", [LOCAL, IGW_DEFAULT], main=True),
        table("rtb-private", [LOCAL, NAT_DEFAULT], subnets=(SUBNET,)),
    ]
    found, is_main = route_table_for(subnet(), tables)
    assert found is not None
    assert (found["RouteTableId"], is_main) == ("rtb-private", False)


def test_unassociated_subnet_uses_the_main_table_of_its_own_vpc() -> None:
    tables = [
        table("rtb-other-main", [LOCAL], main=True, vpc=OTHER_VPC),
        table("rtb-main", [LOCAL, IGW_DEFAULT], main=True),
    ]
    found, is_main = route_table_for(subnet(), tables)
    assert found is not None
    assert (found["RouteTableId"], is_main) == ("rtb-main", True)


def test_no_table_at_all() -> None:
    assert route_table_for(subnet(), []) == (None, False)


def test_prefix_list_routes_are_not_default_routes() -> None:
    s3_route = {"DestinationPrefixListId": "pl-68a54001", "GatewayId": "vpce-1"}
    assert default_route(table("rtb", [LOCAL, s3_route])) is None


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
    assert endpoint_service({"ServiceName": name}) == service


def _china(service: str, kind: str = "Interface") -> dict[str, Any]:
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


# -- B.1 --------------------------------------------------------------------------------


def sg(group_id: str, vpc: str = VPC) -> dict[str, Any]:
    return {"GroupId": group_id, "VpcId": vpc}


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
def test_s3_gateway_endpoint_missing_warns_p2(endpoints: list[dict[str, Any]]) -> None:
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


# -- B.3 --------------------------------------------------------------------------------


def test_nat_default_route_is_private() -> None:
    tables = [table("rtb-p", [LOCAL, NAT_DEFAULT], subnets=(SUBNET,))]
    findings = judge_private_subnets([subnet()], tables)
    assert [(f.check, f.status, f.section) for f in findings] == [
        (CHECK_PRIVATE, Status.PASS, "B.3")
    ]
    assert "nat-1" in findings[0].message
    assert findings[0].evidence["default_route_target"] == "nat-1"


def test_igw_default_route_is_a_public_subnet() -> None:
    tables = [table("rtb-pub", [LOCAL, IGW_DEFAULT], subnets=(SUBNET,))]
    findings = judge_private_subnets([subnet()], tables)
    assert len(findings) == 1
    finding = findings[0]
    assert (finding.status, finding.priority, finding.section) == (
        Status.FAIL,
        Priority.P0,
        "B.3",
    )
    assert "public subnet" in finding.message
    assert finding.resources == [SUBNET, "rtb-pub", "igw-1"]
    assert_well_formed(findings)


def test_unassociated_subnet_judged_by_the_main_table() -> None:
    tables = [
        table("rtb-main", [LOCAL, IGW_DEFAULT], main=True),
        table("rtb-p", [LOCAL, NAT_DEFAULT], subnets=(SUBNET2,)),
    ]
    findings = judge_private_subnets([subnet(), subnet(SUBNET2)], tables)
    by_subnet = {f.evidence["subnet"]: f for f in findings}
    assert by_subnet[SUBNET].status == Status.FAIL
    assert by_subnet[SUBNET].evidence["main_route_table"] is True
    assert "main route table rtb-main" in by_subnet[SUBNET].message
    assert by_subnet[SUBNET2].status == Status.PASS


def test_igw_and_nat_routes_for_different_destinations() -> None:
    specific_igw = {"DestinationCidrBlock": "52.0.0.0/8", "GatewayId": "igw-1", "State": "active"}
    tables = [table("rtb", [LOCAL, NAT_DEFAULT, specific_igw], subnets=(SUBNET,))]
    findings = judge_private_subnets([subnet()], tables)
    assert not [f for f in findings if f.status == Status.FAIL]
    warnings = [f for f in findings if f.status == Status.WARN]
    assert len(warnings) == 1
    assert warnings[0].priority == Priority.P2
    assert warnings[0].evidence["igw_destinations"] == ["52.0.0.0/8"]
    assert any(f.status == Status.PASS for f in findings)


def test_prefix_list_route_to_a_gateway_endpoint_is_fine() -> None:
    s3_route = {"DestinationPrefixListId": "pl-68a54001", "GatewayId": "vpce-1", "State": "active"}
    tables = [table("rtb", [LOCAL, s3_route, NAT_DEFAULT], subnets=(SUBNET,))]
    assert [f.status for f in judge_private_subnets([subnet()], tables)] == [Status.PASS]


@pytest.mark.parametrize(
    "route",
    [
        {"DestinationCidrBlock": "0.0.0.0/0", "TransitGatewayId": "tgw-1"},
        {"DestinationCidrBlock": "0.0.0.0/0", "InstanceId": "i-1", "NetworkInterfaceId": "eni-1"},
        {"DestinationCidrBlock": "0.0.0.0/0", "NetworkInterfaceId": "eni-1"},
    ],
)
def test_other_egress_targets_are_private(route: dict[str, Any]) -> None:
    tables = [table("rtb", [LOCAL, route], subnets=(SUBNET,))]
    findings = judge_private_subnets([subnet()], tables)
    assert [f.status for f in findings] == [Status.PASS]
    assert "outbound traffic goes through" in findings[0].message


def test_no_default_route_is_private_but_points_to_b4() -> None:
    findings = judge_private_subnets([subnet()], [table("rtb", [LOCAL], subnets=(SUBNET,))])
    assert [f.status for f in findings] == [Status.PASS]
    assert "B.4" in findings[0].message


APPLIANCE_DEFAULT = {
    "DestinationCidrBlock": "0.0.0.0/0",
    "GatewayId": "vpce-0firewall",
    "Origin": "CreateRoute",
    "State": "active",
}


def test_default_route_to_an_inspection_endpoint_is_egress_not_isolation() -> None:
    tables = [table("rtb", [LOCAL, APPLIANCE_DEFAULT], subnets=(SUBNET,))]
    findings = judge_private_subnets([subnet()], tables)
    assert [f.status for f in findings] == [Status.PASS]
    finding = findings[0]
    assert "inspection endpoint vpce-0firewall" in finding.message
    assert "no default route" not in finding.message
    assert "B.4" not in finding.message
    assert finding.evidence["egress_via_appliance"] is True
    assert finding.evidence["default_route_target"] == "vpce-0firewall"
    assert_well_formed(findings)


@pytest.mark.parametrize(
    "route",
    [
        {"DestinationCidrBlock": "0.0.0.0/0", "CoreNetworkArn": "arn:aws:networkmanager::1:core"},
        {"DestinationCidrBlock": "0.0.0.0/0", "LocalGatewayId": "lgw-1"},
        {"DestinationCidrBlock": "0.0.0.0/0", "IpAddress": "10.0.9.9"},
        {"DestinationCidrBlock": "0.0.0.0/0", "GatewayId": "vgw-1"},
    ],
)
def test_other_egress_capable_route_fields(route: dict[str, Any]) -> None:
    tables = [table("rtb", [LOCAL, route], subnets=(SUBNET,))]
    findings = judge_private_subnets([subnet()], tables)
    assert [f.status for f in findings] == [Status.PASS]
    assert "outbound traffic goes through" in findings[0].message
    assert [f.status for f in judge_endpoints(VPC, [subnet()], tables, [], "eks")] == [Status.PASS]


@pytest.mark.parametrize(
    "route",
    [
        {"DestinationCidrBlock": "0.0.0.0/0", "VpcPeeringConnectionId": "pcx-1"},
        {"DestinationCidrBlock": "0.0.0.0/0", "CarrierGatewayId": "cagw-1"},
        {"DestinationCidrBlock": "0.0.0.0/0", "OdbNetworkArn": "arn:aws:odb:us-west-2:1:x"},
    ],
)
def test_default_routes_that_are_no_way_out(route: dict[str, Any]) -> None:
    tables = [table("rtb", [LOCAL, route], subnets=(SUBNET,))]
    findings = judge_private_subnets([subnet()], tables)
    assert [f.status for f in findings] == [Status.PASS]
    assert "gives no way out" in findings[0].message
    assert "B.4" in findings[0].message
    endpoints = judge_endpoints(VPC, [subnet()], tables, [], "slurm")
    assert [(f.status, f.priority) for f in endpoints] == [(Status.FAIL, Priority.P0)]


def test_blackhole_default_route_warns() -> None:
    dead = {**NAT_DEFAULT, "State": "blackhole"}
    findings = judge_private_subnets([subnet()], [table("rtb", [LOCAL, dead], subnets=(SUBNET,))])
    assert [(f.status, f.priority) for f in findings] == [(Status.WARN, Priority.P1)]
    assert "blackhole" in findings[0].message


def test_map_public_ip_on_launch_warns() -> None:
    tables = [table("rtb", [LOCAL, NAT_DEFAULT], subnets=(SUBNET,))]
    findings = judge_private_subnets([subnet(MapPublicIpOnLaunch=True)], tables)
    assert [(f.status, f.priority) for f in problems(findings)] == [(Status.WARN, Priority.P2)]
    assert_well_formed(findings)


def test_missing_keys_and_no_tables_are_info() -> None:
    findings = judge_private_subnets([{"SubnetId": SUBNET}], [])
    assert [f.status for f in findings] == [Status.INFO]


def test_table_without_routes_key() -> None:
    bare = {"RouteTableId": "rtb", "Associations": [{"SubnetId": SUBNET}]}
    assert [f.status for f in judge_private_subnets([subnet()], [bare])] == [Status.PASS]


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
        e if e["ServiceName"][-3:] != "sts" else {**e, "State": "pending"} for e in ALL_ENDPOINTS
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
        {**e, "PrivateDnsEnabled": False} if e["ServiceName"].endswith("ecr.dkr") else e
        for e in ALL_ENDPOINTS
    ]
    tables = [table("rtb", [LOCAL], subnets=(SUBNET,))]
    findings = judge_endpoints(VPC, [subnet()], tables, endpoints, "slurm")
    assert [(f.status, f.priority) for f in problems(findings)] == [(Status.WARN, Priority.P1)]
    assert "vpce-ecrdkr" in findings[0].resources


# -- B.6 --------------------------------------------------------------------------------


def test_free_ips_threshold() -> None:
    findings = judge_free_ips(
        [
            subnet(AvailableIpAddressCount=MIN_FREE_IPS),
            subnet(SUBNET2, AvailableIpAddressCount=MIN_FREE_IPS - 1),
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
    assert low.evidence["available_ips"] == MIN_FREE_IPS - 1
    assert str(MIN_FREE_IPS - 1) in low.message
    assert_well_formed(findings)


def test_free_ips_zero_and_missing_count() -> None:
    findings = judge_free_ips([subnet(AvailableIpAddressCount=0), {"SubnetId": SUBNET2}])
    assert [f.status for f in findings] == [Status.WARN, Status.INFO]


# -- clusters in the SageMaker-managed VPC (no VpcConfig) -------------------------------


def test_uses_managed_vpc_only_without_any_vpc_config() -> None:
    from tools.checks._network import uses_managed_vpc

    assert uses_managed_vpc({"InstanceGroups": [{"InstanceGroupName": "gpu"}]})
    assert uses_managed_vpc({})
    assert not uses_managed_vpc({"VpcConfig": {"SecurityGroupIds": ["sg-1"], "Subnets": [SUBNET]}})
    override = {"OverrideVpcConfig": {"SecurityGroupIds": ["sg-1"], "Subnets": [SUBNET]}}
    assert not uses_managed_vpc({"InstanceGroups": [override]})


def test_a_and_b_checks_say_not_applicable_on_the_managed_vpc() -> None:
    from evals.clusters import base
    from tools.aws.session import AwsAccess
    from tools.checks.private_subnets import private_subnets
    from tools.checks.security_groups import efa_security_groups
    from tools.checks.vpc_endpoints import vpc_endpoints
    from tools.checks.vpc_membership import s3_gateway_endpoint, vpc_membership
    from tools.triage.data import ClusterData
    from tools.triage.target import TriageTarget

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
    assert {f.status for f in judged} == {Status.PASS}
    assert not any("SageMaker-managed" in f.message for f in judged)
