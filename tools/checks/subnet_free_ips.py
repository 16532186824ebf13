"""§ B.6: free IP addresses left in every cluster subnet.

Rules are pure functions over DescribeSubnets output; the registered check only fetches
through `ClusterData`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tools.checks._network import cluster_subnets, managed_vpc_finding, uses_managed_vpc
from tools.findings import Finding, Priority, info, passed, warn
from tools.registry import check
from tools.triage.data import ClusterData

CHECK_FREE_IPS = "subnet-free-ips"

# Why 32: a p5.48xlarge can attach up to 32 EFA network interfaces, and each one that
# carries an IP takes an address from the subnet; on EKS the VPC CNI also keeps warm pod
# addresses per node. Below 32 free addresses a single GPU node replacement or scale-up
# may already fail with InsufficientFreeAddressesInSubnet, so it is a useful floor that
# does not need the per-type ENI count.
MIN_FREE_IPS = 32


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


@check(CHECK_FREE_IPS, section="B.6", title="Free IP addresses per subnet")
def subnet_free_ips(data: ClusterData) -> Iterable[Finding]:
    """Free addresses left in every cluster subnet."""
    if uses_managed_vpc(data.cluster()):
        return [managed_vpc_finding(CHECK_FREE_IPS, "B.6", "subnet free-IP counts")]
    return judge_free_ips(cluster_subnets(data))
