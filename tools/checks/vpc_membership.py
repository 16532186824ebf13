"""§ B.1: one VPC for every cluster subnet and security group, and an S3 gateway endpoint.

Rules are pure functions over the typed subnets, security groups and VPC endpoints; the
registered checks only fetch through `ClusterData` and hand them over.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from tools.checks._network import (
    cluster_subnets,
    listing,
    managed_vpc_finding,
    vpc_ids,
)
from tools.findings import Finding, Findings, Priority
from tools.registry import check
from tools.triage.data import ClusterData
from tools.triage.data.network_model import SecurityGroup, Subnet, VpcEndpoint

CHECK_MEMBERSHIP = "vpc-membership"
MEMBERSHIP_FINDINGS = Findings(CHECK_MEMBERSHIP, "B.1")
CHECK_S3 = "s3-gateway-endpoint"
S3_FINDINGS = Findings(CHECK_S3, "B.1")


def reference_vpc(subnets: Sequence[Subnet], vpc_config_subnets: list[str]) -> str | None:
    """The VPC the cluster lives in: that of its cluster-level subnets (most common)."""
    level = [s for s in subnets if s.subnet_id in vpc_config_subnets] or subnets
    counts = Counter(s.vpc_id for s in level if s.vpc_id)
    if not counts:
        return None
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))[0][0]


class Missing(StrEnum):
    SUBNETS = "subnets"
    SECURITY_GROUPS = "security-groups"


@dataclass(frozen=True, slots=True)
class MissingResources:
    """Resources the cluster's VPC configuration names that do not exist (ids sorted)."""

    kind: Missing
    ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class VpcPlacement:
    """Where the cluster's subnets and security groups live against the cluster VPC."""

    vpc_id: str  # the VPC of the cluster-level subnets
    placement: tuple[tuple[str, str | None], ...]  # (resource id, its VPC), by id
    outside: tuple[tuple[str, str | None], ...]  # those not in vpc_id, by id
    subnets: int
    security_groups: int


def missing_verdicts(
    missing_subnets: Sequence[str], missing_security_groups: Sequence[str]
) -> list[MissingResources]:
    """The rule that every named subnet and security group exists."""
    found = ((Missing.SUBNETS, missing_subnets), (Missing.SECURITY_GROUPS, missing_security_groups))
    return [MissingResources(kind, tuple(sorted(ids))) for kind, ids in found if ids]


def placement_verdict(
    subnets: Sequence[Subnet],
    security_groups: Sequence[SecurityGroup],
    vpc_config_subnets: list[str],
) -> VpcPlacement | None:
    """The rule that every subnet and security group shares the cluster VPC (None when no
    subnet names a VPC)."""
    vpc_id = reference_vpc(subnets, vpc_config_subnets)
    if vpc_id is None:
        return None
    placement = {s.subnet_id: s.vpc_id for s in subnets}
    placement.update({g.group_id: g.vpc_id for g in security_groups})
    ordered = tuple(sorted(placement.items()))
    outside = tuple((rid, vpc) for rid, vpc in ordered if vpc != vpc_id)
    return VpcPlacement(vpc_id, ordered, outside, len(subnets), len(security_groups))


def word_missing(verdict: MissingResources) -> Finding:
    """The FAIL P0 that names resources the configuration names but AWS does not have."""
    ids = list(verdict.ids)
    if verdict.kind is Missing.SUBNETS:
        return MEMBERSHIP_FINDINGS.fail(
            Priority.P0,
            f"Subnet(s) {listing(ids)} in the cluster VPC configuration do not exist",
            resources=ids,
            missing_subnets=ids,
        )
    return MEMBERSHIP_FINDINGS.fail(
        Priority.P0,
        f"Security group(s) {listing(ids)} in the cluster VPC configuration do not exist",
        resources=ids,
        missing_security_groups=ids,
    )


