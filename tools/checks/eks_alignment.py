"""§ B.5: the orchestrating EKS cluster and HyperPod must line up (EKS clusters only).

Two checks so that a role without EC2 read access still gets the EKS-only verdicts:
`eks-cluster` judges DescribeCluster alone (status, authentication mode); `eks-network`
adds EC2 data (same VPC, the control plane admits the HyperPod nodes on 443).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, assert_never

from tools.aws.errors import ResourceNotFound
from tools.findings import Finding, Findings, Priority
from tools.registry import check
from tools.triage.data import ClusterData
from tools.triage.data.eks_model import EksCluster
from tools.triage.data.network_model import IpPermission, SecurityGroup, Subnet
from tools.triage.data.sagemaker_model import EksElsewhere

CHECK_CLUSTER = "eks-cluster"
CLUSTER_FINDINGS = Findings(CHECK_CLUSTER, "B.5")
CHECK_NETWORK = "eks-network"
NETWORK_FINDINGS = Findings(CHECK_NETWORK, "B.5")

API_PORT = 443
_SUPPORTED_AUTH = ("API", "API_AND_CONFIG_MAP")


@dataclass(frozen=True)
class GroupNetwork:
    """What an instance group's nodes send from: their SGs and their subnets' CIDRs."""

    name: str
    security_group_ids: tuple[str, ...]
    subnet_cidrs: tuple[str, ...]


# -- eks-cluster: verdicts, rules, words ----------------------------------------------------


class Readiness(Enum):
    """What the EKS cluster's status means for nodes joining it."""

    ACTIVE = "active"
    UPDATING = "updating"  # the API server keeps serving during an update
    NOT_ACTIVE = "not-active"


class AuthSupport(Enum):
    """Whether the authentication mode allows the access entries HyperPod uses."""

    UNREPORTED = "unreported"
    SUPPORTED = "supported"
    UNSUPPORTED = "unsupported"


@dataclass(frozen=True, slots=True)
class ClusterStatus:
    """The EKS cluster's status and what it means for HyperPod."""

    cluster: str
    status: str
    readiness: Readiness


@dataclass(frozen=True, slots=True)
class AuthenticationMode:
    """The EKS cluster's authentication mode (None when not reported) and its support."""

    cluster: str
    mode: str | None
    support: AuthSupport


def cluster_status(eks: EksCluster) -> ClusterStatus:
    """ACTIVE is ready, UPDATING still serves, anything else keeps nodes from joining."""
    readiness = {"ACTIVE": Readiness.ACTIVE, "UPDATING": Readiness.UPDATING}.get(
        eks.status, Readiness.NOT_ACTIVE
    )
    return ClusterStatus(eks.name, eks.status, readiness)


def authentication_mode(eks: EksCluster) -> AuthenticationMode:
    """Whether the authentication mode is one that allows access entries."""
    mode = eks.authentication_mode
    if mode is None:
        support = AuthSupport.UNREPORTED
    elif mode in _SUPPORTED_AUTH:
        support = AuthSupport.SUPPORTED
    else:
        support = AuthSupport.UNSUPPORTED
    return AuthenticationMode(eks.name, mode, support)


def word_cluster_status(verdict: ClusterStatus) -> Finding:
    """PASS when ACTIVE, WARN P2 while UPDATING, FAIL P0 otherwise."""
    name, status = verdict.cluster, verdict.status
    match verdict.readiness:
        case Readiness.ACTIVE:
            return CLUSTER_FINDINGS.passed(f"EKS cluster {name} is ACTIVE", status=status)
        case Readiness.UPDATING:
            return CLUSTER_FINDINGS.warn(
                Priority.P2,
                f"EKS cluster {name} is UPDATING: re-run triage once the update finishes",
                resources=[name],
                status=status,
            )
        case Readiness.NOT_ACTIVE:
            return CLUSTER_FINDINGS.fail(
                Priority.P0,
                f"EKS cluster {name} is {status}, not ACTIVE: HyperPod nodes cannot join it",
                resources=[name],
                status=status,
            )
        case _:
            assert_never(verdict.readiness)


