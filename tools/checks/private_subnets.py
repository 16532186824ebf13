"""§ B.3: cluster subnets are private — no default route to an internet gateway.

HyperPod nodes have no public IPs, so a subnet whose default route goes to an internet
gateway leaves them without outbound access. Rules are pure functions over the typed
subnets and route tables that return verdicts; one wording function per verdict turns it
into its finding; the registered check only fetches through `ClusterData`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, assert_never

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


# -- verdicts -------------------------------------------------------------------------------


class Egress(Enum):
    """Where a private subnet's default route lets its traffic out."""

    APPLIANCE = "appliance"  # an inspection endpoint that forwards it on
    GATEWAY = "gateway"  # a NAT, transit or other egress-capable target
    NO_WAY_OUT = "no-way-out"  # a default route whose target leads nowhere outside
    NO_DEFAULT_ROUTE = "no-default-route"


@dataclass(frozen=True, slots=True)
class SubnetRouting:
    """The route table that decides one subnet's traffic and where its default route goes."""

    subnet_id: str
    route_table_id: str
    main_table: bool  # the VPC's main table, the subnet having no association of its own
    default_target: str  # "" when there is no default route or it names no target
    default_state: str | None  # None when there is no default route
    map_public_ip_on_launch: bool


@dataclass(frozen=True, slots=True)
class PublicIpOnLaunch:
    """The subnet gives instances public IPs at launch."""

    subnet_id: str


@dataclass(frozen=True, slots=True)
class NoRouteTable:
    """Neither an associated table nor a main table of the subnet's VPC was found."""

    subnet_id: str


@dataclass(frozen=True, slots=True)
class PublicSubnet:
    """The default route goes to an internet gateway."""

    routing: SubnetRouting


@dataclass(frozen=True, slots=True)
class UnreachableIgwDestinations:
    """More specific routes go to an internet gateway, which nodes cannot use."""

    routing: SubnetRouting
    destinations: tuple[str, ...]  # sorted
    gateway: str  # the target of the first such route in table order


@dataclass(frozen=True, slots=True)
class DeadDefaultRoute:
    """The default route is not in service (a blackhole: its target was deleted)."""

    routing: SubnetRouting


@dataclass(frozen=True, slots=True)
class PrivateSubnet:
    """No default route to an internet gateway; `egress` says what the default path is."""

    routing: SubnetRouting
    egress: Egress


SubnetVerdict = (
    PublicIpOnLaunch
    | NoRouteTable
    | PublicSubnet
    | UnreachableIgwDestinations
    | DeadDefaultRoute
    | PrivateSubnet
)


# -- rules ----------------------------------------------------------------------------------


def subnet_routing(subnet: Subnet, table: RouteTable, main_table: bool) -> SubnetRouting:
    """The facts of `table`'s default route as it applies to `subnet`."""
    route = default_route(table)
    return SubnetRouting(
        subnet_id=subnet.subnet_id,
        route_table_id=table.route_table_id,
        main_table=main_table,
        default_target=route.target if route else "",
        default_state=_state(route) if route else None,
        map_public_ip_on_launch=subnet.map_public_ip_on_launch,
    )


def egress_of(route: Route | None) -> Egress:
    """What a (non internet-gateway, active) default route offers for outbound traffic."""
    if route is None:
        return Egress.NO_DEFAULT_ROUTE
    if is_appliance(route):
        return Egress.APPLIANCE
    if is_egress(route):
        return Egress.GATEWAY
    return Egress.NO_WAY_OUT


def unreachable_igw_routes(table: RouteTable) -> list[Route]:
    """Routes other than 0.0.0.0/0 to an internet gateway, in table order."""
    # They do not make the default path public, but nodes without public addresses cannot
    # use them (IPv4 or ::/0): those destinations are lost.
    return [
        r
        for r in table.routes
        if is_internet_gateway(r) and r.destination_cidr_block != DEFAULT_ROUTE
    ]


