"""§ C: every instance group's EC2 type must be offered in an AZ where the group has a subnet.

Flexible instance groups list several types (InstanceTypeDetails / InstanceRequirements);
one of them offered in a subnet AZ is enough.

An offering (DescribeInstanceTypeOfferings, LocationType availability-zone) means the type
exists in that AZ, not that capacity is free right now: a passing check says so and points
to § C for InsufficientInstanceCapacity.

The rule (`group_placement`) decides a `GroupPlacement` per group; `word_placement` alone
turns one into the finding a person reads.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum

from tools.findings import Finding, Findings, Priority
from tools.registry import check
from tools.triage.data import ClusterData, ec2_type
from tools.triage.data.network_model import InstanceTypeOffering, Subnet
from tools.triage.data.sagemaker_model import InstanceGroup

CHECK_ID = "instance-type-offerings"
FINDINGS = Findings(CHECK_ID, "C")

_CAPACITY_NOTE = "an offering is not free capacity; InsufficientInstanceCapacity is covered in § C"


class Placement(Enum):
    """Whether a group's instance types can be placed where the group has subnets."""

    NO_INSTANCE_TYPE = "no instance type"  # not judged: nothing to look up
    NO_READABLE_SUBNET = "no readable subnet"  # not judged: no subnet AZ to compare with
    NOT_OFFERED = "not offered"  # no type is offered in any subnet AZ
    OFFERED = "offered"  # at least one type is offered in a subnet AZ


@dataclass(frozen=True, slots=True)
class GroupPlacement:
    """What the rule found for one instance group. `offered_azs` holds every AZ of the
    region offering each type; `placeable_azs` the group's subnet AZs among them (empty
    unless the group was judged)."""

    group: str
    placement: Placement
    instance_types: tuple[str, ...]
    subnet_ids: tuple[str, ...]
    subnet_azs: Mapping[str, str]  # readable subnet id -> its AZ, in subnet id order
    offered_azs: Mapping[str, tuple[str, ...]]
    placeable_azs: Mapping[str, tuple[str, ...]]

    @property
    def unplaceable_types(self) -> tuple[str, ...]:
        """The types offered in none of the group's subnet AZs (when others are)."""
        return tuple(t for t, azs in self.placeable_azs.items() if not azs)


def group_subnet_ids(group: InstanceGroup, cluster_subnets: Sequence[str]) -> list[str]:
    """OverrideVpcConfig subnets when the group has them, else the cluster subnets."""
    override = group.override_vpc.subnets if group.override_vpc else ()
    return sorted(set(override or cluster_subnets))


def zonal_offerings(offerings: Iterable[InstanceTypeOffering]) -> dict[str, set[str]]:
    """The AZs each instance type is offered in; region-wide offerings place nothing."""
    offered: dict[str, set[str]] = {}
    for offering in offerings:
        if offering.location_type == "availability-zone":
            offered.setdefault(offering.instance_type, set()).add(offering.location)
    return offered


def group_placement(
    group: InstanceGroup,
    cluster_subnets: Sequence[str],
    az_of: Mapping[str, str],
    offered: Mapping[str, set[str]],
) -> GroupPlacement:
    """Decide whether any of `group`'s types is offered in the AZ of one of its subnets
    (`az_of`: subnet id -> AZ of the readable subnets; `offered`: `zonal_offerings`)."""
    types = tuple(ec2_type(t) for t in group.instance_types)
    subnet_ids = tuple(group_subnet_ids(group, cluster_subnets))
    subnet_azs = {sid: az_of[sid] for sid in subnet_ids if az_of.get(sid)}
    offered_azs = {t: tuple(sorted(offered.get(t, set()))) for t in types}
    placeable: dict[str, tuple[str, ...]] = {}
    if not types:
        placement = Placement.NO_INSTANCE_TYPE
    elif not subnet_azs:
        placement = Placement.NO_READABLE_SUBNET
    else:
        placeable = {
            t: tuple(sorted({az for az in subnet_azs.values() if az in offered_azs[t]}))
            for t in types
        }
        placement = Placement.OFFERED if any(placeable.values()) else Placement.NOT_OFFERED
    return GroupPlacement(
        group=group.name or "?",
        placement=placement,
        instance_types=types,
        subnet_ids=subnet_ids,
        subnet_azs=subnet_azs,
        offered_azs=offered_azs,
        placeable_azs=placeable,
    )


# -- words ------------------------------------------------------------------------------