def word_authentication_mode(verdict: AuthenticationMode) -> Finding:
    """INFO when unreported, PASS when supported, FAIL P0 when it rules out access entries."""
    name, mode = verdict.cluster, verdict.mode
    match verdict.support:
        case AuthSupport.UNREPORTED:
            return CLUSTER_FINDINGS.info(
                f"EKS cluster {name} reports no authenticationMode: HyperPod needs API or "
                "API_AND_CONFIG_MAP",
                authentication_mode=None,
            )
        case AuthSupport.SUPPORTED:
            return CLUSTER_FINDINGS.passed(
                f"EKS cluster {name} uses authentication mode {mode}", authentication_mode=mode
            )
        case AuthSupport.UNSUPPORTED:
            return CLUSTER_FINDINGS.fail(
                Priority.P0,
                f"EKS cluster {name} uses authentication mode {mode}: HyperPod needs API or "
                "API_AND_CONFIG_MAP (access entries)",
                resources=[name],
                authentication_mode=mode,
            )
        case _:
            assert_never(verdict.support)


def judge_eks_cluster(eks: EksCluster) -> list[Finding]:
    """Status ACTIVE and an authentication mode that allows access entries."""
    return [
        word_cluster_status(cluster_status(eks)),
        word_authentication_mode(authentication_mode(eks)),
    ]


# -- eks-network: the same VPC; control-plane access as verdicts, rules, words ---------------


def judge_eks_vpc(eks: EksCluster, hyperpod_vpcs: list[str]) -> list[Finding]:
    name = eks.name
    eks_vpc = eks.vpc_config.vpc_id
    evidence: dict[str, Any] = {"eks_vpc": eks_vpc, "hyperpod_vpcs": sorted(hyperpod_vpcs)}
    if not eks_vpc or not hyperpod_vpcs:
        return [
            NETWORK_FINDINGS.info(
                f"Cannot compare the VPC of EKS cluster {name} with the HyperPod VPC", **evidence
            )
        ]
    if eks_vpc not in hyperpod_vpcs:
        return [
            NETWORK_FINDINGS.fail(
                Priority.P0,
                f"EKS cluster {name} is in {eks_vpc} but the HyperPod subnets are in "
                f"{', '.join(sorted(hyperpod_vpcs))}",
                resources=[eks_vpc, *sorted(hyperpod_vpcs)],
                **evidence,
            )
        ]
    return [
        NETWORK_FINDINGS.passed(
            f"EKS cluster {name} and HyperPod share {eks_vpc}", resources=[eks_vpc], **evidence
        )
    ]


@dataclass(frozen=True, slots=True)
class ControlPlane:
    """The EKS API endpoints and the security groups that guard the private one."""

    cluster: str
    security_group_ids: tuple[str, ...]  # sorted, unique
    private_access: bool | None
    public_access: bool | None
    public_access_cidrs: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ApiPortSources:
    """Whom the control-plane security groups admit on the API port."""

    security_group_ids: tuple[str, ...]  # sorted, unique
    ipv4_cidrs: tuple[str, ...]  # sorted
    prefix_lists: tuple[str, ...]  # sorted


@dataclass(frozen=True, slots=True)
class PublicEndpointOnly:
    """Only the public endpoint is on: nodes go through NAT and the SGs do not apply."""

    plane: ControlPlane


@dataclass(frozen=True, slots=True)
class ControlPlaneUnreadable:
    """No control-plane SG is listed, or some listed could not be read."""

    plane: ControlPlane
    missing: tuple[str, ...]  # sorted


@dataclass(frozen=True, slots=True)
class EveryGroupAdmitted:
    """Some rule admits the API port from every instance group."""

    plane: ControlPlane
    sources: ApiPortSources


@dataclass(frozen=True, slots=True)
class BlockedUnlessPrefixLists:
    """Groups no rule admits, but prefix-list sources (not expanded) might cover them."""

    plane: ControlPlane
    sources: ApiPortSources
    blocked: tuple[GroupNetwork, ...]


@dataclass(frozen=True, slots=True)
class GroupsBlocked:
    """Groups no rule admits, every control-plane SG having been read."""

    plane: ControlPlane
    sources: ApiPortSources
    blocked: tuple[GroupNetwork, ...]


ControlPlaneVerdict = (
    PublicEndpointOnly
    | ControlPlaneUnreadable
    | EveryGroupAdmitted
    | BlockedUnlessPrefixLists
    | GroupsBlocked
)


