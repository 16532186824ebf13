"""§ C: every instance group's EC2 type must be offered in an AZ where the group has a subnet.

An offering (DescribeInstanceTypeOfferings, LocationType availability-zone) means the type
exists in that AZ, not that capacity is free right now: a passing check says so and points
to § C for InsufficientInstanceCapacity.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tools.findings import Finding, Priority, fail, info
from tools.registry import check
from tools.triage.data import ClusterData, ec2_type

CHECK_ID = "instance-type-offerings"

_CAPACITY_NOTE = "an offering is not free capacity; InsufficientInstanceCapacity is covered in § C"


def group_subnet_ids(group: dict[str, Any], cluster_subnets: list[str]) -> list[str]:
    """OverrideVpcConfig subnets when the group has them, else the cluster subnets."""
    override = (group.get("OverrideVpcConfig") or {}).get("Subnets")
    return sorted(set(override or cluster_subnets))


def judge_offerings(
    groups: list[dict[str, Any]],
    cluster_subnets: list[str],
    subnets: list[dict[str, Any]],
    offerings: list[dict[str, Any]],
) -> list[Finding]:
    """FAIL P0 for a group whose type is offered in none of its subnets' AZs; else INFO."""
    az_of = {str(s.get("SubnetId")): str(s.get("AvailabilityZone", "")) for s in subnets}
    offered: dict[str, set[str]] = {}
    for offering in offerings:
        if offering.get("LocationType", "availability-zone") != "availability-zone":
            continue
        offered.setdefault(str(offering.get("InstanceType")), set()).add(
            str(offering.get("Location"))
        )
    findings: list[Finding] = []
    for group in groups:
        name = str(group.get("InstanceGroupName", "?"))
        instance_type = ec2_type(str(group.get("InstanceType", "")))
        subnet_ids = group_subnet_ids(group, cluster_subnets)
        subnet_azs = {sid: az_of[sid] for sid in subnet_ids if az_of.get(sid)}
        offered_azs = sorted(offered.get(instance_type, set()))
        evidence: dict[str, Any] = {
            "group": name,
            "instance_type": instance_type,
            "subnet_azs": subnet_azs,
            "offered_azs": offered_azs,
        }
        if not subnet_azs:
            findings.append(
                info(
                    CHECK_ID,
                    "C",
                    f"Instance group {name}: no readable subnet, AZ offering of "
                    f"{instance_type} not judged",
                    resources=subnet_ids,
                    **evidence,
                )
            )
            continue
        matching = sorted({az for az in subnet_azs.values() if az in offered_azs})
        azs = ", ".join(sorted(set(subnet_azs.values())))
        if not matching:
            where = ", ".join(offered_azs) or "no AZ of this region"
            findings.append(
                fail(
                    CHECK_ID,
                    Priority.P0,
                    "C",
                    f"Instance group {name}: {instance_type} is not offered in its subnet "
                    f"AZ(s) {azs} (subnets {', '.join(sorted(subnet_azs))}); it is offered "
                    f"in {where}",
                    resources=sorted(subnet_azs),
                    **evidence,
                )
            )
        else:
            findings.append(
                info(
                    CHECK_ID,
                    "C",
                    f"Instance group {name}: {instance_type} is offered in {', '.join(matching)} "
                    f"where it has a subnet ({_CAPACITY_NOTE})",
                    resources=sorted(subnet_azs),
                    note=_CAPACITY_NOTE,
                    **evidence,
                )
            )
    return findings


@check(CHECK_ID, section="C", title="Instance types offered in the subnet AZs")
def instance_type_offerings(data: ClusterData) -> Iterable[Finding]:
    """Each group's EC2 type is offered in the AZ of at least one of its subnets."""
    groups = data.instance_groups()
    cluster_subnets = list(data.cluster().get("VpcConfig", {}).get("Subnets", []))
    subnets, _missing = data.existing_subnets(data.cluster_subnet_ids())
    types = [ec2_type(str(g.get("InstanceType", ""))) for g in groups if g.get("InstanceType")]
    return judge_offerings(groups, cluster_subnets, subnets, data.instance_type_offerings(types))
