"""The rules of § A.1: can a security-group set's outbound rules carry HTTPS to each AWS
service by the way its subnet routes that service? Pure functions over the typed EC2
models; `security_group_egress.py` words the answers and fetches the data.

Security-group egress filters every connection an instance starts against its final
destination, whatever the route afterwards ("If your security group has no outbound rules,
no outbound traffic originating from your instance is allowed", Amazon VPC User Guide,
*Security group rules*): traffic the route table hands to a NAT gateway is judged against
the public address of SSM, STS, ECR, ..., so it needs a rule to public addresses. Only the
Route 53 Resolver, the instance metadata service and the Amazon Time Sync Service are
exempt.

How a subnet routes one service, and which outbound rule reaches it:

- an interface endpoint with private DNS on: a rule to a CIDR overlapping the VPC's own
  CIDR blocks (the endpoint's addresses are in them), to one of the endpoint's groups, or
  the self rule when the endpoint carries a group of the set;
- the S3 gateway endpoint: the S3 prefix list (AWS-managed, named
  `com.amazonaws.<region>.s3`, or the list the route table sends to the endpoint), or a
  public CIDR;
- the default route (NAT gateway, transit gateway, appliance): a public CIDR; an AWS
  prefix list of that service; or, where a route leads beyond the VPC over a transit or
  virtual private gateway, peering or an appliance, a private CIDR outside the VPC that
  overlaps that route's destination (centralised interface endpoints in a shared-services
  VPC and corporate proxies answer on such addresses).

What the rules cannot see is said as such: a customer-managed prefix list (its entries
are not read) or IPv6 egress beside an IPv6 default route make a service MAYBE, not YES;
rules that could lead to a proxy (anything but HTTPS alone, to a private address, another
group or a public CIDR) turn a blocked verdict into "unless a proxy".
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum

from tools.checks._network import (
    default_route,
    is_egress,
    is_internet_gateway,
    route_table_for,
)
from tools.triage.data.network_model import (
    IpPermission,
    PrefixList,
    Route,
    RouteTable,
    SecurityGroup,
    Subnet,
    VpcEndpoint,
)

HTTPS = 443
ANYWHERE_V6 = "::/0"
_PRIVATE_V4 = tuple(
    ipaddress.IPv4Network(block)
    for block in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10")
)


def _network(cidr: str | None) -> ipaddress.IPv4Network | None:
    try:
        network = ipaddress.ip_network(cidr or "", strict=False)
    except ValueError:
        return None
    return network if isinstance(network, ipaddress.IPv4Network) else None


def _wholly_private(network: ipaddress.IPv4Network) -> bool:
    return any(network.subnet_of(block) for block in _PRIVATE_V4)


def carries_https(perm: IpPermission) -> bool:
    """Protocol -1, or TCP over a port range that includes 443."""
    if perm.all_protocols:
        return True
    if perm.protocol not in ("tcp", "6") or perm.from_port is None or perm.to_port is None:
        return False
    return perm.from_port <= HTTPS <= perm.to_port


def _https_only(perm: IpPermission) -> bool:
    return perm.protocol in ("tcp", "6") and perm.from_port == perm.to_port == HTTPS


def _ports(perm: IpPermission) -> str:
    if perm.all_protocols:
        return "all traffic"
    if perm.from_port is None or perm.from_port == perm.to_port:
        return f"{perm.protocol} {perm.from_port if perm.from_port is not None else ''}".strip()
    return f"{perm.protocol} {perm.from_port}-{perm.to_port}"


@dataclass(frozen=True, slots=True)
class OutboundRules:
    """The union of one security-group set's outbound rules, read as ways out."""

    group_ids: frozenset[str]  # the set itself
    https_networks: tuple[ipaddress.IPv4Network, ...]  # IPv4 destinations that carry HTTPS
    https_v6: bool  # an IPv6 destination that carries HTTPS
    https_prefix_lists: frozenset[str]
    https_groups: frozenset[str]  # groups outside the set that HTTPS may reach
    self_reaches: bool  # a rule to a group of the set carries HTTPS
    maybe_proxy: tuple[str, ...]  # rules that could lead to a proxy, described
    leaves_set: bool  # any outbound rule at all to something other than the set

    @classmethod
    def of(cls, groups: Sequence[SecurityGroup]) -> OutboundRules:
        ids = frozenset(g.group_id for g in groups)
        networks: list[ipaddress.IPv4Network] = []
        prefix_lists: set[str] = set()
        others: set[str] = set()
        maybe_proxy: set[str] = set()
        https_v6 = self_reaches = leaves = False
        for perm in (p for g in groups for p in g.outbound):
            nets = [n for n in map(_network, perm.ipv4_ranges) if n is not None]
            outside = [g for g in perm.source_group_ids if g not in ids]
            leaves = leaves or bool(nets or perm.ipv6_ranges or perm.prefix_list_ids or outside)
            if carries_https(perm):
                networks.extend(nets)
                https_v6 = https_v6 or bool(perm.ipv6_ranges)
                prefix_lists.update(perm.prefix_list_ids)
                others.update(outside)
                self_reaches = self_reaches or any(g in ids for g in perm.source_group_ids)
            # A proxy listens on a port of its own (3128, 8080, 9400, ...): any TCP rule to
            # somewhere outside the set that is more than HTTPS alone could lead to one. An
            # all-traffic rule to 0.0.0.0/0 needs no proxy to be a way out.
            if perm.protocol in ("-1", "tcp", "6") and not _https_only(perm):
                shown = _ports(perm)
                maybe_proxy.update(
                    f"{shown} to {n}" for n in nets if not (perm.all_protocols and n.prefixlen == 0)
                )
                maybe_proxy.update(f"{shown} to {g}" for g in outside)
        return cls(
            group_ids=ids,
            https_networks=tuple(dict.fromkeys(networks)),
            https_v6=https_v6,
            https_prefix_lists=frozenset(prefix_lists),
            https_groups=frozenset(others),
            self_reaches=self_reaches,
            maybe_proxy=tuple(sorted(maybe_proxy)),
            leaves_set=leaves,
        )

    def without_anywhere(self) -> OutboundRules:
        """The same rules without their IPv4 rules to 0.0.0.0/0: would a way remain?"""
        kept = tuple(n for n in self.https_networks if n.prefixlen != 0)
        return OutboundRules(
            group_ids=self.group_ids,
            https_networks=kept,
            https_v6=self.https_v6,
            https_prefix_lists=self.https_prefix_lists,
            https_groups=self.https_groups,
            self_reaches=self.self_reaches,
            maybe_proxy=self.maybe_proxy,
            leaves_set=bool(kept or self.https_v6 or self.https_prefix_lists or self.https_groups),
        )