def _admits_api_port(permission: IpPermission) -> bool:
    if permission.all_protocols:
        return True
    if permission.protocol in ("tcp", "6"):
        low, high = permission.from_port, permission.to_port
        return low is not None and high is not None and low <= API_PORT <= high
    return False


def _subnet_of(network: Any, allowed: Any) -> bool:
    # typeshed types subnet_of per address family; callers check the versions match.
    return bool(network.subnet_of(allowed))


def _covered(cidr: str, rule_cidrs: Sequence[str]) -> bool:
    try:
        network = ipaddress.ip_network(cidr, strict=False)
    except ValueError:
        return False
    for rule in rule_cidrs:
        try:
            allowed = ipaddress.ip_network(rule, strict=False)
        except ValueError:
            continue
        if network.version == allowed.version and _subnet_of(network, allowed):
            return True
    return False


def control_plane(eks: EksCluster) -> ControlPlane:
    """The EKS cluster's endpoints and control-plane security groups."""
    config = eks.vpc_config
    return ControlPlane(
        cluster=eks.name,
        security_group_ids=tuple(sorted(set(config.control_plane_security_group_ids))),
        private_access=config.endpoint_private_access,
        public_access=config.endpoint_public_access,
        public_access_cidrs=config.public_access_cidrs,
    )


def api_port_sources(security_groups: Sequence[SecurityGroup]) -> ApiPortSources:
    """The sources of every inbound rule of `security_groups` that admits the API port."""
    inbound = [
        perm for group in security_groups for perm in group.inbound if _admits_api_port(perm)
    ]
    return ApiPortSources(
        security_group_ids=tuple(sorted({sg for perm in inbound for sg in perm.source_group_ids})),
        ipv4_cidrs=tuple(sorted(cidr for perm in inbound for cidr in perm.ipv4_ranges)),
        prefix_lists=tuple(sorted(p for perm in inbound for p in perm.prefix_list_ids)),
    )


def admits_group(sources: ApiPortSources, group: GroupNetwork) -> bool:
    """By one of the group's SGs, or by CIDRs covering every one of its subnets."""
    by_group = any(sg in sources.security_group_ids for sg in group.security_group_ids)
    by_cidr = bool(group.subnet_cidrs) and all(
        _covered(cidr, sources.ipv4_cidrs) for cidr in group.subnet_cidrs
    )
    return by_group or by_cidr


def control_plane_verdict(
    eks: EksCluster,
    groups: Sequence[GroupNetwork],
    eks_security_groups: Sequence[SecurityGroup],
    missing_eks_security_groups: Sequence[str],
) -> ControlPlaneVerdict:
    """Whether the control plane admits every group on the API port, or why it is not judged."""
    plane = control_plane(eks)
    if plane.private_access is False:
        return PublicEndpointOnly(plane)
    if not plane.security_group_ids or missing_eks_security_groups:
        return ControlPlaneUnreadable(plane, tuple(sorted(missing_eks_security_groups)))
    sources = api_port_sources(eks_security_groups)
    blocked = tuple(group for group in groups if not admits_group(sources, group))
    if not blocked:
        return EveryGroupAdmitted(plane, sources)
    if sources.prefix_lists:
        return BlockedUnlessPrefixLists(plane, sources, blocked)
    return GroupsBlocked(plane, sources, blocked)


def _plane_evidence(plane: ControlPlane) -> dict[str, Any]:
    return {
        "eks_security_groups": list(plane.security_group_ids),
        "endpoint_private_access": plane.private_access,
        "endpoint_public_access": plane.public_access,
    }


def _sources_evidence(
    plane: ControlPlane, sources: ApiPortSources, blocked: Sequence[GroupNetwork] = ()
) -> dict[str, Any]:
    evidence = _plane_evidence(plane)
    evidence.update(
        source_groups=list(sources.security_group_ids),
        source_cidrs=list(sources.ipv4_cidrs),
        source_prefix_lists=list(sources.prefix_lists),
    )
    if blocked:
        evidence["blocked_groups"] = {g.name: list(g.security_group_ids) for g in blocked}
    return evidence