def _evidence(verdict: GroupPlacement) -> dict[str, object]:
    types = list(verdict.instance_types)
    by_type = {t: list(azs) for t, azs in verdict.offered_azs.items()}
    evidence: dict[str, object] = {
        "group": verdict.group,
        "instance_types": types,
        "subnet_azs": dict(verdict.subnet_azs),
        "offered_azs_by_type": by_type,
    }
    if len(types) == 1:
        evidence.update(instance_type=types[0], offered_azs=by_type[types[0]])
    return evidence


def _where_offered(azs: Sequence[str]) -> str:
    return ", ".join(azs) or "no AZ of this region"


def _not_offered_message(verdict: GroupPlacement, azs: str) -> str:
    name, types = verdict.group, verdict.instance_types
    subnets = ", ".join(sorted(verdict.subnet_azs))
    if len(types) == 1:
        where = _where_offered(verdict.offered_azs[types[0]])
        return (
            f"Instance group {name}: {types[0]} is not offered in its subnet AZ(s) {azs} "
            f"(subnets {subnets}); it is offered in {where}"
        )
    where = "; ".join(f"{t} in {_where_offered(verdict.offered_azs[t])}" for t in types)
    return (
        f"Instance group {name}: none of its instance types {', '.join(types)} is offered in "
        f"its subnet AZ(s) {azs} (subnets {subnets}); offered: {where}"
    )


def _offered_where(verdict: GroupPlacement, azs: str) -> str:
    types = verdict.instance_types
    if len(types) == 1:
        azs_of_type = ", ".join(verdict.placeable_azs[types[0]])
        return f"{types[0]} is offered in {azs_of_type} where it has a subnet"
    placed = "; ".join(f"{t} in {', '.join(a)}" for t, a in verdict.placeable_azs.items() if a)
    unplaced = verdict.unplaceable_types
    also = f"; {', '.join(unplaced)} cannot be placed in its subnet AZ(s) {azs}" if unplaced else ""
    return f"offered where it has a subnet: {placed}{also}"


def word_placement(verdict: GroupPlacement) -> Finding:
    """The finding of one group's placement: INFO when not judged or offered, FAIL P0 when
    no type is offered in a subnet AZ."""
    name, evidence = verdict.group, _evidence(verdict)
    if verdict.placement is Placement.NO_INSTANCE_TYPE:
        return FINDINGS.info(
            f"Instance group {name}: no instance type reported (neither InstanceType "
            "nor the InstanceTypeDetails / InstanceRequirements of a flexible group): "
            "instance types not judged",
            resources=list(verdict.subnet_ids),
            **evidence,
        )
    if verdict.placement is Placement.NO_READABLE_SUBNET:
        return FINDINGS.info(
            f"Instance group {name}: no readable subnet, AZ offering of "
            f"{', '.join(verdict.instance_types)} not judged",
            resources=list(verdict.subnet_ids),
            **evidence,
        )
    azs = ", ".join(sorted(set(verdict.subnet_azs.values())))
    if verdict.placement is Placement.NOT_OFFERED:
        message = _not_offered_message(verdict, azs)
        return FINDINGS.fail(Priority.P0, message, resources=sorted(verdict.subnet_azs), **evidence)
    if verdict.unplaceable_types:
        evidence["not_offered_in_subnet_azs"] = list(verdict.unplaceable_types)
    return FINDINGS.info(
        f"Instance group {name}: {_offered_where(verdict, azs)} ({_CAPACITY_NOTE})",
        resources=sorted(verdict.subnet_azs),
        note=_CAPACITY_NOTE,
        **evidence,
    )


def judge_offerings(
    groups: Sequence[InstanceGroup],
    cluster_subnets: list[str],
    subnets: Sequence[Subnet],
    offerings: Sequence[InstanceTypeOffering],
) -> list[Finding]:
    """FAIL P0 for a group none of whose types is offered in its subnets' AZs; else INFO."""
    az_of = {s.subnet_id: s.availability_zone for s in subnets}
    offered = zonal_offerings(offerings)
    return [word_placement(group_placement(g, cluster_subnets, az_of, offered)) for g in groups]


@check(FINDINGS, title="Instance types offered in the subnet AZs")
def instance_type_offerings(data: ClusterData) -> Iterable[Finding]:
    """Each group's EC2 type is offered in the AZ of at least one of its subnets."""
    groups = data.instance_groups()
    cluster_subnets = list(data.cluster().vpc_config.subnets)
    subnets, _missing = data.existing_subnets(data.cluster_subnet_ids())
    types = [ec2_type(t) for g in groups for t in g.instance_types]
    return judge_offerings(groups, cluster_subnets, subnets, data.instance_type_offerings(types))
