"""§ B.3 over literal DescribeSubnets / DescribeRouteTables dicts, parsed into the models.

Covers route-table resolution in tools/checks/_network.py and private_subnets (B.3): which
table a subnet uses, its default route and what that route's target means for egress.
"""

from __future__ import annotations

from typing import Any

import pytest

from tools.checks._network import default_route, route_table_for
from tools.checks.private_subnets import CHECK_PRIVATE, judge_private_subnets
from tools.checks.vpc_endpoints import judge_endpoints
from tools.findings import Priority, Status
from tools.triage.data.network_model import RouteTable, Subnet

from ._vpc import (
    APPLIANCE_DEFAULT,
    IGW_DEFAULT,
    LOCAL,
    NAT_DEFAULT,
    OTHER_VPC,
    SUBNET,
    SUBNET2,
    VPC,
    assert_well_formed,
    problems,
    subnet,
    table,
)

# -- route tables (_network) ------------------------------------------------------------


def test_explicit_association_wins_over_main_table() -> None:
    tables = [
        table("rtb-main", [LOCAL, IGW_DEFAULT], main=True),
        table("rtb-private", [LOCAL, NAT_DEFAULT], subnets=(SUBNET,)),
    ]
    found, is_main = route_table_for(subnet(), tables)
    assert found is not None
    assert (found.route_table_id, is_main) == ("rtb-private", False)


def test_unassociated_subnet_uses_the_main_table_of_its_own_vpc() -> None:
    tables = [
        table("rtb-other-main", [LOCAL], main=True, vpc=OTHER_VPC),
        table("rtb-main", [LOCAL, IGW_DEFAULT], main=True),
    ]
    found, is_main = route_table_for(subnet(), tables)
    assert found is not None
    assert (found.route_table_id, is_main) == ("rtb-main", True)


def test_no_table_at_all() -> None:
    assert route_table_for(subnet(), []) == (None, False)


def test_prefix_list_routes_are_not_default_routes() -> None:
    s3_route = {"DestinationPrefixListId": "pl-68a54001", "GatewayId": "vpce-1"}
    assert default_route(table("rtb", [LOCAL, s3_route])) is None


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
    findings = judge_private_subnets([Subnet.from_api({"SubnetId": SUBNET})], [])
    assert [f.status for f in findings] == [Status.INFO]


def test_table_without_routes_key() -> None:
    bare = RouteTable.from_api({"RouteTableId": "rtb", "Associations": [{"SubnetId": SUBNET}]})
    assert [f.status for f in judge_private_subnets([subnet()], [bare])] == [Status.PASS]