def word_public_endpoint_only(verdict: PublicEndpointOnly) -> Finding:
    """INFO: the control-plane SGs do not apply to a public-only endpoint."""
    plane = verdict.plane
    cidrs = list(plane.public_access_cidrs)
    return NETWORK_FINDINGS.info(
        f"EKS cluster {plane.cluster} has only a public API endpoint: nodes reach it through "
        f"NAT, so its security groups do not apply (public access CIDRs: "
        f"{', '.join(cidrs) or 'not reported'})",
        public_access_cidrs=cidrs,
        **_plane_evidence(plane),
    )


def word_control_plane_unreadable(verdict: ControlPlaneUnreadable) -> Finding:
    """INFO: without every control-plane SG, access is not judged."""
    plane, missing = verdict.plane, list(verdict.missing)
    return NETWORK_FINDINGS.info(
        f"Cannot judge whether EKS cluster {plane.cluster} admits HyperPod nodes on port "
        f"{API_PORT}: control-plane security groups not readable "
        f"({', '.join(missing) or 'none listed'})",
        missing=missing,
        **_plane_evidence(plane),
    )


def word_every_group_admitted(verdict: EveryGroupAdmitted) -> Finding:
    """PASS: every instance group reaches the API server."""
    sg_ids = list(verdict.plane.security_group_ids)
    return NETWORK_FINDINGS.passed(
        f"EKS control-plane security groups ({', '.join(sg_ids)}) admit port "
        f"{API_PORT} from every instance group",
        resources=sg_ids,
        **_sources_evidence(verdict.plane, verdict.sources),
    )


def word_blocked_unless_prefix_lists(verdict: BlockedUnlessPrefixLists) -> Finding:
    """INFO: the prefix lists triage cannot expand decide for the groups left."""
    names = ", ".join(g.name for g in verdict.blocked)
    return NETWORK_FINDINGS.info(
        f"EKS control-plane security groups admit port {API_PORT} from prefix lists "
        f"{', '.join(verdict.sources.prefix_lists)}, which triage cannot expand: check that "
        f"they cover instance group(s) {names}",
        resources=list(verdict.plane.security_group_ids),
        **_sources_evidence(verdict.plane, verdict.sources, verdict.blocked),
    )


def word_groups_blocked(verdict: GroupsBlocked) -> Finding:
    """FAIL P0: the named groups' nodes cannot reach the API server."""
    sg_ids = list(verdict.plane.security_group_ids)
    names = ", ".join(g.name for g in verdict.blocked)
    hyperpod_sgs = sorted({sg for g in verdict.blocked for sg in g.security_group_ids})
    return NETWORK_FINDINGS.fail(
        Priority.P0,
        f"No rule in the EKS control-plane security groups ({', '.join(sg_ids)}) admits "
        f"port {API_PORT} from instance group(s) {names} (security groups "
        f"{', '.join(hyperpod_sgs)} or their subnet CIDRs): nodes cannot reach the API "
        "server",
        resources=[*sg_ids, *hyperpod_sgs],
        **_sources_evidence(verdict.plane, verdict.sources, verdict.blocked),
    )


def word_control_plane(verdict: ControlPlaneVerdict) -> Finding:
    """The finding that states a control-plane access verdict."""
    match verdict:
        case PublicEndpointOnly():
            return word_public_endpoint_only(verdict)
        case ControlPlaneUnreadable():
            return word_control_plane_unreadable(verdict)
        case EveryGroupAdmitted():
            return word_every_group_admitted(verdict)
        case BlockedUnlessPrefixLists():
            return word_blocked_unless_prefix_lists(verdict)
        case GroupsBlocked():
            return word_groups_blocked(verdict)
        case _:
            assert_never(verdict)


def judge_control_plane_access(
    eks: EksCluster,
    groups: list[GroupNetwork],
    eks_security_groups: Sequence[SecurityGroup],
    missing_eks_security_groups: list[str],
) -> list[Finding]:
    """The EKS control-plane SGs admit 443 from every group's SG or subnet CIDRs.

    Conservative: FAIL only when the private endpoint is on, every EKS SG was read, and no
    rule could admit the group; anything it cannot judge (public-only endpoint, prefix-list
    sources, unreadable SGs) is INFO.
    """
    verdict = control_plane_verdict(eks, groups, eks_security_groups, missing_eks_security_groups)
    return [word_control_plane(verdict)]


