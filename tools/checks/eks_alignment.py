"""§ B.5: the orchestrating EKS cluster and HyperPod must line up (EKS clusters only).

Two checks so that a role without EC2 read access still gets the EKS-only verdicts:
`eks-cluster` judges DescribeCluster alone (status, authentication mode); `eks-network`
adds EC2 data (same VPC, the control plane admits the HyperPod nodes on 443).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

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


def judge_eks_cluster(eks: EksCluster) -> list[Finding]:
    """Status ACTIVE and an authentication mode that allows access entries."""
    name = eks.name
    status = eks.status
    findings: list[Finding] = []
    if status == "ACTIVE":
        findings.append(CLUSTER_FINDINGS.passed(f"EKS cluster {name} is ACTIVE", status=status))
    elif status == "UPDATING":
        # The API server keeps serving during an update; nothing is broken yet.
        findings.append(
            CLUSTER_FINDINGS.warn(
                Priority.P2,
                f"EKS cluster {name} is UPDATING: re-run triage once the update finishes",
                resources=[name],
                status=status,
            )
        )
    else:
        findings.append(
            CLUSTER_FINDINGS.fail(
                Priority.P0,
                f"EKS cluster {name} is {status}, not ACTIVE: HyperPod nodes cannot join it",
                resources=[name],
                status=status,
            )
        )
    mode = eks.authentication_mode
    if mode is None:
        findings.append(
            CLUSTER_FINDINGS.info(
                f"EKS cluster {name} reports no authenticationMode: HyperPod needs API or "
                "API_AND_CONFIG_MAP",
                authentication_mode=None,
            )
        )
    elif mode in _SUPPORTED_AUTH:
        findings.append(
            CLUSTER_FINDINGS.passed(
                f"EKS cluster {name} uses authentication mode {mode}", authentication_mode=mode
            )
        )
    else:
        findings.append(
            CLUSTER_FINDINGS.fail(
                Priority.P0,
                f"EKS cluster {name} uses authentication mode {mode}: HyperPod needs API or "
                "API_AND_CONFIG_MAP (access entries)",
                resources=[name],
                authentication_mode=mode,
            )
        )
    return findings


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


def _covered(cidr: str, rule_cidrs: list[str]) -> bool:
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
    name = eks.name
    config = eks.vpc_config
    sg_ids = sorted(set(config.control_plane_security_group_ids))
    evidence: dict[str, Any] = {
        "eks_security_groups": sg_ids,
        "endpoint_private_access": config.endpoint_private_access,
        "endpoint_public_access": config.endpoint_public_access,
    }
    if config.endpoint_private_access is False:
        cidrs = list(config.public_access_cidrs)
        return [
            NETWORK_FINDINGS.info(
                f"EKS cluster {name} has only a public API endpoint: nodes reach it through "
                f"NAT, so its security groups do not apply (public access CIDRs: "
                f"{', '.join(cidrs) or 'not reported'})",
                public_access_cidrs=cidrs,
                **evidence,
            )
        ]
    if not sg_ids or missing_eks_security_groups:
        return [
            NETWORK_FINDINGS.info(
                f"Cannot judge whether EKS cluster {name} admits HyperPod nodes on port "
                f"{API_PORT}: control-plane security groups not readable "
                f"({', '.join(sorted(missing_eks_security_groups)) or 'none listed'})",
                missing=sorted(missing_eks_security_groups),
                **evidence,
            )
        ]
    inbound = [
        perm for group in eks_security_groups for perm in group.inbound if _admits_api_port(perm)
    ]
    source_groups = {sg for perm in inbound for sg in perm.source_group_ids}
    source_cidrs = [cidr for perm in inbound for cidr in perm.ipv4_ranges]
    prefix_lists = sorted(p for perm in inbound for p in perm.prefix_list_ids)
    evidence.update(
        source_groups=sorted(source_groups),
        source_cidrs=sorted(source_cidrs),
        source_prefix_lists=prefix_lists,
    )
    blocked: list[GroupNetwork] = []
    for group in groups:
        by_group = any(sg in source_groups for sg in group.security_group_ids)
        by_cidr = bool(group.subnet_cidrs) and all(
            _covered(cidr, source_cidrs) for cidr in group.subnet_cidrs
        )
        if not (by_group or by_cidr):
            blocked.append(group)
    if not blocked:
        return [
            NETWORK_FINDINGS.passed(
                f"EKS control-plane security groups ({', '.join(sg_ids)}) admit port "
                f"{API_PORT} from every instance group",
                resources=sg_ids,
                **evidence,
            )
        ]
    names = ", ".join(g.name for g in blocked)
    hyperpod_sgs = sorted({sg for g in blocked for sg in g.security_group_ids})
    evidence["blocked_groups"] = {g.name: list(g.security_group_ids) for g in blocked}
    if prefix_lists:
        return [
            NETWORK_FINDINGS.info(
                f"EKS control-plane security groups admit port {API_PORT} from prefix lists "
                f"{', '.join(prefix_lists)}, which triage cannot expand: check that they "
                f"cover instance group(s) {names}",
                resources=sg_ids,
                **evidence,
            )
        ]
    return [
        NETWORK_FINDINGS.fail(
            Priority.P0,
            f"No rule in the EKS control-plane security groups ({', '.join(sg_ids)}) admits "
            f"port {API_PORT} from instance group(s) {names} (security groups "
            f"{', '.join(hyperpod_sgs)} or their subnet CIDRs): nodes cannot reach the API "
            "server",
            resources=[*sg_ids, *hyperpod_sgs],
            **evidence,
        )
    ]


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