def routing_verdicts(routing: SubnetRouting, table: RouteTable) -> list[SubnetVerdict]:
    """What the subnet's route table makes of it: public, lost destinations, dead or private."""
    route = default_route(table)
    if route is not None and is_internet_gateway(route):
        return [PublicSubnet(routing)]
    verdicts: list[SubnetVerdict] = []
    lost = unreachable_igw_routes(table)
    if lost:
        destinations = tuple(sorted(r.destination for r in lost))
        verdicts.append(UnreachableIgwDestinations(routing, destinations, lost[0].target))
    if route is not None and not route.active:
        verdicts.append(DeadDefaultRoute(routing))
    else:
        verdicts.append(PrivateSubnet(routing, egress_of(route)))
    return verdicts


def subnet_verdicts(subnet: Subnet, route_tables: Sequence[RouteTable]) -> list[SubnetVerdict]:
    """Every verdict on one subnet, in the order its findings are reported."""
    verdicts: list[SubnetVerdict] = []
    if subnet.map_public_ip_on_launch:
        verdicts.append(PublicIpOnLaunch(subnet.subnet_id))
    table, is_main = route_table_for(subnet, route_tables)
    if table is None:
        verdicts.append(NoRouteTable(subnet.subnet_id))
        return verdicts
    verdicts.extend(routing_verdicts(subnet_routing(subnet, table, is_main), table))
    return verdicts


def _state(route: Route) -> str:
    """The route's State as reported; a route without one is active."""
    return route.state if route.state is not None else "active"


# -- words ----------------------------------------------------------------------------------


def _evidence(routing: SubnetRouting) -> dict[str, Any]:
    return {
        "subnet": routing.subnet_id,
        "route_table": routing.route_table_id,
        "main_route_table": routing.main_table,
        "default_route_target": routing.default_target or None,
        "default_route_state": routing.default_state,
        "map_public_ip_on_launch": routing.map_public_ip_on_launch,
    }


def _which_table(routing: SubnetRouting) -> str:
    how = "main route table" if routing.main_table else "route table"
    return f"{how} {routing.route_table_id}"


def word_public_ip_on_launch(verdict: PublicIpOnLaunch) -> Finding:
    """WARN P2: public IPs at launch have no place in a HyperPod subnet."""
    subnet_id = verdict.subnet_id
    return PRIVATE_FINDINGS.warn(
        Priority.P2,
        f"Subnet {subnet_id} has MapPublicIpOnLaunch=true: HyperPod subnets should be private",
        resources=[subnet_id],
        subnet=subnet_id,
        map_public_ip_on_launch=True,
    )


def word_no_route_table(verdict: NoRouteTable) -> Finding:
    """INFO: without a route table the routing is not judged."""
    subnet_id = verdict.subnet_id
    return PRIVATE_FINDINGS.info(
        f"No route table found for subnet {subnet_id} (no association and no main table in "
        "its VPC): routing not judged",
        resources=[subnet_id],
        subnet=subnet_id,
    )


def word_public_subnet(verdict: PublicSubnet) -> Finding:
    """FAIL P0: nodes without public IPs get no outbound path through an internet gateway."""
    routing = verdict.routing
    subnet_id, table_id, target = routing.subnet_id, routing.route_table_id, routing.default_target
    return PRIVATE_FINDINGS.fail(
        Priority.P0,
        f"Subnet {subnet_id} is a public subnet: its {_which_table(routing)} routes "
        f"{DEFAULT_ROUTE} to {target}; HyperPod nodes have no public IPs and need a private "
        "subnet with a NAT gateway",
        resources=[subnet_id, table_id, target],
        **_evidence(routing),
    )


def word_unreachable_igw_destinations(verdict: UnreachableIgwDestinations) -> Finding:
    """WARN P2: the destinations routed to an internet gateway are out of the nodes' reach."""
    routing = verdict.routing
    return PRIVATE_FINDINGS.warn(
        Priority.P2,
        f"Subnet {routing.subnet_id}: {_which_table(routing)} routes "
        f"{', '.join(verdict.destinations)} to {verdict.gateway}; nodes without public IPs "
        "cannot reach those destinations",
        resources=[routing.subnet_id, routing.route_table_id],
        igw_destinations=list(verdict.destinations),
        **_evidence(routing),
    )