def judge_eks_elsewhere(findings: Findings, location: EksElsewhere) -> Finding:
    """INFO, never FAIL: an EKS cluster in another account or region is not described."""
    where = []
    if location.eks_account != location.hyperpod_account:
        where.append(f"account {location.eks_account}")
    if location.eks_region != location.run_region:
        where.append(f"region {location.eks_region}")
    if not where:  # same account and run region, but the HyperPod ARN names another region
        where.append(f"region {location.eks_region}")
    return findings.info(
        f"EKS cluster {location.arn} is in {' / '.join(where)} (HyperPod: account "
        f"{location.hyperpod_account}, region {location.hyperpod_region}): not "
        "described (B.5 checks need access there)",
        resources=[location.arn],
        **location.as_evidence(),
    )


# -- registered checks --------------------------------------------------------------------


def _eks_or_finding(data: ClusterData) -> tuple[EksCluster | None, list[Finding]]:
    elsewhere = data.eks_cluster_elsewhere()
    if elsewhere is not None:
        return None, [judge_eks_elsewhere(CLUSTER_FINDINGS, elsewhere)]
    try:
        eks = data.eks_cluster()
    except ResourceNotFound as exc:
        # Not an access problem: the EKS cluster named in Orchestrator.Eks is gone.
        arn = data.eks_cluster_arn()
        return None, [
            CLUSTER_FINDINGS.fail(
                Priority.P0,
                f"EKS cluster {arn} named in the HyperPod Orchestrator config does not exist",
                resources=[arn],
                eks_cluster_arn=arn,
                error=exc.detail,
            )
        ]
    if eks is None:
        return None, []
    return eks, []


def group_networks(data: ClusterData, subnets: Sequence[Subnet]) -> list[GroupNetwork]:
    """Each instance group's effective SGs and subnet CIDRs (OverrideVpcConfig wins)."""
    cluster_config = data.cluster().vpc_config
    cidr_of = {s.subnet_id: s.cidr_block or "" for s in subnets}
    networks: list[GroupNetwork] = []
    for group in data.instance_groups():
        config = group.override_vpc or cluster_config
        networks.append(
            GroupNetwork(
                name=group.name or "?",
                security_group_ids=tuple(sorted(config.security_group_ids)),
                subnet_cidrs=tuple(sorted(cidr_of[s] for s in config.subnets if cidr_of.get(s))),
            )
        )
    return networks


@check(CLUSTER_FINDINGS, title="EKS cluster status and access", orchestrators=("eks",))
def eks_cluster(data: ClusterData) -> Iterable[Finding]:
    """The orchestrating EKS cluster is ACTIVE and uses API or API_AND_CONFIG_MAP auth."""
    eks, findings = _eks_or_finding(data)
    return judge_eks_cluster(eks) if eks is not None else findings


@check(NETWORK_FINDINGS, title="EKS and HyperPod networking", orchestrators=("eks",))
def eks_network(data: ClusterData) -> Iterable[Finding]:
    """EKS shares the HyperPod VPC and its control-plane SGs admit the nodes on 443."""
    elsewhere = data.eks_cluster_elsewhere()
    if elsewhere is not None:
        return [judge_eks_elsewhere(NETWORK_FINDINGS, elsewhere)]
    eks, _ = _eks_or_finding(data)
    if eks is None:
        return []  # eks-cluster reports a missing EKS cluster
    subnets, _missing = data.existing_subnets(data.cluster_subnet_ids())
    hyperpod_vpcs = sorted({s.vpc_id for s in subnets if s.vpc_id})
    findings = judge_eks_vpc(eks, hyperpod_vpcs)
    if eks.vpc_config.vpc_id not in hyperpod_vpcs:
        return findings  # reachability across VPCs is moot until they match
    sg_ids = list(eks.vpc_config.control_plane_security_group_ids)
    eks_groups, missing = (
        data.existing_security_groups(sg_ids)
        if eks.vpc_config.endpoint_private_access is not False
        else ((), [])
    )
    findings.extend(
        judge_control_plane_access(eks, group_networks(data, subnets), eks_groups, missing)
    )
    return findings
