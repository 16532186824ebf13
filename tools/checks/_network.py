"""Helpers over raw EC2 network shapes shared by the § B checks.

Route-table resolution (a subnet without an explicit association uses its VPC's main
table), default routes and their targets, endpoint service names, and the cluster's
subnets and VPCs as the registered checks fetch them through `ClusterData`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from tools.findings import Finding, info
from tools.triage.data import ClusterData

DEFAULT_ROUTE = "0.0.0.0/0"

# Route targets (fields of the EC2 `Route` shape) that can carry traffic of nodes without
# public IPs onward: NAT gateway or instance, transit gateway, an appliance's network
# interface, an Outposts local gateway, a Cloud WAN core network, or a VPC Route Server
# next hop (IpAddress). Not egress for them: VpcPeeringConnectionId (peering is not
# transitive), EgressOnlyInternetGatewayId (IPv6 only), CarrierGatewayId (needs carrier
# IPs, like an internet gateway needs public ones) and OdbNetworkArn (an Oracle Database@AWS
# network, not a way out).
_EGRESS_KEYS = (
    "NatGatewayId",
    "TransitGatewayId",
    "InstanceId",
    "NetworkInterfaceId",
    "LocalGatewayId",
    "CoreNetworkArn",
    "IpAddress",
)


def is_active(item: dict[str, Any]) -> bool:
    """A route or endpoint that is in service (no State means available)."""
    return str(item.get("State", "available")).lower() in ("active", "available")


def route_target(route: dict[str, Any]) -> str:
    """The id a route sends traffic to (igw-, nat-, tgw-, vpce-, eni-, ...)."""
    for key in (
        "GatewayId",
        "NatGatewayId",
        "TransitGatewayId",
        "InstanceId",
        "NetworkInterfaceId",
        "VpcPeeringConnectionId",
        "LocalGatewayId",
        "CarrierGatewayId",
        "EgressOnlyInternetGatewayId",
        "CoreNetworkArn",
        "OdbNetworkArn",
        "IpAddress",
    ):
        if route.get(key):
            return str(route[key])
    return ""


def is_internet_gateway(route: dict[str, Any]) -> bool:
    return str(route.get("GatewayId", "")).startswith("igw-")


def is_appliance(route: dict[str, Any]) -> bool:
    """A route to a Gateway Load Balancer endpoint (vpce-): an inspection appliance or AWS
    Network Firewall, whose own subnet forwards the traffic on to a NAT or internet gateway.

    The `Route` shape has no VpcEndpointId member; DescribeRouteTables reports the endpoint
    that CreateRoute took as VpcEndpointId in GatewayId. Gateway endpoints (S3, DynamoDB)
    are vpce- too but only ever as prefix-list routes, never 0.0.0.0/0.
    """
    return str(route.get("GatewayId", "")).startswith("vpce-")


def is_egress(route: dict[str, Any]) -> bool:
    """A route that can carry node traffic out without public IPs (NAT, TGW, appliance, VGW)."""
    if any(route.get(key) for key in _EGRESS_KEYS) or is_appliance(route):
        return True
    return str(route.get("GatewayId", "")).startswith("vgw-")


def route_table_for(
    subnet: dict[str, Any], route_tables: list[dict[str, Any]]
) -> tuple[dict[str, Any] | None, bool]:
    """(the table that routes the subnet, whether it is the VPC's main table).

    A subnet with no explicit association uses the main route table of its VPC.
    """
    subnet_id = subnet.get("SubnetId")
    for table in route_tables:
        if any(a.get("SubnetId") == subnet_id for a in table.get("Associations", [])):
            return table, False
    vpc_id = subnet.get("VpcId")
    for table in route_tables:
        if vpc_id and table.get("VpcId") not in (None, vpc_id):
            continue
        if any(a.get("Main") for a in table.get("Associations", [])):
            return table, True
    return None, False


def default_route(table: dict[str, Any]) -> dict[str, Any] | None:
    """The IPv4 0.0.0.0/0 route; prefix-list and more specific routes are not defaults."""
    for route in table.get("Routes", []):
        if route.get("DestinationCidrBlock") == DEFAULT_ROUTE:
            found: dict[str, Any] = route
            return found
    return None


# AWS service endpoint names: com.amazonaws.<region>.<service> everywhere (GovCloud too:
# com.amazonaws.us-gov-west-1.ecr.api), and cn.com.amazonaws.<region>.<service> for some
# services in the China regions (cn.com.amazonaws.cn-north-1.ecr.api).
_SERVICE_NAME = re.compile(
    r"^(?:cn\.)?com\.amazonaws\.(?P<region>[a-z]{2}(?:-[a-z]+)+-\d)\.(?P<service>.+)$"
)


def endpoint_service(endpoint: dict[str, Any]) -> str:
    """com.amazonaws.us-west-2.ecr.api -> ecr.api, cn.com.amazonaws.cn-north-1.ecr.api ->
    ecr.api (other name forms -> the name itself)."""
    name = str(endpoint.get("ServiceName", ""))
    match = _SERVICE_NAME.match(name)
    return match.group("service") if match else name


def listing(ids: Iterable[str]) -> str:
    return ", ".join(sorted(ids))


# -- what the registered checks fetch -----------------------------------------------------


def uses_managed_vpc(cluster: dict[str, Any]) -> bool:
    """No VpcConfig on the cluster or any instance group: a Slurm cluster in the
    SageMaker-managed VPC, with no customer subnets or security groups to judge."""
    if (cluster.get("VpcConfig") or {}).get("Subnets"):
        return False
    return not any(
        (group.get("OverrideVpcConfig") or {}).get("Subnets")
        for group in cluster.get("InstanceGroups") or []
    )


def managed_vpc_finding(check_id: str, section_id: str, what: str) -> Finding:
    """The one INFO a § A/B check gives instead of silence on a SageMaker-managed VPC."""
    return info(
        check_id,
        section_id,
        f"Cluster uses the SageMaker-managed VPC (no VpcConfig): {what} not applicable",
        vpc_config=None,
    )


def cluster_subnets(data: ClusterData) -> list[dict[str, Any]]:
    """The cluster's subnets (cluster-level and OverrideVpcConfig) that exist."""
    found, _missing = data.existing_subnets(data.cluster_subnet_ids())
    return found


def vpc_ids(subnets: list[dict[str, Any]]) -> list[str]:
    return sorted({str(s["VpcId"]) for s in subnets if s.get("VpcId")})