class Way(Enum):
    """How a subnet routes the traffic of one AWS service."""

    INTERFACE_ENDPOINT = "interface endpoint"
    GATEWAY_ENDPOINT = "gateway endpoint"
    DEFAULT_ROUTE = "default route"


@dataclass(frozen=True, slots=True)
class VpcWays:
    """What a VPC offers its subnets: its CIDR blocks (the destinations of its route
    tables' local routes), the active endpoints of each service, and the service of each
    prefix list the route tables name or AWS manages (prefix list id -> service)."""

    vpc_cidrs: tuple[ipaddress.IPv4Network, ...]
    endpoints: Mapping[str, tuple[VpcEndpoint, ...]]
    prefix_list_services: Mapping[str, str]

    @classmethod
    def of(
        cls,
        endpoints: Sequence[VpcEndpoint],
        route_tables: Sequence[RouteTable],
        prefix_lists: Sequence[PrefixList] = (),
    ) -> VpcWays:
        active: dict[str, list[VpcEndpoint]] = {}
        for endpoint in endpoints:
            if endpoint.active:
                active.setdefault(endpoint.service, []).append(endpoint)
        by_id = {e.vpc_endpoint_id: e.service for e in endpoints}
        routes = [route for table in route_tables for route in table.routes]
        services = {
            route.destination_prefix_list_id: by_id[route.gateway_id]
            for route in routes
            if route.destination_prefix_list_id and route.gateway_id in by_id
        }
        for listed in prefix_lists:
            if listed.aws_service is not None:
                services.setdefault(listed.prefix_list_id, listed.aws_service)
        cidrs = (_network(r.destination_cidr_block) for r in routes if r.gateway_id == "local")
        return cls(
            vpc_cidrs=tuple(dict.fromkeys(n for n in cidrs if n is not None)),
            endpoints={service: tuple(found) for service, found in active.items()},
            prefix_list_services=services,
        )

    def in_vpc(self, network: ipaddress.IPv4Network) -> bool:
        return any(network.subnet_of(cidr) for cidr in self.vpc_cidrs)

    def touches_vpc(self, network: ipaddress.IPv4Network) -> bool:
        if not self.vpc_cidrs:  # no local route read: the private ranges stand in
            return any(network.overlaps(block) for block in _PRIVATE_V4)
        return any(network.overlaps(cidr) for cidr in self.vpc_cidrs)

    def public(self, network: ipaddress.IPv4Network) -> bool:
        """A destination that holds public addresses (where NAT-bound traffic goes)."""
        return not _wholly_private(network) and not self.in_vpc(network)


