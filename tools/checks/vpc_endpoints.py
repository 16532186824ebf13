"""§ B.4: subnets without NAT or other egress need the HyperPod VPC endpoints.

Rules are pure functions over the typed subnets, route tables and VPC endpoints; the
registered check only fetches through `ClusterData`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from tools.checks._network import (
    cluster_subnets,
    default_route,
    is_appliance,
    is_egress,
    is_internet_gateway,
    listing,
    managed_vpc_finding,
    route_table_for,
    vpc_ids,
)
from tools.findings import Finding, Findings, Priority
from tools.registry import check
from tools.triage.data import ClusterData
from tools.triage.data.network_model import RouteTable, Subnet, VpcEndpoint

CHECK_ENDPOINTS = "vpc-endpoints"
ENDPOINTS_FINDINGS = Findings(CHECK_ENDPOINTS, "B.4")

# Interface (or, for s3, gateway) endpoints a HyperPod node needs when its subnet has no
# route to the internet: image pulls (ecr.*, s3), credentials (sts), SSM sessions (ssm,
# ssmmessages, ec2messages), the node agent (ec2, sagemaker.api) and logs. fsx is needed
# only where FSx is used, which the cluster description does not tell: not judged.
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


def has_egress(subnet: Subnet, route_tables: Sequence[RouteTable]) -> bool:
    table, _ = route_table_for(subnet, route_tables)
    route = default_route(table) if table else None
    return route is not None and route.active and is_egress(route)


def _public(subnet: Subnet, route_tables: Sequence[RouteTable]) -> bool:
    table, _ = route_table_for(subnet, route_tables)
    route = default_route(table) if table else None
    return route is not None and is_internet_gateway(route)


def _appliance(subnet: Subnet, route_tables: Sequence[RouteTable]) -> str:
    """The Gateway Load Balancer / Network Firewall endpoint of the default route, or ""."""
    table, _ = route_table_for(subnet, route_tables)
    route = default_route(table) if table else None
    if route is not None and route.active and is_appliance(route):
        return route.gateway_id
    return ""


def judge_endpoints(
    vpc_id: str,
    subnets: Sequence[Subnet],
    route_tables: Sequence[RouteTable],
    endpoints: Sequence[VpcEndpoint],
    orchestrator: str,
) -> list[Finding]:
    """Subnets without NAT/other egress need the HyperPod service endpoints in their VPC.

    Subnets whose default route goes to an internet gateway are judged by B.3 alone (the
    fix there is a NAT route, which makes the endpoints optional).
    """
    isolated = sorted(
        s.subnet_id
        for s in subnets
        if not has_egress(s, route_tables) and not _public(s, route_tables)
    )
    available = {e.service: e for e in endpoints if e.active}
    needed = [*REQUIRED_ENDPOINTS, *(EKS_ENDPOINTS if orchestrator == "eks" else ())]
    evidence: dict[str, Any] = {
        "vpc": vpc_id,
        "subnets_without_egress": isolated,
        "endpoint_services": sorted(available),
        "required": needed,
    }
    appliances = {
        s.subnet_id: _appliance(s, route_tables) for s in subnets if _appliance(s, route_tables)
    }
    if appliances:
        evidence["egress_via_appliance"] = dict(sorted(appliances.items()))
    if not isolated:
        via = ""
        if appliances:
            via = (
                f" (subnet(s) {listing(appliances)} send it through inspection endpoint(s) "
                f"{listing(set(appliances.values()))}, whose onward route is not judged)"
            )
        return [
            ENDPOINTS_FINDINGS.passed(
                f"Cluster subnets in {vpc_id} have a NAT or other egress route{via}: VPC "
                "endpoints are optional",
                resources=[vpc_id],
                **evidence,
            )
        ]
    missing = [name for name in needed if name not in available]
    if missing:
        return [
            ENDPOINTS_FINDINGS.fail(
                Priority.P0,
                f"Subnet(s) {listing(isolated)} have no NAT or other egress route and VPC "
                f"{vpc_id} lacks the endpoints {', '.join(missing)}",
                resources=[vpc_id, *isolated],
                missing=missing,
                **evidence,
            )
        ]
    findings: list[Finding] = []
    no_private_dns = sorted(
        e.vpc_endpoint_id
        for name, e in available.items()
        if name in needed and e.endpoint_type == "Interface" and e.private_dns_enabled is False
    )
    if no_private_dns:
        findings.append(
            ENDPOINTS_FINDINGS.warn(
                Priority.P1,
                f"Interface endpoint(s) {listing(no_private_dns)} in {vpc_id} have private "
                "DNS disabled: without NAT the default service hostnames do not reach them",
                resources=[vpc_id, *no_private_dns],
                **evidence,
            )
        )
    findings.append(
        ENDPOINTS_FINDINGS.passed(
            f"Subnet(s) {listing(isolated)} have no egress route, and VPC {vpc_id} has every "
            f"required endpoint ({', '.join(needed)})",
            resources=[vpc_id, *isolated],
            **evidence,
        )
    )
    return findings


@check(ENDPOINTS_FINDINGS, title="VPC endpoints without NAT")
def vpc_endpoints(data: ClusterData) -> Iterable[Finding]:
    """Subnets without NAT egress need the HyperPod interface endpoints in their VPC."""
    if data.cluster().uses_managed_vpc:
        return [managed_vpc_finding(ENDPOINTS_FINDINGS, "VPC endpoints")]
    subnets = cluster_subnets(data)
    findings: list[Finding] = []
    for vpc_id in vpc_ids(subnets):
        in_vpc = [s for s in subnets if s.vpc_id == vpc_id]
        findings.extend(
            judge_endpoints(
                vpc_id,
                in_vpc,
                data.route_tables(vpc_id),
                data.vpc_endpoints(vpc_id),
                data.orchestrator,
            )
        )
    return findings
