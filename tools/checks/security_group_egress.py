"""§ A.1: the security groups on the nodes' interfaces must let them reach AWS.

Security-group egress rules filter every connection an instance starts, whatever the route
afterwards: "If your security group has no outbound rules, no outbound traffic originating
from your instance is allowed" (Amazon VPC User Guide, *Security group rules*). Traffic the
subnet sends to a NAT gateway is judged against its final destination (the public address
of SSM, STS, ECR, ...), so a group whose only outbound rule is the EFA self rule cuts the
nodes off from SSM, STS, ECR, CloudWatch Logs, S3 and the SageMaker API even with a working
NAT route. Only traffic to the Route 53 Resolver, the instance metadata service and the
Amazon Time Sync Service is exempt.

The rule, per instance group's security-group set (OverrideVpcConfig, else the cluster's)
and per subnet it launches into: for each AWS service a node needs
(`tools.checks._network.required_endpoints`), find the way the subnet routes it — an
interface endpoint with private DNS, the S3 gateway endpoint, or the default route (NAT,
transit gateway, appliance) — and ask whether the union of the set's outbound rules allows
HTTPS to that way:

- an interface endpoint: a rule to a private CIDR (the endpoint's addresses are in the
  VPC), to one of the endpoint's security groups, or any rule to a group of the set when
  the endpoint carries that group (the self rule then reaches it);
- the S3 gateway endpoint: a rule to its prefix list (named by the route that sends the
  prefix list to the endpoint), or to a public CIDR;
- the default route: a rule to a CIDR that is not wholly private (0.0.0.0/0, typically);
  or, where the route table also sends traffic beyond the VPC over a transit or virtual
  private gateway, peering or an appliance, a rule to a private CIDR (centralised interface
  endpoints in a shared-services VPC, or a corporate proxy, answer on private addresses).

A prefix list the route tables do not name (customer-managed) might hold anything and is
given the benefit of the doubt. A service the subnet cannot route at all is § B.4's
finding, not this one's. Blocked services are a FAIL P0, unless the set also has outbound
rules that might reach a proxy (a private CIDR or another group on a port other than
HTTPS), in which case a WARN P1 says so: the triage cannot tell a proxy from a file server.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum

from tools.checks._network import (
    DEFAULT_ROUTE,
    cluster_subnets,
    default_route,
    is_egress,
    is_internet_gateway,
    listing,
    managed_vpc_finding,
    required_endpoints,
    route_table_for,
)
from tools.findings import Finding, Findings, Priority
from tools.registry import check
from tools.triage.data import ClusterData
from tools.triage.data.network_model import (
    IpPermission,
    Route,
    RouteTable,
    SecurityGroup,
    Subnet,
    VpcEndpoint,
)
from tools.triage.data.sagemaker_model import Cluster

CHECK_ID = "sg-egress"
FINDINGS = Findings(CHECK_ID, "A.1")

HTTPS = 443
_PRIVATE_V4 = tuple(
    ipaddress.IPv4Network(block)
    for block in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10")
)


def _network(cidr: str) -> ipaddress.IPv4Network | None:
    try:
        network = ipaddress.ip_network(cidr, strict=False)
    except ValueError:
        return None
    return network if isinstance(network, ipaddress.IPv4Network) else None


def _wholly_private(network: ipaddress.IPv4Network) -> bool:
    return any(network.subnet_of(block) for block in _PRIVATE_V4)


def _touches_private(network: ipaddress.IPv4Network) -> bool:
    return any(network.overlaps(block) for block in _PRIVATE_V4)


def carries_https(perm: IpPermission) -> bool:
    """Protocol -1, or TCP over a port range that includes 443."""
    if perm.all_protocols:
        return True
    if perm.protocol not in ("tcp", "6") or perm.from_port is None or perm.to_port is None:
        return False
    return perm.from_port <= HTTPS <= perm.to_port


@dataclass(frozen=True, slots=True)
class OutboundRules:
    """The union of one security-group set's outbound rules, read as ways out."""

    group_ids: frozenset[str]  # the set itself
    public_https: bool  # HTTPS to a CIDR that is not wholly private (NAT-bound traffic)
    private_https: bool  # HTTPS to a CIDR that touches private space (interface endpoints)
    https_prefix_lists: frozenset[str]
    https_groups: frozenset[str]  # HTTPS to groups outside the set
    self_reaches: bool  # a rule to a group of the set carries HTTPS
    maybe_proxy: tuple[str, ...]  # other outbound rules that could lead to a proxy, described
    leaves_set: bool  # any outbound rule at all to something other than the set

    @classmethod
    def of(cls, groups: Sequence[SecurityGroup]) -> OutboundRules:
        ids = frozenset(g.group_id for g in groups)
        public = private = self_reaches = leaves = False
        prefix_lists: set[str] = set()
        others: set[str] = set()
        maybe_proxy: list[str] = []
        for perm in (p for g in groups for p in g.outbound):
            https = carries_https(perm)
            networks = [n for n in map(_network, perm.ipv4_ranges) if n is not None]
            outside = [g for g in perm.source_group_ids if g not in ids]
            leaves = leaves or bool(networks or perm.ipv6_ranges or perm.prefix_list_ids or outside)
            if https:
                public = public or any(not _wholly_private(n) for n in networks)
                private = private or any(_touches_private(n) for n in networks)
                prefix_lists.update(perm.prefix_list_ids)
                others.update(outside)
                self_reaches = self_reaches or any(g in ids for g in perm.source_group_ids)
                continue
            ports = _ports(perm)
            maybe_proxy.extend(f"{ports} to {n}" for n in networks if _wholly_private(n))
            maybe_proxy.extend(f"{ports} to {g}" for g in outside)
        return cls(
            group_ids=ids,
            public_https=public,
            private_https=private,
            https_prefix_lists=frozenset(prefix_lists),
            https_groups=frozenset(others),
            self_reaches=self_reaches,
            maybe_proxy=tuple(sorted(set(maybe_proxy))),
            leaves_set=leaves,
        )


