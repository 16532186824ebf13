"""§ B.3 rules without their words: what each subnet's routing is judged to be."""

from __future__ import annotations

import pytest

from tools.checks._network import default_route
from tools.checks.private_subnets import (
    DeadDefaultRoute,
    Egress,
    NoRouteTable,
    PrivateSubnet,
    PublicIpOnLaunch,
    PublicSubnet,
    SubnetRouting,
    UnreachableIgwDestinations,
    egress_of,
    subnet_verdicts,
)

from ._vpc import APPLIANCE_DEFAULT, IGW_DEFAULT, LOCAL, NAT_DEFAULT, SUBNET, subnet, table

IGW_IPV6 = {"DestinationIpv6CidrBlock": "::/0", "GatewayId": "igw-1", "State": "active"}


def routing(target: str, state: str | None = "active", *, main: bool = False) -> SubnetRouting:
    return SubnetRouting(SUBNET, "rtb", main, target, state, map_public_ip_on_launch=False)


def test_default_route_to_an_internet_gateway_is_a_public_subnet() -> None:
    tables = [table("rtb", [LOCAL, IGW_DEFAULT, IGW_IPV6], main=True)]
    assert subnet_verdicts(subnet(), tables) == [PublicSubnet(routing("igw-1", main=True))]


def test_public_ips_at_launch_come_first_and_no_table_stops_the_judging() -> None:
    verdicts = subnet_verdicts(subnet(MapPublicIpOnLaunch=True), [])
    assert verdicts == [PublicIpOnLaunch(SUBNET), NoRouteTable(SUBNET)]


def test_lost_igw_destinations_and_a_dead_default_route_are_both_stated() -> None:
    dead_nat = {**NAT_DEFAULT, "State": "blackhole"}
    tables = [table("rtb", [LOCAL, IGW_IPV6, dead_nat], subnets=(SUBNET,))]
    dead = routing("nat-1", "blackhole")
    assert subnet_verdicts(subnet(), tables) == [
        UnreachableIgwDestinations(dead, ("::/0",), "igw-1"),
        DeadDefaultRoute(dead),
    ]


def test_nat_default_route_is_private_through_a_gateway() -> None:
    tables = [table("rtb", [LOCAL, NAT_DEFAULT], subnets=(SUBNET,))]
    assert subnet_verdicts(subnet(), tables) == [PrivateSubnet(routing("nat-1"), Egress.GATEWAY)]


@pytest.mark.parametrize(
    ("routes", "egress"),
    [
        ([LOCAL], Egress.NO_DEFAULT_ROUTE),
        ([LOCAL, NAT_DEFAULT], Egress.GATEWAY),
        ([LOCAL, APPLIANCE_DEFAULT], Egress.APPLIANCE),
        (
            [LOCAL, {"DestinationCidrBlock": "0.0.0.0/0", "VpcPeeringConnectionId": "pcx-1"}],
            Egress.NO_WAY_OUT,
        ),
    ],
)
def test_egress_of_the_default_route(routes: list[dict[str, str]], egress: Egress) -> None:
    assert egress_of(default_route(table("rtb", routes))) is egress
