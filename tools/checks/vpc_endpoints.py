"""§ B.4: subnets without NAT or other egress need the HyperPod VPC endpoints.

Rules are pure functions over the typed subnets, route tables and VPC endpoints:
`endpoint_coverage` decides an `EndpointCoverage` per VPC and `word_coverage` alone writes
its findings. The registered check only fetches through `ClusterData`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum

from tools.checks._network import (
    cluster_subnets,
    default_route,
    is_appliance,
    is_egress,
    is_internet_gateway,
    listing,
    managed_vpc_finding,
    required_endpoints,
    route_table_for,
    vpc_ids,
)
from tools.findings import Finding, Findings, Priority
from tools.registry import check
from tools.triage.data import ClusterData
from tools.triage.data.network_model import RouteTable, Subnet, VpcEndpoint

CHECK_ENDPOINTS = "vpc-endpoints"
ENDPOINTS_FINDINGS = Findings(CHECK_ENDPOINTS, "B.4")


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


class EndpointNeed(Enum):
    """Whether the VPC's subnets need the HyperPod endpoints, and whether they are there."""

    OPTIONAL = "optional"  # every subnet has NAT or other egress (or is public: B.3's)
    MISSING = "missing"  # a subnet without egress, and required endpoints are absent
    PRESENT = "present"  # a subnet without egress, and every required endpoint is there


@dataclass(frozen=True, slots=True)
class EndpointCoverage:
    """What the rule found for one VPC. `missing` and `without_private_dns` are facts
    whatever the need; they matter only where `need` says endpoints are needed."""

    vpc_id: str
    need: EndpointNeed
    subnets_without_egress: tuple[str, ...]  # sorted; public subnets are left to B.3
    endpoint_services: tuple[str, ...]  # services of the active endpoints, sorted
    required: tuple[str, ...]
    # Subnet id -> the inspection endpoint its default route goes to, by subnet id.
    egress_via_appliance: Mapping[str, str]
    missing: tuple[str, ...]  # required services without an active endpoint, in `required` order
    without_private_dns: tuple[str, ...]  # required interface endpoints, private DNS off


def endpoint_coverage(
    vpc_id: str,
    subnets: Sequence[Subnet],
    route_tables: Sequence[RouteTable],
    endpoints: Sequence[VpcEndpoint],
    orchestrator: str,
) -> EndpointCoverage:
    """Decide whether `vpc_id`'s subnets need the HyperPod endpoints and which it lacks."""
    isolated = tuple(
        sorted(
            s.subnet_id
            for s in subnets
            if not has_egress(s, route_tables) and not _public(s, route_tables)
        )
    )
    # The last active endpoint of a service is the one judged.
    available = {e.service: e for e in endpoints if e.active}
    needed = required_endpoints(orchestrator)
    appliances = {
        s.subnet_id: _appliance(s, route_tables) for s in subnets if _appliance(s, route_tables)
    }
    missing = tuple(name for name in needed if name not in available)
    if not isolated:
        need = EndpointNeed.OPTIONAL
    else:
        need = EndpointNeed.MISSING if missing else EndpointNeed.PRESENT
    return EndpointCoverage(
        vpc_id=vpc_id,
        need=need,
        subnets_without_egress=isolated,
        endpoint_services=tuple(sorted(available)),
        required=needed,
        egress_via_appliance=dict(sorted(appliances.items())),
        missing=missing,
        without_private_dns=tuple(
            sorted(
                e.vpc_endpoint_id
                for name, e in available.items()
                if name in needed
                and e.endpoint_type == "Interface"
                and e.private_dns_enabled is False
            )
        ),
    )


# -- words ------------------------------------------------------------------------------


def _evidence(coverage: EndpointCoverage) -> dict[str, object]:
    evidence: dict[str, object] = {
        "vpc": coverage.vpc_id,
        "subnets_without_egress": list(coverage.subnets_without_egress),
        "endpoint_services": list(coverage.endpoint_services),
        "required": list(coverage.required),
    }
    if coverage.egress_via_appliance:
        evidence["egress_via_appliance"] = dict(coverage.egress_via_appliance)
    return evidence


def _optional_finding(coverage: EndpointCoverage) -> Finding:
    vpc_id, appliances = coverage.vpc_id, coverage.egress_via_appliance
    via = ""
    if appliances:
        via = (
            f" (subnet(s) {listing(appliances)} send it through inspection endpoint(s) "
            f"{listing(set(appliances.values()))}, whose onward route is not judged)"
        )
    return ENDPOINTS_FINDINGS.passed(
        f"Cluster subnets in {vpc_id} have a NAT or other egress route{via}: VPC "
        "endpoints are optional",
        resources=[vpc_id],
        **_evidence(coverage),
    )


def _missing_finding(coverage: EndpointCoverage) -> Finding:
    vpc_id, isolated = coverage.vpc_id, coverage.subnets_without_egress
    return ENDPOINTS_FINDINGS.fail(
        Priority.P0,
        f"Subnet(s) {listing(isolated)} have no NAT or other egress route and VPC "
        f"{vpc_id} lacks the endpoints {', '.join(coverage.missing)}",
        resources=[vpc_id, *isolated],
        missing=list(coverage.missing),
        **_evidence(coverage),
    )


def _present_findings(coverage: EndpointCoverage) -> list[Finding]:
    vpc_id, isolated = coverage.vpc_id, coverage.subnets_without_egress
    findings: list[Finding] = []
    if coverage.without_private_dns:
        findings.append(
            ENDPOINTS_FINDINGS.warn(
                Priority.P1,
                f"Interface endpoint(s) {listing(coverage.without_private_dns)} in {vpc_id} "
                "have private DNS disabled: without NAT the default service hostnames do not "
                "reach them",
                resources=[vpc_id, *coverage.without_private_dns],
                **_evidence(coverage),
            )
        )
    findings.append(
        ENDPOINTS_FINDINGS.passed(
            f"Subnet(s) {listing(isolated)} have no egress route, and VPC {vpc_id} has every "
            f"required endpoint ({', '.join(coverage.required)})",
            resources=[vpc_id, *isolated],
            **_evidence(coverage),
        )
    )
    return findings


def word_coverage(coverage: EndpointCoverage) -> list[Finding]:
    """The findings of one VPC's endpoint coverage: PASS when optional, FAIL P0 when
    missing, else an optional WARN P1 for private DNS and a PASS."""
    if coverage.need is EndpointNeed.OPTIONAL:
        return [_optional_finding(coverage)]
    if coverage.need is EndpointNeed.MISSING:
        return [_missing_finding(coverage)]
    return _present_findings(coverage)


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
    return word_coverage(endpoint_coverage(vpc_id, subnets, route_tables, endpoints, orchestrator))


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