@dataclass(frozen=True, slots=True)
class SubnetExits:
    """What a subnet's route table offers beyond the VPC."""

    default_out: bool  # a default route that carries node traffic out (NAT, TGW, IGW, ...)
    # Destinations of routes that lead beyond the VPC to private networks: transit or
    # virtual private gateways, peering, appliances (a default route to one counts).
    beyond: tuple[ipaddress.IPv4Network, ...]
    ipv6_out: bool  # an IPv6 default route (egress-only or internet gateway)


def _leads_beyond(route: Route) -> bool:
    return (
        route.active
        and bool(route.target)
        and route.gateway_id != "local"
        and not route.nat_gateway_id
        and not is_internet_gateway(route)
        and route.destination_prefix_list_id is None
    )


def subnet_exits(subnet: Subnet, route_tables: Sequence[RouteTable]) -> SubnetExits:
    """The subnet's exits; the default route counts when it can carry node traffic out (an
    internet gateway too: whether nodes may sit in a public subnet is § B.3's question)."""
    table, _ = route_table_for(subnet, route_tables)
    if table is None:
        return SubnetExits(default_out=False, beyond=(), ipv6_out=False)
    route = default_route(table)
    default_out = (
        route is not None and route.active and (is_egress(route) or is_internet_gateway(route))
    )
    beyond = (_network(r.destination_cidr_block) for r in table.routes if _leads_beyond(r))
    ipv6_out = any(
        r.active and r.destination_ipv6_cidr_block == ANYWHERE_V6 and bool(r.target)
        for r in table.routes
    )
    return SubnetExits(
        default_out=default_out,
        beyond=tuple(n for n in beyond if n is not None),
        ipv6_out=ipv6_out,
    )


def ways_for(service: str, exits: SubnetExits, ways: VpcWays) -> tuple[Way, ...]:
    """The ways a subnet may send `service` traffic; () when it has none (§ B.4's case).

    Private DNS off on an interface endpoint: the default hostname still resolves to the
    public service, so that traffic takes the default route.
    """
    found: list[Way] = []
    for endpoint in ways.endpoints.get(service, ()):
        if endpoint.endpoint_type == "Interface" and endpoint.private_dns_enabled is not False:
            found.append(Way.INTERFACE_ENDPOINT)
        elif endpoint.endpoint_type == "Gateway":
            found.append(Way.GATEWAY_ENDPOINT)
    if exits.default_out and not found:
        found.append(Way.DEFAULT_ROUTE)
    return tuple(dict.fromkeys(found))


class Reach(Enum):
    YES = "yes"
    MAYBE = "maybe"  # only through what the triage cannot read
    NO = "no"


def _reaches_endpoint(rules: OutboundRules, service: str, ways: VpcWays) -> bool:
    groups = {g for e in ways.endpoints.get(service, ()) for g in e.security_group_ids}
    return (
        any(ways.touches_vpc(n) for n in rules.https_networks)
        or bool(rules.https_groups & groups)
        # Groups unknown: a rule to another group may be the endpoints' group.
        or (not groups and bool(rules.https_groups))
        or (rules.self_reaches and bool(groups & rules.group_ids))
    )


def reach(rules: OutboundRules, service: str, way: Way, ways: VpcWays, exits: SubnetExits) -> Reach:
    """Whether the set's outbound rules let HTTPS for `service` leave by `way`."""
    lists = {ways.prefix_list_services.get(pl) for pl in rules.https_prefix_lists}
    public = any(ways.public(n) for n in rules.https_networks)
    if way is Way.INTERFACE_ENDPOINT:
        yes = _reaches_endpoint(rules, service, ways)
    elif way is Way.GATEWAY_ENDPOINT:
        yes = public or service in lists
    else:
        yes = (
            public
            or service in lists
            or any(
                not ways.in_vpc(n) and any(n.overlaps(b) for b in exits.beyond)
                for n in rules.https_networks
            )
        )
    if yes:
        return Reach.YES
    if None in lists or (rules.https_v6 and exits.ipv6_out):
        return Reach.MAYBE
    return Reach.NO


def best_reach(
    rules: OutboundRules, service: str, found: Sequence[Way], ways: VpcWays, exits: SubnetExits
) -> Reach:
    """The best reach over every way the subnet has for the service."""
    answers = {reach(rules, service, way, ways, exits) for way in found}
    return next(r for r in (Reach.YES, Reach.MAYBE, Reach.NO) if r in answers)


class EgressVerdict(Enum):
    OPEN = "open"  # every routable service is allowed out
    BLOCKED = "blocked"  # some are not, and no rule might lead to a proxy
    PROXY_UNKNOWN = "proxy-unknown"  # some are not, but a rule might lead to a proxy
    UNCERTAIN = "uncertain"  # none blocked, some only through what the triage cannot read


