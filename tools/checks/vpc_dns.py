"""§ B.2: DNS support and DNS hostnames on the cluster VPC.

Rules are pure functions over DescribeVpcAttribute values; the registered check only
fetches through `ClusterData`.
"""

from __future__ import annotations

from collections.abc import Iterable

from tools.checks._network import (
    cluster_subnets,
    managed_vpc_finding,
    vpc_ids,
)
from tools.findings import Finding, Findings, Priority
from tools.registry import check
from tools.triage.data import ClusterData

CHECK_DNS = "vpc-dns"
DNS_FINDINGS = Findings(CHECK_DNS, "B.2")


def judge_dns(vpc_id: str, dns_support: bool, dns_hostnames: bool) -> list[Finding]:
    """Both VPC DNS attributes must be true; each false one is its own P0."""
    evidence = {"vpc": vpc_id, "enableDnsSupport": dns_support, "enableDnsHostnames": dns_hostnames}
    findings: list[Finding] = []
    if not dns_support:
        findings.append(
            DNS_FINDINGS.fail(
                Priority.P0,
                f"VPC {vpc_id} has enableDnsSupport=false: nodes cannot resolve AWS endpoints "
                "or the EKS API server",
                resources=[vpc_id],
                **evidence,
            )
        )
    if not dns_hostnames:
        findings.append(
            DNS_FINDINGS.fail(
                Priority.P0,
                f"VPC {vpc_id} has enableDnsHostnames=false: private DNS of interface "
                "endpoints and node hostnames do not work",
                resources=[vpc_id],
                **evidence,
            )
        )
    if not findings:
        findings.append(
            DNS_FINDINGS.passed(
                f"VPC {vpc_id} has enableDnsSupport and enableDnsHostnames enabled",
                resources=[vpc_id],
                **evidence,
            )
        )
    return findings


@check(DNS_FINDINGS, title="VPC DNS support and hostnames")
def vpc_dns(data: ClusterData) -> Iterable[Finding]:
    """enableDnsSupport and enableDnsHostnames on the cluster VPC."""
    if data.cluster().uses_managed_vpc:
        return [managed_vpc_finding(DNS_FINDINGS, "VPC DNS attributes")]
    findings: list[Finding] = []
    for vpc_id in vpc_ids(cluster_subnets(data)):
        support = data.vpc_attribute(vpc_id, "enableDnsSupport")
        hostnames = data.vpc_attribute(vpc_id, "enableDnsHostnames")
        findings.extend(judge_dns(vpc_id, support, hostnames))
    return findings
