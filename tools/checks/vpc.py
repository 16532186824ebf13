"""§ B: the cluster's VPC — one VPC, DNS, private subnets, egress or endpoints, free IPs.

Rules are pure functions over DescribeSubnets / DescribeSecurityGroups /
DescribeVpcAttribute / DescribeRouteTables / DescribeVpcEndpoints output; the registered
checks only fetch through `ClusterData` and hand the raw shapes over.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from tools.findings import Finding, Priority, fail, info, passed, warn
from tools.registry import check
from tools.triage.data import ClusterData

CHECK_MEMBERSHIP = "vpc-membership"
CHECK_S3 = "s3-gateway-endpoint"
CHECK_DNS = "vpc-dns"
CHECK_PRIVATE = "private-subnets"
CHECK_ENDPOINTS = "vpc-endpoints"
CHECK_FREE_IPS = "subnet-free-ips"

DEFAULT_ROUTE = "0.0.0.0/0"

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

# Why 32: a p5.48xlarge can attach up to 32 EFA network interfaces, and each one that
# carries an IP takes an address from the subnet; on EKS the VPC CNI also keeps warm pod
# addresses per node. Below 32 free addresses a single GPU node replacement or scale-up
# may already fail with InsufficientFreeAddressesInSubnet, so it is a useful floor that
# does not need the per-type ENI count.
MIN_FREE_IPS = 32

# Route targets that give a private subnet outbound access without an internet gateway.
_EGRESS_KEYS = (
    "NatGatewayId",
    "TransitGatewayId",
    "InstanceId",
    "NetworkInterfaceId",
    "LocalGatewayId",
    "CoreNetworkArn",
)


# -- small helpers over the raw shapes ---------------------------------------------------


def _active(item: dict[str, Any]) -> bool:
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
    ):
        if route.get(key):
            return str(route[key])
    return ""


def is_internet_gateway(route: dict[str, Any]) -> bool:
    return str(route.get("GatewayId", "")).startswith("igw-")


def is_egress(route: dict[str, Any]) -> bool:
    """A route that can carry node traffic out without public IPs (NAT, TGW, appliance, VGW)."""
    if any(route.get(key) for key in _EGRESS_KEYS):
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


def endpoint_service(endpoint: dict[str, Any]) -> str:
    """com.amazonaws.us-west-2.ecr.api -> ecr.api (other name forms -> the name itself)."""
    name = str(endpoint.get("ServiceName", ""))
    parts = name.split(".")
    if len(parts) >= 4 and parts[:2] == ["com", "amazonaws"]:
        return ".".join(parts[3:])
    return name


def _listing(ids: Iterable[str]) -> str:
    return ", ".join(sorted(ids))


def reference_vpc(subnets: list[dict[str, Any]], vpc_config_subnets: list[str]) -> str | None:
    """The VPC the cluster lives in: that of its cluster-level subnets (most common)."""
    level = [s for s in subnets if s.get("SubnetId") in vpc_config_subnets] or subnets
    counts = Counter(str(s.get("VpcId")) for s in level if s.get("VpcId"))
    if not counts:
        return None
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))[0][0]


# -- B.1 ----------------------------------------------------------------------------------


def judge_vpc_membership(
    subnets: list[dict[str, Any]],
    missing_subnets: list[str],
    security_groups: list[dict[str, Any]],
    missing_security_groups: list[str],
    vpc_config_subnets: list[str],
) -> list[Finding]:
    """Every subnet and SG (cluster-level and OverrideVpcConfig) exists and shares one VPC."""
    findings: list[Finding] = []
    if missing_subnets:
        findings.append(
            fail(
                CHECK_MEMBERSHIP,
                Priority.P0,
                "B.1",
                f"Subnet(s) {_listing(missing_subnets)} in the cluster VPC configuration do "
                "not exist",
                resources=sorted(missing_subnets),
                missing_subnets=sorted(missing_subnets),
            )
        )
    if missing_security_groups:
        findings.append(
            fail(
                CHECK_MEMBERSHIP,
                Priority.P0,
                "B.1",
                f"Security group(s) {_listing(missing_security_groups)} in the cluster VPC "
                "configuration do not exist",
                resources=sorted(missing_security_groups),
                missing_security_groups=sorted(missing_security_groups),
            )
        )
    vpc_id = reference_vpc(subnets, vpc_config_subnets)
    if vpc_id is None:
        return findings
    placement = {str(s.get("SubnetId")): s.get("VpcId") for s in subnets}
    placement.update({str(g.get("GroupId")): g.get("VpcId") for g in security_groups})
    odd = {rid: vpc for rid, vpc in placement.items() if vpc != vpc_id}
    if odd:
        where = ", ".join(f"{rid} in {vpc}" for rid, vpc in sorted(odd.items()))
        findings.append(
            fail(
                CHECK_MEMBERSHIP,
                Priority.P0,
                "B.1",
                f"Cluster subnets and security groups are not all in {vpc_id} (the VPC of the "
                f"cluster-level subnets): {where}",
                resources=sorted(odd),
                cluster_vpc=vpc_id,
                placement=dict(sorted(placement.items())),
            )
        )
    else:
        findings.append(
            passed(
                CHECK_MEMBERSHIP,
                "B.1",
                f"All {len(subnets)} subnet(s) and {len(security_groups)} security group(s) "
                f"are in {vpc_id}",
                resources=[vpc_id],
                cluster_vpc=vpc_id,
                placement=dict(sorted(placement.items())),
            )
        )
    return findings


def judge_s3_gateway(vpc_id: str, endpoints: list[dict[str, Any]]) -> list[Finding]:
    """WARN P2 without an available S3 gateway endpoint in the cluster VPC."""
    s3 = [e for e in endpoints if endpoint_service(e) == "s3" and _active(e)]
    gateways = [e for e in s3 if e.get("VpcEndpointType") == "Gateway"]
    evidence = {
        "vpc": vpc_id,
        "s3_endpoints": {
            str(e.get("VpcEndpointId")): str(e.get("VpcEndpointType", "")) for e in s3
        },
    }
    if gateways:
        ids = sorted(str(e.get("VpcEndpointId")) for e in gateways)
        return [
            passed(
                CHECK_S3,
                "B.1",
                f"VPC {vpc_id} has an S3 gateway endpoint ({_listing(ids)})",
                resources=[vpc_id, *ids],
                **evidence,
            )
        ]
    extra = " (only an S3 interface endpoint exists)" if s3 else ""
    return [
        warn(
            CHECK_S3,
            Priority.P2,
            "B.1",
            f"VPC {vpc_id} has no S3 gateway endpoint{extra}: lifecycle scripts and images "
            "are pulled from S3 through NAT or not at all",
            resources=[vpc_id],
            **evidence,
        )
    ]


# -- B.2 ----------------------------------------------------------------------------------


def judge_dns(vpc_id: str, dns_support: bool, dns_hostnames: bool) -> list[Finding]:
    """Both VPC DNS attributes must be true; each false one is its own P0."""
    evidence = {"vpc": vpc_id, "enableDnsSupport": dns_support, "enableDnsHostnames": dns_hostnames}
    findings: list[Finding] = []
    if not dns_support:
        findings.append(
            fail(
                CHECK_DNS,
                Priority.P0,
                "B.2",
                f"VPC {vpc_id} has enableDnsSupport=false: nodes cannot resolve AWS endpoints "
                "or the EKS API server",
                resources=[vpc_id],
                **evidence,
            )
        )
    if not dns_hostnames:
        findings.append(
            fail(
                CHECK_DNS,
                Priority.P0,
                "B.2",
                f"VPC {vpc_id} has enableDnsHostnames=false: private DNS of interface "
                "endpoints and node hostnames do not work",
                resources=[vpc_id],
                **evidence,
            )
        )
    if not findings:
        findings.append(
            passed(
                CHECK_DNS,
                "B.2",
                f"VPC {vpc_id} has enableDnsSupport and enableDnsHostnames enabled",
                resources=[vpc_id],
                **evidence,
            )
        )
    return findings


# -- B.3 ----------------------------------------------------------------------------------


def judge_private_subnets(
    subnets: list[dict[str, Any]], route_tables: list[dict[str, Any]]
) -> list[Finding]:
    """A cluster subnet must not send 0.0.0.0/0 to an internet gateway."""
    findings: list[Finding] = []
    for subnet in sorted(subnets, key=lambda s: str(s.get("SubnetId"))):
        subnet_id = str(subnet.get("SubnetId"))
        table, is_main = route_table_for(subnet, route_tables)
        map_public = bool(subnet.get("MapPublicIpOnLaunch", False))
        if map_public:
            findings.append(
                warn(
                    CHECK_PRIVATE,
                    Priority.P2,
                    "B.3",
                    f"Subnet {subnet_id} has MapPublicIpOnLaunch=true: HyperPod subnets should "
                    "be private",
                    resources=[subnet_id],
                    subnet=subnet_id,
                    map_public_ip_on_launch=True,
                )
            )
        if table is None:
            findings.append(
                info(
                    CHECK_PRIVATE,
                    "B.3",
                    f"No route table found for subnet {subnet_id} (no association and no main "
                    "table in its VPC): routing not judged",
                    resources=[subnet_id],
                    subnet=subnet_id,
                )
            )
            continue
        table_id = str(table.get("RouteTableId"))
        how = "main route table" if is_main else "route table"
        route = default_route(table)
        target = route_target(route) if route else ""
        evidence: dict[str, Any] = {
            "subnet": subnet_id,
            "route_table": table_id,
            "main_route_table": is_main,
            "default_route_target": target or None,
            "default_route_state": route.get("State", "active") if route else None,
            "map_public_ip_on_launch": map_public,
        }
        if route is not None and is_internet_gateway(route):
            findings.append(
                fail(
                    CHECK_PRIVATE,
                    Priority.P0,
                    "B.3",
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
            for r in table.get("Routes", [])
            if is_internet_gateway(r) and r.get("DestinationCidrBlock") != DEFAULT_ROUTE
        ]
        if other_igw:
            destinations = sorted(
                str(
                    r.get("DestinationCidrBlock")
                    or r.get("DestinationIpv6CidrBlock")
                    or r.get("DestinationPrefixListId")
                )
                for r in other_igw
            )
            findings.append(
                warn(
                    CHECK_PRIVATE,
                    Priority.P2,
                    "B.3",
                    f"Subnet {subnet_id}: {how} {table_id} routes {', '.join(destinations)} "
                    f"to {route_target(other_igw[0])}; nodes without public IPs cannot reach "
                    "those destinations",
                    resources=[subnet_id, table_id],
                    igw_destinations=destinations,
                    **evidence,
                )
            )
        if route is not None and not _active(route):
            findings.append(
                warn(
                    CHECK_PRIVATE,
                    Priority.P1,
                    "B.3",
                    f"Subnet {subnet_id}: the default route of {how} {table_id} to {target} is "
                    f"{route.get('State')} (its target was deleted): nodes have no outbound path",
                    resources=[subnet_id, table_id],
                    **evidence,
                )
            )
            continue
        if route is not None and is_egress(route):
            egress = f"outbound traffic goes through {target}"
        else:
            egress = "no default route (VPC endpoints needed, see B.4)"
        findings.append(
            passed(
                CHECK_PRIVATE,
                "B.3",
                f"Subnet {subnet_id} is private ({how} {table_id}): {egress}",
                resources=[subnet_id],
                **evidence,
            )
        )
    return findings


# -- B.4 ----------------------------------------------------------------------------------


def has_egress(subnet: dict[str, Any], route_tables: list[dict[str, Any]]) -> bool:
    table, _ = route_table_for(subnet, route_tables)
    route = default_route(table) if table else None
    return route is not None and _active(route) and is_egress(route)


def _public(subnet: dict[str, Any], route_tables: list[dict[str, Any]]) -> bool:
    table, _ = route_table_for(subnet, route_tables)
    route = default_route(table) if table else None
    return route is not None and is_internet_gateway(route)


def judge_endpoints(
    vpc_id: str,
    subnets: list[dict[str, Any]],
    route_tables: list[dict[str, Any]],
    endpoints: list[dict[str, Any]],
    orchestrator: str,
) -> list[Finding]:
    """Subnets without NAT/other egress need the HyperPod service endpoints in their VPC.

    Subnets whose default route goes to an internet gateway are judged by B.3 alone (the
    fix there is a NAT route, which makes the endpoints optional).
    """
    isolated = sorted(
        str(s.get("SubnetId"))
        for s in subnets
        if not has_egress(s, route_tables) and not _public(s, route_tables)
    )
    available = {endpoint_service(e): e for e in endpoints if _active(e)}
    needed = [*REQUIRED_ENDPOINTS, *(EKS_ENDPOINTS if orchestrator == "eks" else ())]
    evidence: dict[str, Any] = {
        "vpc": vpc_id,
        "subnets_without_egress": isolated,
        "endpoint_services": sorted(available),
        "required": needed,
    }
    if not isolated:
        return [
            passed(
                CHECK_ENDPOINTS,
                "B.4",
                f"Cluster subnets in {vpc_id} have a NAT or other egress route: VPC "
                "endpoints are optional",
                resources=[vpc_id],
                **evidence,
            )
        ]
    missing = [name for name in needed if name not in available]
    if missing:
        return [
            fail(
                CHECK_ENDPOINTS,
                Priority.P0,
                "B.4",
                f"Subnet(s) {_listing(isolated)} have no NAT or other egress route and VPC "
                f"{vpc_id} lacks the endpoints {', '.join(missing)}",
                resources=[vpc_id, *isolated],
                missing=missing,
                **evidence,
            )
        ]
    findings: list[Finding] = []
    no_private_dns = sorted(
        str(e.get("VpcEndpointId"))
        for name, e in available.items()
        if name in needed
        and e.get("VpcEndpointType") == "Interface"
        and e.get("PrivateDnsEnabled") is False
    )
    if no_private_dns:
        findings.append(
            warn(
                CHECK_ENDPOINTS,
                Priority.P1,
                "B.4",
                f"Interface endpoint(s) {_listing(no_private_dns)} in {vpc_id} have private "
                "DNS disabled: without NAT the default service hostnames do not reach them",
                resources=[vpc_id, *no_private_dns],
                **evidence,
            )
        )
    findings.append(
        passed(
            CHECK_ENDPOINTS,
            "B.4",
            f"Subnet(s) {_listing(isolated)} have no egress route, and VPC {vpc_id} has every "
            f"required endpoint ({', '.join(needed)})",
            resources=[vpc_id, *isolated],
            **evidence,
        )
    )
    return findings


# -- B.6 ----------------------------------------------------------------------------------


def judge_free_ips(subnets: list[dict[str, Any]], minimum: int = MIN_FREE_IPS) -> list[Finding]:
    findings: list[Finding] = []
    for subnet in sorted(subnets, key=lambda s: str(s.get("SubnetId"))):
        subnet_id = str(subnet.get("SubnetId"))
        free = subnet.get("AvailableIpAddressCount")
        evidence = {
            "subnet": subnet_id,
            "available_ips": free,
            "minimum": minimum,
            "cidr": subnet.get("CidrBlock"),
        }
        if not isinstance(free, int):
            findings.append(
                info(
                    CHECK_FREE_IPS,
                    "B.6",
                    f"Subnet {subnet_id} reports no AvailableIpAddressCount",
                    resources=[subnet_id],
                    **evidence,
                )
            )
        elif free < minimum:
            findings.append(
                warn(
                    CHECK_FREE_IPS,
                    Priority.P1,
                    "B.6",
                    f"Subnet {subnet_id} ({subnet.get('CidrBlock')}) has only {free} free IP "
                    f"addresses (< {minimum}): node replacement or scale-up may fail",
                    resources=[subnet_id],
                    **evidence,
                )
            )
        else:
            findings.append(
                passed(
                    CHECK_FREE_IPS,
                    "B.6",
                    f"Subnet {subnet_id} has {free} free IP addresses",
                    resources=[subnet_id],
                    **evidence,
                )
            )
    return findings


# -- registered checks --------------------------------------------------------------------


def _subnets(data: ClusterData) -> list[dict[str, Any]]:
    found, _missing = data.existing_subnets(data.cluster_subnet_ids())
    return found


def _vpc_ids(subnets: list[dict[str, Any]]) -> list[str]:
    return sorted({str(s["VpcId"]) for s in subnets if s.get("VpcId")})


def _route_tables(data: ClusterData, vpc_ids: list[str]) -> list[dict[str, Any]]:
    return [table for vpc_id in vpc_ids for table in data.route_tables(vpc_id)]


@check(CHECK_MEMBERSHIP, section="B.1", title="Subnets and security groups in one VPC")
def vpc_membership(data: ClusterData) -> Iterable[Finding]:
    """Every cluster and OverrideVpcConfig subnet and SG exists and shares one VPC."""
    subnets, missing_subnets = data.existing_subnets(data.cluster_subnet_ids())
    groups, missing_groups = data.existing_security_groups(data.cluster_security_group_ids())
    vpc_config = list(data.cluster().get("VpcConfig", {}).get("Subnets", []))
    return judge_vpc_membership(subnets, missing_subnets, groups, missing_groups, vpc_config)


@check(CHECK_S3, section="B.1", title="S3 gateway endpoint")
def s3_gateway_endpoint(data: ClusterData) -> Iterable[Finding]:
    """An S3 gateway endpoint in the cluster VPC (lifecycle scripts and images come from S3)."""
    findings: list[Finding] = []
    for vpc_id in _vpc_ids(_subnets(data)):
        findings.extend(judge_s3_gateway(vpc_id, data.vpc_endpoints(vpc_id)))
    return findings


@check(CHECK_DNS, section="B.2", title="VPC DNS support and hostnames")
def vpc_dns(data: ClusterData) -> Iterable[Finding]:
    """enableDnsSupport and enableDnsHostnames on the cluster VPC."""
    findings: list[Finding] = []
    for vpc_id in _vpc_ids(_subnets(data)):
        support = data.vpc_attribute(vpc_id, "enableDnsSupport")
        hostnames = data.vpc_attribute(vpc_id, "enableDnsHostnames")
        findings.extend(judge_dns(vpc_id, support, hostnames))
    return findings


@check(CHECK_PRIVATE, section="B.3", title="Private cluster subnets")
def private_subnets(data: ClusterData) -> Iterable[Finding]:
    """No cluster subnet routes 0.0.0.0/0 to an internet gateway (main table if unassociated)."""
    subnets = _subnets(data)
    return judge_private_subnets(subnets, _route_tables(data, _vpc_ids(subnets)))


@check(CHECK_ENDPOINTS, section="B.4", title="VPC endpoints without NAT")
def vpc_endpoints(data: ClusterData) -> Iterable[Finding]:
    """Subnets without NAT egress need the HyperPod interface endpoints in their VPC."""
    subnets = _subnets(data)
    findings: list[Finding] = []
    for vpc_id in _vpc_ids(subnets):
        in_vpc = [s for s in subnets if s.get("VpcId") == vpc_id]
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


@check(CHECK_FREE_IPS, section="B.6", title="Free IP addresses per subnet")
def subnet_free_ips(data: ClusterData) -> Iterable[Finding]:
    """Free addresses left in every cluster subnet."""
    return judge_free_ips(_subnets(data))
