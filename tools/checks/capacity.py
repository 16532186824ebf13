"""§ C: every instance group's EC2 type must be offered in an AZ where the group has a subnet.

Flexible instance groups list several types (InstanceTypeDetails / InstanceRequirements);
one of them offered in a subnet AZ is enough.

An offering (DescribeInstanceTypeOfferings, LocationType availability-zone) means the type
exists in that AZ, not that capacity is free right now: a passing check says so and points
to § C for InsufficientInstanceCapacity.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from tools.findings import Finding, Findings, Priority
from tools.registry import check
from tools.triage.data import ClusterData, ec2_type
from tools.triage.data.network_model import InstanceTypeOffering, Subnet
from tools.triage.data.sagemaker_model import InstanceGroup

CHECK_ID = "instance-type-offerings"
FINDINGS = Findings(CHECK_ID, "C")

_CAPACITY_NOTE = "an offering is not free capacity; InsufficientInstanceCapacity is covered in § C"


def group_subnet_ids(group: InstanceGroup, cluster_subnets: Sequence[str]) -> list[str]:
    """OverrideVpcConfig subnets when the group has them, else the cluster subnets."""
    override = group.override_vpc.subnets if group.override_vpc else ()
    return sorted(set(override or cluster_subnets))


def judge_offerings(
    groups: Sequence[InstanceGroup],
    cluster_subnets: list[str],
    subnets: Sequence[Subnet],
    offerings: Sequence[InstanceTypeOffering],
) -> list[Finding]:
    """FAIL P0 for a group none of whose types is offered in its subnets' AZs; else INFO."""
    az_of = {s.subnet_id: s.availability_zone for s in subnets}
    offered: dict[str, set[str]] = {}
    for offering in offerings:
        if offering.location_type != "availability-zone":
            continue
        offered.setdefault(offering.instance_type, set()).add(offering.location)
    findings: list[Finding] = []
    for group in groups:
        name = group.name or "?"
        types = [ec2_type(t) for t in group.instance_types]
        subnet_ids = group_subnet_ids(group, cluster_subnets)
        subnet_azs = {sid: az_of[sid] for sid in subnet_ids if az_of.get(sid)}
        by_type = {t: sorted(offered.get(t, set())) for t in types}
        evidence: dict[str, Any] = {
            "group": name,
            "instance_types": types,
            "subnet_azs": subnet_azs,
            "offered_azs_by_type": by_type,
        }
        if len(types) == 1:
            evidence.update(instance_type=types[0], offered_azs=by_type[types[0]])
        if not types:
            findings.append(
                FINDINGS.info(
                    f"Instance group {name}: no instance type reported (neither InstanceType "
                    "nor the InstanceTypeDetails / InstanceRequirements of a flexible group): "
                    "instance types not judged",
                    resources=subnet_ids,
                    **evidence,
                )
            )
            continue
        shown = ", ".join(types)
        if not subnet_azs:
            findings.append(
                FINDINGS.info(
                    f"Instance group {name}: no readable subnet, AZ offering of {shown} not judged",
                    resources=subnet_ids,
                    **evidence,
                )
            )
            continue
        matching = {
            t: sorted({az for az in subnet_azs.values() if az in by_type[t]}) for t in types
        }
        azs = ", ".join(sorted(set(subnet_azs.values())))
        if not any(matching.values()):
            if len(types) == 1:
                where = ", ".join(by_type[types[0]]) or "no AZ of this region"
                message = (
                    f"Instance group {name}: {types[0]} is not offered in its subnet AZ(s) "
                    f"{azs} (subnets {', '.join(sorted(subnet_azs))}); it is offered in {where}"
                )
            else:
                where = "; ".join(
                    f"{t} in {', '.join(by_type[t]) or 'no AZ of this region'}" for t in types
                )
                message = (
                    f"Instance group {name}: none of its instance types {shown} is offered in "
                    f"its subnet AZ(s) {azs} (subnets {', '.join(sorted(subnet_azs))}); "
                    f"offered: {where}"
                )
            findings.append(
                FINDINGS.fail(Priority.P0, message, resources=sorted(subnet_azs), **evidence)
            )
            continue
        placed = "; ".join(f"{t} in {', '.join(a)}" for t, a in matching.items() if a)
        unplaced = [t for t, a in matching.items() if not a]
        also = ""
        if unplaced:
            evidence["not_offered_in_subnet_azs"] = unplaced
            also = f"; {', '.join(unplaced)} cannot be placed in its subnet AZ(s) {azs}"
        if len(types) == 1:
            offered_where = (
                f"{types[0]} is offered in {', '.join(matching[types[0]])} where it has a subnet"
            )
        else:
            offered_where = f"offered where it has a subnet: {placed}{also}"
        findings.append(
            FINDINGS.info(
                f"Instance group {name}: {offered_where} ({_CAPACITY_NOTE})",
                resources=sorted(subnet_azs),
                note=_CAPACITY_NOTE,
                **evidence,
            )
        )
    return findings


@check(FINDINGS, title="Instance types offered in the subnet AZs")
def instance_type_offerings(data: ClusterData) -> Iterable[Finding]:
    """Each group's EC2 type is offered in the AZ of at least one of its subnets."""
    groups = data.instance_groups()
    cluster_subnets = list(data.cluster().vpc_config.subnets)
    subnets, _missing = data.existing_subnets(data.cluster_subnet_ids())
    types = [ec2_type(t) for g in groups for t in g.instance_types]
    return judge_offerings(groups, cluster_subnets, subnets, data.instance_type_offerings(types))
