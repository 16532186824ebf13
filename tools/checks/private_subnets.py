"""§ B.3: cluster subnets are private — no default route to an internet gateway.

HyperPod nodes have no public IPs, so a subnet whose default route goes to an internet
gateway leaves them without outbound access. Rules are pure functions over
the typed subnets and route tables; the registered check only fetches through
`ClusterData`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from tools.checks._network import (
    DEFAULT_ROUTE,
    cluster_subnets,
    default_route,
    is_appliance,
    is_egress,
    is_internet_gateway,
    managed_vpc_finding,
    route_table_for,
    vpc_ids,
)
from tools.findings import Finding, Findings, Priority
from tools.registry import check
from tools.triage.data import ClusterData
from tools.triage.data.network_model import Route, RouteTable, Subnet

CHECK_PRIVATE = "private-subnets"
PRIVATE_FINDINGS = Findings(CHECK_PRIVATE, "B.3")


def judge_private_subnets(
    subnets: Sequence[Subnet], route_tables: Sequence[RouteTable]
) -> list[Finding]:
    """A cluster subnet must not send 0.0.0.0/0 to an internet gateway."""
    findings: list[Finding] = []
    for subnet in sorted(subnets, key=lambda s: s.subnet_id):
        subnet_id = subnet.subnet_id
        table, is_main = route_table_for(subnet, route_tables)
        map_public = subnet.map_public_ip_on_launch
        if map_public:
            findings.append(
                PRIVATE_FINDINGS.warn(
                    Priority.P2,
                    f"Subnet {subnet_id} has MapPublicIpOnLaunch=true: HyperPod subnets should "
                    "be private",
                    resources=[subnet_id],
                    subnet=subnet_id,
                    map_public_ip_on_launch=True,
                )
            )
        if table is None:
            findings.append(
                PRIVATE_FINDINGS.info(
                    f"No route table found for subnet {subnet_id} (no association and no main "
                    "table in its VPC): routing not judged",
                    resources=[subnet_id],
                    subnet=subnet_id,
                )
            )
            continue
        table_id = table.route_table_id
        how = "main route table" if is_main else "route table"
        route = default_route(table)
        target = route.target if route else ""
        evidence: dict[str, Any] = {
            "subnet": subnet_id,
            "route_table": table_id,
            "main_route_table": is_main,
            "default_route_target": target or None,
            "default_route_state": _state(route) if route else None,
            "map_public_ip_on_launch": map_public,
        }
        if route is not None and is_internet_gateway(route):
            findings.append(
                PRIVATE_FINDINGS.fail(
                    Priority.P0,
                    f"Subnet {subnet_id} is a public subnet: its {how} {table_id} routes "
                    f"{DEFAULT_ROUTE} to {target}; HyperPod nodes have no public IPs and need "
                    "a private subnet with a NAT gateway",
                    resources=[subnet_id, table_id, target],
                    **evidence,
                )
            )
            continue
        # More specific routes to an IGW (IPv4 or ::/0) do not make the default path public,
        # but nodes without public addresses cannot use them: those destinations are lost.
        other_igw = [
            r
            for r in table.routes
            if is_internet_gateway(r) and r.destination_cidr_block != DEFAULT_ROUTE
        ]
        if other_igw:
            destinations = sorted(r.destination for r in other_igw)
            findings.append(
                PRIVATE_FINDINGS.warn(
                    Priority.P2,
                    f"Subnet {subnet_id}: {how} {table_id} routes {', '.join(destinations)} "
                    f"to {other_igw[0].target}; nodes without public IPs cannot reach "
                    "those destinations",
                    resources=[subnet_id, table_id],
                    igw_destinations=destinations,
                    **evidence,
                )
            )
        if route is not None and not route.active:
            findings.append(
                PRIVATE_FINDINGS.warn(
                    Priority.P1,
                    f"Subnet {subnet_id}: the default route of {how} {table_id} to {target} is "
                    f"{route.state} (its target was deleted): nodes have no outbound path",
                    resources=[subnet_id, table_id],
                    **evidence,
                )
            )
            continue
        if route is not None and is_appliance(route):
            evidence["egress_via_appliance"] = True
            egress = (
                f"outbound traffic goes through the inspection endpoint {target} (Gateway Load "
                "Balancer or AWS Network Firewall), which forwards it on; its onward route to "
                "a NAT or internet gateway is not judged here"
            )
        elif route is not None and is_egress(route):
            egress = f"outbound traffic goes through {target}"
        elif route is not None:
            egress = (
                f"its default route to {target or 'an unknown target'} gives no way out to "
                "the internet (VPC endpoints needed, see B.4)"
            )
        else:
            egress = "no default route (VPC endpoints needed, see B.4)"
        findings.append(
            PRIVATE_FINDINGS.passed(
                f"Subnet {subnet_id} is private ({how} {table_id}): {egress}",
                resources=[subnet_id],
                **evidence,
            )
        )
    return findings


def _state(route: Route) -> str:
    """The route's State as reported; a route without one is active."""
    return route.state if route.state is not None else "active"


def _route_tables(data: ClusterData, vpcs: list[str]) -> list[RouteTable]:
    return [table for vpc_id in vpcs for table in data.route_tables(vpc_id)]


@check(PRIVATE_FINDINGS, title="Private cluster subnets")
def private_subnets(data: ClusterData) -> Iterable[Finding]:
    """No cluster subnet routes 0.0.0.0/0 to an internet gateway (main table if unassociated)."""
    if data.cluster().uses_managed_vpc:
        return [managed_vpc_finding(PRIVATE_FINDINGS, "private-subnet routing")]
    subnets = cluster_subnets(data)
    return judge_private_subnets(subnets, _route_tables(data, vpc_ids(subnets)))