def _ports(perm: IpPermission) -> str:
    if perm.from_port is None or perm.from_port == perm.to_port:
        return f"{perm.protocol} {perm.from_port if perm.from_port is not None else ''}".strip()
    return f"{perm.protocol} {perm.from_port}-{perm.to_port}"


class Way(Enum):
    """How a subnet routes the traffic of one AWS service."""

    INTERFACE_ENDPOINT = "interface endpoint"
    GATEWAY_ENDPOINT = "gateway endpoint"
    DEFAULT_ROUTE = "default route"


@dataclass(frozen=True, slots=True)
class VpcWays:
    """What a VPC offers its subnets: the active endpoints by service and the prefix lists
    its route tables send to a gateway endpoint (prefix list id -> endpoint service)."""

    endpoints: Mapping[str, VpcEndpoint]
    gateway_prefix_lists: Mapping[str, str]

    @classmethod
    def of(cls, endpoints: Sequence[VpcEndpoint], route_tables: Sequence[RouteTable]) -> VpcWays:
        active = {e.service: e for e in endpoints if e.active}
        by_id = {e.vpc_endpoint_id: e.service for e in endpoints}
        lists = {
            route.destination_prefix_list_id: by_id[route.gateway_id]
            for table in route_tables
            for route in table.routes
            if route.destination_prefix_list_id and route.gateway_id in by_id
        }
        return cls(endpoints=active, gateway_prefix_lists=lists)


def way_for(service: str, routes_out: bool, ways: VpcWays) -> Way | None:
    """The way a subnet sends `service` traffic, or None when it has none (§ B.4's case)."""
    endpoint = ways.endpoints.get(service)
    # Private DNS off: the default hostname still resolves to the public service.
    if (
        endpoint is not None
        and endpoint.endpoint_type == "Interface"
        and endpoint.private_dns_enabled is not False
    ):
        return Way.INTERFACE_ENDPOINT
    if endpoint is not None and endpoint.endpoint_type == "Gateway":
        return Way.GATEWAY_ENDPOINT
    return Way.DEFAULT_ROUTE if routes_out else None


