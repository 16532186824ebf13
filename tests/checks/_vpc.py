"""Shared pieces of the § B VPC tests: literal subnets, route tables and endpoints, each
written in botocore's shape and parsed into the model the checks take."""

from __future__ import annotations

from typing import Any

from tools.findings import Finding, Status
from tools.triage.data.network_model import RouteTable, Subnet, VpcEndpoint

VPC, OTHER_VPC = "vpc-aaa", "vpc-bbb"
SUBNET, SUBNET2 = "subnet-111", "subnet-222"
LOCAL = {"DestinationCidrBlock": "10.0.0.0/16", "GatewayId": "local", "State": "active"}
NAT_DEFAULT = {"DestinationCidrBlock": "0.0.0.0/0", "NatGatewayId": "nat-1", "State": "active"}
IGW_DEFAULT = {"DestinationCidrBlock": "0.0.0.0/0", "GatewayId": "igw-1", "State": "active"}


def subnet(subnet_id: str = SUBNET, vpc: str = VPC, **extra: Any) -> Subnet:
    return Subnet.from_api(
        {
            "SubnetId": subnet_id,
            "VpcId": vpc,
            "CidrBlock": "10.0.0.0/24",
            "AvailabilityZone": "us-west-2a",
            "AvailableIpAddressCount": 200,
            "MapPublicIpOnLaunch": False,
            **extra,
        }
    )


def table(
    table_id: str,
    routes: list[dict[str, Any]],
    *,
    subnets: tuple[str, ...] = (),
    main: bool = False,
    vpc: str = VPC,
) -> RouteTable:
    associations: list[dict[str, Any]] = [
        {"Main": False, "RouteTableId": table_id, "SubnetId": s} for s in subnets
    ]
    if main:
        associations.append({"Main": True, "RouteTableId": table_id})
    return RouteTable.from_api(
        {"RouteTableId": table_id, "VpcId": vpc, "Associations": associations, "Routes": routes}
    )


def endpoint(service: str, kind: str = "Interface", **extra: Any) -> VpcEndpoint:
    return VpcEndpoint.from_api(
        {
            "VpcEndpointId": f"vpce-{service.replace('.', '')}",
            "VpcEndpointType": kind,
            "VpcId": VPC,
            "ServiceName": f"com.amazonaws.us-west-2.{service}",
            "State": "available",
            **extra,
        }
    )


def problems(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.status in (Status.FAIL, Status.WARN)]


def assert_well_formed(findings: list[Finding]) -> None:
    for finding in findings:
        assert not finding.message.endswith(".")
        if finding.status in (Status.FAIL, Status.WARN):
            assert finding.priority is not None


APPLIANCE_DEFAULT = {
    "DestinationCidrBlock": "0.0.0.0/0",
    "GatewayId": "vpce-0firewall",
    "Origin": "CreateRoute",
    "State": "active",
}
