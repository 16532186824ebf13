"""§ B.1: one VPC for every cluster subnet and security group, and an S3 gateway endpoint.

Rules are pure functions over the typed subnets, security groups and VPC endpoints; the
registered checks only fetch through `ClusterData` and hand them over.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

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


def judge_vpc_membership(
    subnets: Sequence[Subnet],
    missing_subnets: list[str],
    security_groups: Sequence[SecurityGroup],
    missing_security_groups: list[str],
    vpc_config_subnets: list[str],
) -> list[Finding]:
    """Every subnet and SG (cluster-level and OverrideVpcConfig) exists and shares one VPC."""
    findings: list[Finding] = []
    if missing_subnets:
        findings.append(
            MEMBERSHIP_FINDINGS.fail(
                Priority.P0,
                f"Subnet(s) {listing(missing_subnets)} in the cluster VPC configuration do "
                "not exist",
                resources=sorted(missing_subnets),
                missing_subnets=sorted(missing_subnets),
            )
        )
    if missing_security_groups:
        findings.append(
            MEMBERSHIP_FINDINGS.fail(
                Priority.P0,
                f"Security group(s) {listing(missing_security_groups)} in the cluster VPC "
                "configuration do not exist",
                resources=sorted(missing_security_groups),
                missing_security_groups=sorted(missing_security_groups),
            )
        )
    vpc_id = reference_vpc(subnets, vpc_config_subnets)
    if vpc_id is None:
        return findings
    placement = {s.subnet_id: s.vpc_id for s in subnets}
    placement.update({g.group_id: g.vpc_id for g in security_groups})
    odd = {rid: vpc for rid, vpc in placement.items() if vpc != vpc_id}
    if odd:
        where = ", ".join(f"{rid} in {vpc}" for rid, vpc in sorted(odd.items()))
        findings.append(
            MEMBERSHIP_FINDINGS.fail(
                Priority.P0,
                f"Cluster subnets and security groups are not all in {vpc_id} (the VPC of the "
                f"cluster-level subnets): {where}",
                resources=sorted(odd),
                cluster_vpc=vpc_id,
                placement=dict(sorted(placement.items())),
            )
        )
    else:
        findings.append(
            MEMBERSHIP_FINDINGS.passed(
                f"All {len(subnets)} subnet(s) and {len(security_groups)} security group(s) "
                f"are in {vpc_id}",
                resources=[vpc_id],
                cluster_vpc=vpc_id,
                placement=dict(sorted(placement.items())),
            )
        )
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