def word_dead_default_route(verdict: DeadDefaultRoute) -> Finding:
    """WARN P1: a blackholed default route leaves the nodes no way out."""
    routing = verdict.routing
    return PRIVATE_FINDINGS.warn(
        Priority.P1,
        f"Subnet {routing.subnet_id}: the default route of {_which_table(routing)} to "
        f"{routing.default_target} is {routing.default_state} (its target was deleted): nodes "
        "have no outbound path",
        resources=[routing.subnet_id, routing.route_table_id],
        **_evidence(routing),
    )


def _egress_words(egress: Egress, target: str) -> str:
    match egress:
        case Egress.APPLIANCE:
            return (
                f"outbound traffic goes through the inspection endpoint {target} (Gateway Load "
                "Balancer or AWS Network Firewall), which forwards it on; its onward route to "
                "a NAT or internet gateway is not judged here"
            )
        case Egress.GATEWAY:
            return f"outbound traffic goes through {target}"
        case Egress.NO_WAY_OUT:
            return (
                f"its default route to {target or 'an unknown target'} gives no way out to "
                "the internet (VPC endpoints needed, see B.4)"
            )
        case Egress.NO_DEFAULT_ROUTE:
            return "no default route (VPC endpoints needed, see B.4)"
        case _:
            assert_never(egress)


def word_private_subnet(verdict: PrivateSubnet) -> Finding:
    """PASS, saying how the private subnet's traffic leaves (or that it cannot)."""
    routing = verdict.routing
    evidence = _evidence(routing)
    if verdict.egress is Egress.APPLIANCE:
        evidence["egress_via_appliance"] = True
    return PRIVATE_FINDINGS.passed(
        f"Subnet {routing.subnet_id} is private ({_which_table(routing)}): "
        f"{_egress_words(verdict.egress, routing.default_target)}",
        resources=[routing.subnet_id],
        **evidence,
    )


def word(verdict: SubnetVerdict) -> Finding:
    """The finding that states `verdict`."""
    match verdict:
        case PublicIpOnLaunch():
            return word_public_ip_on_launch(verdict)
        case NoRouteTable():
            return word_no_route_table(verdict)
        case PublicSubnet():
            return word_public_subnet(verdict)
        case UnreachableIgwDestinations():
            return word_unreachable_igw_destinations(verdict)
        case DeadDefaultRoute():
            return word_dead_default_route(verdict)
        case PrivateSubnet():
            return word_private_subnet(verdict)
        case _:
            assert_never(verdict)


# -- judge and check ------------------------------------------------------------------------


def judge_private_subnets(
    subnets: Sequence[Subnet], route_tables: Sequence[RouteTable]
) -> list[Finding]:
    """A cluster subnet must not send 0.0.0.0/0 to an internet gateway."""
    return [
        word(verdict)
        for subnet in sorted(subnets, key=lambda s: s.subnet_id)
        for verdict in subnet_verdicts(subnet, route_tables)
    ]


def _route_tables(data: ClusterData, vpcs: list[str]) -> list[RouteTable]:
    return [table for vpc_id in vpcs for table in data.route_tables(vpc_id)]


@check(PRIVATE_FINDINGS, title="Private cluster subnets")
def private_subnets(data: ClusterData) -> Iterable[Finding]:
    """No cluster subnet routes 0.0.0.0/0 to an internet gateway (main table if unassociated)."""
    if data.cluster().uses_managed_vpc:
        return [managed_vpc_finding(PRIVATE_FINDINGS, "private-subnet routing")]
    subnets = cluster_subnets(data)
    return judge_private_subnets(subnets, _route_tables(data, vpc_ids(subnets)))