@dataclass(frozen=True, slots=True)
class SubnetRouting:
    """The subnets of one VPC an instance group launches into, and what routes them."""

    subnets: tuple[Subnet, ...]
    route_tables: tuple[RouteTable, ...]
    ways: VpcWays


@dataclass(frozen=True, slots=True)
class SetEgress:
    """The rule's answer for one security-group set."""

    instance_groups: tuple[str, ...]
    security_groups: tuple[str, ...]
    verdict: EgressVerdict
    # service -> the subnets that route it but whose groups do not let it out
    blocked: Mapping[str, tuple[str, ...]]
    uncertain: Mapping[str, tuple[str, ...]]  # the same, for MAYBE
    checked: tuple[str, ...]  # the services judged (routable from at least one subnet)
    only_within_set: bool  # no outbound rule reaches anything but the set
    maybe_proxy: tuple[str, ...]
    unread_prefix_lists: tuple[str, ...]  # customer lists whose entries decide a MAYBE
    has_anywhere: bool  # an HTTPS-carrying rule to 0.0.0.0/0
    open_without_anywhere: bool  # the set keeps a way out without its 0.0.0.0/0 rules


def _service_reach(
    rules: OutboundRules, routing: SubnetRouting, services: Sequence[str]
) -> tuple[dict[str, list[str]], dict[str, list[str]], list[str]]:
    blocked: dict[str, list[str]] = {}
    uncertain: dict[str, list[str]] = {}
    checked: list[str] = []
    for subnet in routing.subnets:
        exits = subnet_exits(subnet, routing.route_tables)
        for service in services:
            found = ways_for(service, exits, routing.ways)
            if not found:
                continue
            checked.append(service)
            answer = best_reach(rules, service, found, routing.ways, exits)
            if answer is Reach.NO:
                blocked.setdefault(service, []).append(subnet.subnet_id)
            elif answer is Reach.MAYBE:
                uncertain.setdefault(service, []).append(subnet.subnet_id)
    return blocked, uncertain, checked


def judge_set_egress(
    instance_groups: Sequence[str],
    groups: Sequence[SecurityGroup],
    routing: SubnetRouting,
    services: Sequence[str],
) -> SetEgress:
    rules = OutboundRules.of(groups)
    endpoint_groups = {
        g for found in routing.ways.endpoints.values() for e in found for g in e.security_group_ids
    }
    if not rules.leaves_set and not endpoint_groups & rules.group_ids:
        # Only rules to the set itself: no AWS service, whatever the routes or endpoints.
        subnets = tuple(sorted(s.subnet_id for s in routing.subnets))
        blocked = {service: list(subnets) for service in services}
        uncertain: dict[str, list[str]] = {}
        checked = list(services)
    else:
        blocked, uncertain, checked = _service_reach(rules, routing, services)
    if blocked:
        verdict = EgressVerdict.PROXY_UNKNOWN if rules.maybe_proxy else EgressVerdict.BLOCKED
    elif uncertain:
        verdict = EgressVerdict.UNCERTAIN
    else:
        verdict = EgressVerdict.OPEN
    narrowed = rules.without_anywhere()
    # Without its rules to 0.0.0.0/0, would the set keep a way to every routable service?
    open_without = narrowed.leaves_set and not any(_service_reach(narrowed, routing, services)[:2])
    lists = routing.ways.prefix_list_services
    return SetEgress(
        instance_groups=tuple(instance_groups),
        security_groups=tuple(sorted(rules.group_ids)),
        verdict=verdict,
        blocked={s: tuple(sorted(set(ids))) for s, ids in blocked.items()},
        uncertain={s: tuple(sorted(set(ids))) for s, ids in uncertain.items()},
        checked=tuple(s for s in services if s in checked),
        only_within_set=not rules.leaves_set,
        maybe_proxy=rules.maybe_proxy,
        unread_prefix_lists=tuple(sorted(pl for pl in rules.https_prefix_lists if pl not in lists)),
        has_anywhere=any(n.prefixlen == 0 for n in rules.https_networks),
        open_without_anywhere=open_without,
    )


def unknown_prefix_lists(groups: Sequence[SecurityGroup], known: Mapping[str, str]) -> list[str]:
    """Prefix lists the set's outbound rules name that no gateway-endpoint route names: the
    ones whose names are worth reading (AWS-managed lists carry the service in the name)."""
    named = {pl for g in groups for p in g.outbound for pl in p.prefix_list_ids}
    return sorted(named - set(known))