def word_placement(verdict: VpcPlacement) -> Finding:
    """FAIL P0 naming what sits outside the cluster VPC, else PASS."""
    vpc_id, placement = verdict.vpc_id, dict(verdict.placement)
    if verdict.outside:
        where = ", ".join(f"{rid} in {vpc}" for rid, vpc in verdict.outside)
        return MEMBERSHIP_FINDINGS.fail(
            Priority.P0,
            f"Cluster subnets and security groups are not all in {vpc_id} (the VPC of the "
            f"cluster-level subnets): {where}",
            resources=[rid for rid, _ in verdict.outside],
            cluster_vpc=vpc_id,
            placement=placement,
        )
    return MEMBERSHIP_FINDINGS.passed(
        f"All {verdict.subnets} subnet(s) and {verdict.security_groups} security group(s) "
        f"are in {vpc_id}",
        resources=[vpc_id],
        cluster_vpc=vpc_id,
        placement=placement,
    )


def judge_vpc_membership(
    subnets: Sequence[Subnet],
    missing_subnets: list[str],
    security_groups: Sequence[SecurityGroup],
    missing_security_groups: list[str],
    vpc_config_subnets: list[str],
) -> list[Finding]:
    """Every subnet and SG (cluster-level and OverrideVpcConfig) exists and shares one VPC."""
    findings = [word_missing(v) for v in missing_verdicts(missing_subnets, missing_security_groups)]
    placement = placement_verdict(subnets, security_groups, vpc_config_subnets)
    if placement is not None:
        findings.append(word_placement(placement))
    return findings


def judge_s3_gateway(vpc_id: str, endpoints: Sequence[VpcEndpoint]) -> list[Finding]:
    """WARN P2 without an available S3 gateway endpoint in the cluster VPC."""
    s3 = [e for e in endpoints if e.service == "s3" and e.active]
    gateways = [e for e in s3 if e.endpoint_type == "Gateway"]
    evidence = {
        "vpc": vpc_id,
        "s3_endpoints": {e.vpc_endpoint_id: e.endpoint_type for e in s3},
    }
    if gateways:
        ids = sorted(e.vpc_endpoint_id for e in gateways)
        return [
            S3_FINDINGS.passed(
                f"VPC {vpc_id} has an S3 gateway endpoint ({listing(ids)})",
                resources=[vpc_id, *ids],
                **evidence,
            )
        ]
    extra = " (only an S3 interface endpoint exists)" if s3 else ""
    return [
        S3_FINDINGS.warn(
            Priority.P2,
            f"VPC {vpc_id} has no S3 gateway endpoint{extra}: lifecycle scripts and images "
            "are pulled from S3 through NAT or not at all",
            resources=[vpc_id],
            **evidence,
        )
    ]


@check(MEMBERSHIP_FINDINGS, title="Subnets and security groups in one VPC")
def vpc_membership(data: ClusterData) -> Iterable[Finding]:
    """Every cluster and OverrideVpcConfig subnet and SG exists and shares one VPC."""
    if data.cluster().uses_managed_vpc:
        return [managed_vpc_finding(MEMBERSHIP_FINDINGS, "the one-VPC rule for subnets and SGs")]
    subnets, missing_subnets = data.existing_subnets(data.cluster_subnet_ids())
    groups, missing_groups = data.existing_security_groups(data.cluster_security_group_ids())
    vpc_config = list(data.cluster().vpc_config.subnets)
    return judge_vpc_membership(subnets, missing_subnets, groups, missing_groups, vpc_config)


@check(S3_FINDINGS, title="S3 gateway endpoint")
def s3_gateway_endpoint(data: ClusterData) -> Iterable[Finding]:
    """An S3 gateway endpoint in the cluster VPC (lifecycle scripts and images come from S3)."""
    if data.cluster().uses_managed_vpc:
        return [managed_vpc_finding(S3_FINDINGS, "S3 gateway endpoint")]
    findings: list[Finding] = []
    for vpc_id in vpc_ids(cluster_subnets(data)):
        findings.extend(judge_s3_gateway(vpc_id, data.vpc_endpoints(vpc_id)))
    return findings
