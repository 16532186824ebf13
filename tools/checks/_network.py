"""Helpers over the typed EC2 network models shared by the § B checks.

Route-table resolution (a subnet without an explicit association uses its VPC's main
table), default routes and what their targets mean for egress, and the cluster's subnets
and VPCs as the registered checks fetch them through `ClusterData`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tools.findings import Finding, Findings
from tools.triage.data import ClusterData
from tools.triage.data.network_model import Route, RouteTable, Subnet

DEFAULT_ROUTE = "0.0.0.0/0"

# The AWS services a HyperPod node talks to, by VPC endpoint service name: image pulls
# (ecr.*, s3), credentials (sts), SSM sessions (ssm, ssmmessages, ec2messages), the node
# agent (ec2, sagemaker.api) and logs; plus eks on EKS clusters. A subnet without NAT needs
# an endpoint for each (§ B.4); a security group must let the nodes reach each (§ A.1). fsx
# is needed only where FSx is used, which the cluster description does not tell: not judged.
REQUIRED_ENDPOINTS: tuple[str, ...] = (
    "s3",
    "ecr.api",
    "ecr.dkr",
    "sts",
    "ssm",
    "ssmmessages",
    "ec2messages",
    "ec2",
    "sagemaker.api",
    "logs",
)
EKS_ENDPOINTS: tuple[str, ...] = ("eks",)


def required_endpoints(orchestrator: str) -> tuple[str, ...]:
    """The AWS services (endpoint service names) a node needs under this orchestrator."""
    return (*REQUIRED_ENDPOINTS, *(EKS_ENDPOINTS if orchestrator == "eks" else ()))


def _egress_target(route: Route) -> str:
    """The target that can carry traffic of nodes without public IPs onward, or "": a NAT
    gateway or instance, transit gateway, an appliance's network interface, an Outposts
    local gateway, a Cloud WAN core network, or a VPC Route Server next hop (IpAddress).

    Not egress for them: a peering connection (peering is not transitive), an egress-only
    internet gateway (IPv6 only), a carrier gateway (needs carrier IPs, like an internet
    gateway needs public ones) and an Oracle Database@AWS network (not a way out).
    """
    for target in (
        route.nat_gateway_id,
        route.transit_gateway_id,
        route.instance_id,
        route.network_interface_id,
        route.local_gateway_id,
        route.core_network_arn,
        route.ip_address,
    ):
        if target:
            return target
    return ""


def is_internet_gateway(route: Route) -> bool:
    return route.gateway_id.startswith("igw-")


def is_appliance(route: Route) -> bool:
    """A route to a Gateway Load Balancer endpoint (vpce-): an inspection appliance or AWS
    Network Firewall, whose own subnet forwards the traffic on to a NAT or internet gateway.

    The `Route` shape has no VpcEndpointId member; DescribeRouteTables reports the endpoint
    that CreateRoute took as VpcEndpointId in GatewayId. Gateway endpoints (S3, DynamoDB)
    are vpce- too but only ever as prefix-list routes, never 0.0.0.0/0.
    """
    return route.gateway_id.startswith("vpce-")


def is_egress(route: Route) -> bool:
    """A route that can carry node traffic out without public IPs (NAT, TGW, appliance, VGW)."""
    if _egress_target(route) or is_appliance(route):
        return True
    return route.gateway_id.startswith("vgw-")


def route_table_for(
    subnet: Subnet, route_tables: Sequence[RouteTable]
) -> tuple[RouteTable | None, bool]:
    """(the table that routes the subnet, whether it is the VPC's main table).

    A subnet with no explicit association uses the main route table of its VPC.
    """
    for table in route_tables:
        if table.associated_with(subnet.subnet_id):
            return table, False
    for table in route_tables:
        if subnet.vpc_id and table.vpc_id not in (None, subnet.vpc_id):
            continue
        if table.is_main:
            return table, True
    return None, False


def default_route(table: RouteTable) -> Route | None:
    """The IPv4 0.0.0.0/0 route; prefix-list and more specific routes are not defaults."""
    for route in table.routes:
        if route.destination_cidr_block == DEFAULT_ROUTE:
            return route
    return None


def listing(ids: Iterable[str]) -> str:
    return ", ".join(sorted(ids))


# -- what the registered checks fetch -----------------------------------------------------


def managed_vpc_finding(findings: Findings, what: str) -> Finding:
    """The one INFO a § A/B check gives instead of silence on a SageMaker-managed VPC."""
    return findings.info(
        f"Cluster uses the SageMaker-managed VPC (no VpcConfig): {what} not applicable",
        vpc_config=None,
    )


def cluster_subnets(data: ClusterData) -> tuple[Subnet, ...]:
    """The cluster's subnets (cluster-level and OverrideVpcConfig) that exist."""
    found, _missing = data.existing_subnets(data.cluster_subnet_ids())
    return found


def vpc_ids(subnets: Sequence[Subnet]) -> list[str]:
    return sorted({s.vpc_id for s in subnets if s.vpc_id})