@dataclass(frozen=True, slots=True)
class SubnetExits:
    """What a subnet's route table offers beyond the VPC."""

    default_out: bool  # a default route that carries node traffic out (NAT, TGW, ...)
    # A route that may carry traffic to private addresses outside the VPC: a transit or
    # virtual private gateway, peering, an appliance. Centralised interface endpoints (a
    # shared-services VPC whose private DNS answers for the service) and corporate proxies
    # sit behind such routes, so HTTPS to a private CIDR may reach AWS through them.
    private_beyond: bool


def allows(rules: OutboundRules, service: str, way: Way, ways: VpcWays, exits: SubnetExits) -> bool:
    """Whether the set's outbound rules let HTTPS for `service` leave by `way`."""
    unknown_lists = rules.https_prefix_lists - set(ways.gateway_prefix_lists)
    if unknown_lists:
        return True  # a customer-managed list may hold the destination: benefit of the doubt
    if way is Way.INTERFACE_ENDPOINT:
        endpoint_groups = set(ways.endpoints[service].security_group_ids)
        return (
            rules.private_https
            or bool(rules.https_groups & endpoint_groups)
            # Groups unknown: a rule to another group may be the endpoints' group.
            or (not endpoint_groups and bool(rules.https_groups))
            or (rules.self_reaches and bool(endpoint_groups & rules.group_ids))
        )
    if way is Way.GATEWAY_ENDPOINT:
        named = {pl for pl in rules.https_prefix_lists if ways.gateway_prefix_lists[pl] == service}
        return rules.public_https or bool(named)
    return rules.public_https or (exits.private_beyond and rules.private_https)


def _private_destination(route: Route) -> bool:
    network = _network(route.destination_cidr_block or "")
    return network is not None and _touches_private(network)


def subnet_exits(subnet: Subnet, route_tables: Sequence[RouteTable]) -> SubnetExits:
    """The default route counts when it can carry node traffic out (NAT and the like, or an
    internet gateway: whether the nodes may sit in a public subnet is § B.3's question)."""
    table, _ = route_table_for(subnet, route_tables)
    if table is None:
        return SubnetExits(default_out=False, private_beyond=False)
    route = default_route(table)
    default_out = (
        route is not None and route.active and (is_egress(route) or is_internet_gateway(route))
    )
    beyond = any(
        r.active
        and r.gateway_id != "local"
        and not r.nat_gateway_id
        and not is_internet_gateway(r)
        and (r.destination_cidr_block == DEFAULT_ROUTE or _private_destination(r))
        and bool(r.target)
        for r in table.routes
    )
    return SubnetExits(default_out=default_out, private_beyond=beyond)


class EgressVerdict(Enum):
    OPEN = "open"  # every routable service is allowed out
    BLOCKED = "blocked"  # some are not, and nothing else leaves the set
    PROXY_UNKNOWN = "proxy-unknown"  # some are not, but a rule might lead to a proxy


@dataclass(frozen=True, slots=True)
class SetEgress:
    """The rule's answer for one security-group set."""

    instance_groups: tuple[str, ...]
    security_groups: tuple[str, ...]
    verdict: EgressVerdict
    # service -> the subnets that route it but whose groups do not let it out
    blocked: Mapping[str, tuple[str, ...]]
    checked: tuple[str, ...]  # the services judged (routable from at least one subnet)
    only_within_set: bool  # no outbound rule reaches anything but the set
    maybe_proxy: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SubnetRouting:
    """The subnets of one VPC an instance group launches into, and what routes them."""

    subnets: tuple[Subnet, ...]
    route_tables: tuple[RouteTable, ...]
    ways: VpcWays


def judge_set_egress(
    instance_groups: Sequence[str],
    groups: Sequence[SecurityGroup],
    routing: SubnetRouting,
    services: Sequence[str],
) -> SetEgress:
    rules = OutboundRules.of(groups)
    ways = routing.ways
    blocked: dict[str, list[str]] = {}
    checked: list[str] = []
    for subnet in routing.subnets:
        exits = subnet_exits(subnet, routing.route_tables)
        for service in services:
            way = way_for(service, exits.default_out, ways)
            if way is None:
                continue
            if service not in checked:
                checked.append(service)
            if not allows(rules, service, way, ways, exits):
                blocked.setdefault(service, []).append(subnet.subnet_id)
    if not blocked:
        verdict = EgressVerdict.OPEN
    elif rules.maybe_proxy:
        verdict = EgressVerdict.PROXY_UNKNOWN
    else:
        verdict = EgressVerdict.BLOCKED
    return SetEgress(
        instance_groups=tuple(instance_groups),
        security_groups=tuple(sorted(rules.group_ids)),
        verdict=verdict,
        blocked={s: tuple(sorted(set(ids))) for s, ids in blocked.items()},
        checked=tuple(s for s in services if s in checked),
        only_within_set=not rules.leaves_set,
        maybe_proxy=rules.maybe_proxy,
    )


# -- words --------------------------------------------------------------------------------

# What stops working when a node cannot reach a service, in the order a user notices it.
_CONSEQUENCES: tuple[tuple[str, str], ...] = (
    ("ssm", "no SSM sessions (no shell, no probes)"),
    ("sts", "no role credentials (STS)"),
    ("s3", "no lifecycle scripts or image layers from S3"),
    ("ecr.api", "no image pulls (ECR)"),
    ("logs", "no CloudWatch Logs"),
    ("sagemaker.api", "no SageMaker API for the node agent (new nodes fail to join)"),
    ("eks", "no EKS API for kubelet"),
)


def consequences(blocked: Iterable[str]) -> list[str]:
    names = set(blocked)
    related = {"ssm": {"ssmmessages", "ec2messages"}, "ecr.api": {"ecr.dkr"}}
    return [
        text
        for service, text in _CONSEQUENCES
        if service in names or related.get(service, set()) & names
    ]


def word_set_egress(answer: SetEgress, several: bool) -> Finding:
    who = f"Instance group(s) {', '.join(answer.instance_groups)}: " if several else ""
    sgs = listing(answer.security_groups)
    evidence: dict[str, object] = {
        "instance_groups": list(answer.instance_groups),
        "security_groups": list(answer.security_groups),
        "services_checked": list(answer.checked),
        "blocked": {s: list(ids) for s, ids in answer.blocked.items()},
        "only_within_set": answer.only_within_set,
    }
    if answer.verdict is EgressVerdict.OPEN:
        return FINDINGS.passed(
            f"{who}Security group(s) {sgs} let the nodes reach the AWS services their subnets "
            f"route ({', '.join(answer.checked) or 'none routable'})",
            resources=list(answer.security_groups),
            **evidence,
        )
    blocked = ", ".join(answer.blocked)
    if answer.only_within_set:
        what = (
            "allow outbound traffic only to themselves, so the nodes reach no AWS service "
            f"({blocked})"
        )
    else:
        what = f"do not allow HTTPS out to {blocked} by the way their subnets route it"
    harm = "; ".join(consequences(answer.blocked))
    if answer.verdict is EgressVerdict.PROXY_UNKNOWN:
        return FINDINGS.warn(
            Priority.P1,
            f"{who}Security group(s) {sgs} {what}, unless the nodes use a proxy reached by "
            f"{'; '.join(answer.maybe_proxy)}: otherwise {harm}",
            resources=list(answer.security_groups),
            maybe_proxy=list(answer.maybe_proxy),
            **evidence,
        )
    return FINDINGS.fail(
        Priority.P0,
        f"{who}Security group(s) {sgs} {what}: {harm}",
        resources=list(answer.security_groups),
        **evidence,
    )


def security_group_sets(cluster: Cluster) -> dict[tuple[str, ...], list[str]]:
    """SG set -> the instance groups whose instances carry it (OverrideVpcConfig, else the
    cluster's); a cluster reporting no instance groups is judged on its own set."""
    sets: dict[tuple[str, ...], list[str]] = {}
    cluster_sgs = cluster.vpc_config.security_group_ids
    for group in cluster.instance_groups:
        override = group.override_vpc.security_group_ids if group.override_vpc else ()
        sets.setdefault(tuple(sorted(set(override or cluster_sgs))), []).append(group.name or "?")
    if not sets and cluster_sgs:
        sets[tuple(sorted(set(cluster_sgs)))] = ["cluster"]
    return sets


def _subnets_of(cluster: Cluster, names: Sequence[str]) -> set[str]:
    ids: set[str] = set()
    for group in cluster.instance_groups:
        if (group.name or "?") in names:
            override = group.override_vpc.subnets if group.override_vpc else ()
            ids.update(override or cluster.vpc_config.subnets)
    return ids or set(cluster.vpc_config.subnets)


@check(FINDINGS, title="Security-group egress to AWS")
def security_group_egress(data: ClusterData) -> Iterable[Finding]:
    """The security groups on each instance group's nodes let HTTPS reach every AWS service
    (SSM, STS, ECR, S3, CloudWatch Logs, SageMaker API, EKS) by the way its subnets route it:
    NAT, interface endpoints or the S3 gateway endpoint."""
    cluster = data.cluster()
    if cluster.uses_managed_vpc:
        return [managed_vpc_finding(FINDINGS, "security-group egress")]
    groups, _missing = data.existing_security_groups(data.cluster_security_group_ids())
    by_id = {g.group_id: g for g in groups}
    subnets = {s.subnet_id: s for s in cluster_subnets(data)}
    services = required_endpoints(cluster.orchestrator)
    sets = security_group_sets(cluster)
    several = len(sets) > 1
    findings: list[Finding] = []
    for set_ids, names in sorted(sets.items()):
        present = [by_id[sg] for sg in set_ids if sg in by_id]
        in_set = [subnets[s] for s in sorted(_subnets_of(cluster, names)) if s in subnets]
        if not present or not in_set:
            continue  # missing groups and subnets are § A's and § B.1's findings
        answers: list[SetEgress] = []
        for vpc_id in sorted({s.vpc_id or "" for s in in_set}):
            tables = data.route_tables(vpc_id) if vpc_id else ()
            routing = SubnetRouting(
                subnets=tuple(s for s in in_set if (s.vpc_id or "") == vpc_id),
                route_tables=tables,
                ways=VpcWays.of(data.vpc_endpoints(vpc_id) if vpc_id else (), tables),
            )
            answers.append(judge_set_egress(names, present, routing, services))
        findings.append(word_set_egress(_merge(answers), several))
    return findings


def _merge(answers: Sequence[SetEgress]) -> SetEgress:
    """One answer for a set whose subnets span several VPCs (§ B.1 flags that itself)."""
    if len(answers) == 1:
        return answers[0]
    blocked: dict[str, set[str]] = {}
    for answer in answers:
        for service, ids in answer.blocked.items():
            blocked.setdefault(service, set()).update(ids)
    verdicts = {a.verdict for a in answers}
    verdict = next(
        (v for v in (EgressVerdict.BLOCKED, EgressVerdict.PROXY_UNKNOWN) if v in verdicts),
        EgressVerdict.OPEN,
    )
    first = answers[0]
    checked = [s for a in answers for s in a.checked]
    return SetEgress(
        instance_groups=first.instance_groups,
        security_groups=first.security_groups,
        verdict=verdict,
        blocked={s: tuple(sorted(ids)) for s, ids in blocked.items()},
        checked=tuple(dict.fromkeys(checked)),
        only_within_set=first.only_within_set,
        maybe_proxy=first.maybe_proxy,
    )
