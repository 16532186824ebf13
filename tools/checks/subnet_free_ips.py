"""§ B.6: free IP addresses left in every cluster subnet, against what its nodes take.

A node takes a number of subnet addresses that depends on its instance type and on the
orchestrator. The HyperPod prerequisites give the P5 figures: on Slurm one address per
network card (32), on EKS 81 — the 50 addresses of the primary card's interface, which the
VPC CNI fills for pods, plus one for each of the other 31 cards. The rule generalises that
from DescribeInstanceTypes (NetworkInfo.MaximumNetworkCards, Ipv4AddressesPerInterface):

- Slurm: cards
- EKS: Ipv4AddressesPerInterface + cards - 1

When a type cannot be described, the P5 figures stand in (they are the largest the
prerequisites name, so the guess errs towards warning).

Each subnet is judged against the instance groups that may place nodes in it (their
OverrideVpcConfig subnets, else the cluster's):

- FAIL when the free count cannot hold one more node of the hungriest type there, or is
  below FAIL_FLOOR: the next replacement or scale-up fails. P0 while a group that uses the
  subnet is below its target count (the shortfall cannot be filled), else P1.
- WARN P1 when it cannot hold a replacement wave of any group there — WAVE_PERCENT % of
  the group's target count, at least WAVE_MIN_NODES nodes — or is below WARN_FLOOR.

Rules are pure functions over literal data; the registered check only fetches through
`ClusterData`. `tests/checks/test_subnet_free_ips.py` holds § B.6's text to these numbers.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from tools.checks._network import cluster_subnets, managed_vpc_finding
from tools.findings import Finding, Findings, Priority
from tools.probes.instance_facts import ec2_type
from tools.registry import check
from tools.triage.data import ClusterData
from tools.triage.data.network_model import InstanceTypeInfo, Subnet
from tools.triage.data.sagemaker_model import InstanceGroup

CHECK_FREE_IPS = "subnet-free-ips"
FREE_IPS_FINDINGS = Findings(CHECK_FREE_IPS, "B.6")

FAIL_FLOOR = 5  # below this, even a small node or a CNI warm address may not fit
WARN_FLOOR = 50  # headroom for endpoints, load balancers and other interfaces in the subnet
WAVE_PERCENT = 10  # a replacement wave: this share of a group's target count ...
WAVE_MIN_NODES = 2  # ... but never fewer nodes than this
# The prerequisites' P5 figures, used when a type cannot be described.
FALLBACK_SLURM, FALLBACK_EKS = 32, 81


@dataclass(frozen=True)
class Demand:
    """What one instance group asks of a subnet it may use."""

    group: str
    instance_type: str
    per_node: int  # addresses one node takes
    target: int  # the group's target count
    short: bool  # CurrentCount < TargetCount: nodes are still to be placed
    source: str  # "DescribeInstanceTypes" or "prerequisites fallback"

    @property
    def wave_nodes(self) -> int:
        return max(WAVE_MIN_NODES, math.ceil(self.target * WAVE_PERCENT / 100))

    @property
    def wave(self) -> int:
        return self.per_node * self.wave_nodes


def addresses_per_node(entry: InstanceTypeInfo | None, orchestrator: str) -> tuple[int, str]:
    """(addresses one node takes, where the figure comes from)."""
    cards = entry.network_cards if entry else None
    per_interface = entry.ipv4_addresses_per_interface if entry else None
    if orchestrator == "eks":
        if cards is not None and per_interface is not None and per_interface > 0:
            return per_interface + cards - 1, "DescribeInstanceTypes"
        return FALLBACK_EKS, "prerequisites fallback"
    if cards is not None:
        return cards, "DescribeInstanceTypes"
    return FALLBACK_SLURM, "prerequisites fallback"


def _count(value: int | None) -> int:
    return value if value is not None and value >= 0 else 0


def group_demands(
    groups: Sequence[InstanceGroup],
    cluster_subnet_ids: Sequence[str],
    described: dict[str, InstanceTypeInfo],
    orchestrator: str,
) -> dict[str, list[Demand]]:
    """Subnet id -> the demands of the groups that may place nodes there.

    `described` maps EC2 type -> its described instance type; the hungriest of a group's
    types is the group's per-node need.
    """
    demands: dict[str, list[Demand]] = {}
    for group in groups:
        name = group.name or "?"
        types = [ec2_type(t) for t in group.instance_types]
        if not types:
            continue
        needs = [(addresses_per_node(described.get(t), orchestrator), t) for t in types]
        (per_node, source), instance_type = max(needs, key=lambda item: item[0][0])
        target = _count(group.target_count) or _count(group.current_count)
        current = group.current_count
        short = current is not None and current < target
        override = group.override_vpc.subnets if group.override_vpc else ()
        for subnet_id in sorted(set(override or cluster_subnet_ids)):
            demands.setdefault(subnet_id, []).append(
                Demand(name, instance_type, per_node, target, short, source)
            )
    return demands


def judge_free_ips(
    subnets: Sequence[Subnet], demands: dict[str, list[Demand]] | None = None
) -> list[Finding]:
    """One finding per subnet: FAIL, WARN P1 or PASS by the rule in the module docstring;
    a subnet no group is known to use is judged against the floors alone."""
    findings: list[Finding] = []
    for subnet in sorted(subnets, key=lambda s: s.subnet_id):
        findings.append(_judge_subnet(subnet, (demands or {}).get(subnet.subnet_id, [])))
    return findings


class Headroom(StrEnum):
    """How a subnet's free addresses compare with what its groups may take."""

    UNKNOWN = "unknown"  # the subnet reports no free count
    NO_NODE = "no-node"  # not even one more node of the hungriest type, or below FAIL_FLOOR
    NO_WAVE = "no-wave"  # not a replacement wave, or below WARN_FLOOR
    ENOUGH = "enough"


@dataclass(frozen=True, slots=True)
class SubnetHeadroom:
    """The verdict on one subnet: its headroom and the figures that decided it."""

    subnet: Subnet
    headroom: Headroom
    demands: tuple[Demand, ...]
    fail_below: int
    warn_below: int
    hungriest: Demand | None  # the group whose one node takes the most addresses
    widest_wave: Demand | None  # the group whose replacement wave takes the most
    short_groups: tuple[str, ...]  # groups using the subnet still below their target


def subnet_headroom(subnet: Subnet, demands: Sequence[Demand]) -> SubnetHeadroom:
    """The rule of the module docstring for one subnet."""
    free = subnet.available_ip_count
    hungriest = max(demands, key=lambda d: d.per_node, default=None)
    widest_wave = max(demands, key=lambda d: d.wave, default=None)
    fail_below = max(FAIL_FLOOR, hungriest.per_node if hungriest else 0)
    warn_below = max(WARN_FLOOR, widest_wave.wave if widest_wave else 0)
    if free is None:
        headroom = Headroom.UNKNOWN
    elif free < fail_below:
        headroom = Headroom.NO_NODE
    elif free < warn_below:
        headroom = Headroom.NO_WAVE
    else:
        headroom = Headroom.ENOUGH
    return SubnetHeadroom(
        subnet=subnet,
        headroom=headroom,
        demands=tuple(demands),
        fail_below=fail_below,
        warn_below=warn_below,
        hungriest=hungriest,
        widest_wave=widest_wave,
        short_groups=tuple(sorted(d.group for d in demands if d.short)),
    )


def _evidence(verdict: SubnetHeadroom) -> dict[str, Any]:
    return {
        "subnet": verdict.subnet.subnet_id,
        "available_ips": verdict.subnet.available_ip_count,
        "cidr": verdict.subnet.cidr_block,
        "fail_below": verdict.fail_below,
        "warn_below": verdict.warn_below,
        "groups": {
            d.group: {
                "instance_type": d.instance_type,
                "addresses_per_node": d.per_node,
                "wave_nodes": d.wave_nodes,
                "source": d.source,
            }
            for d in verdict.demands
        },
    }


def _no_node_message(verdict: SubnetHeadroom) -> str:
    one, short = verdict.hungriest, verdict.short_groups
    what = (
        f"one more {one.instance_type} node of {one.group} takes {one.per_node}"
        if one and one.per_node >= FAIL_FLOOR
        else f"the floor is {FAIL_FLOOR}"
    )
    now = (
        f"; {', '.join(short)} {'is' if len(short) == 1 else 'are'} below target and "
        "cannot be filled"
        if short
        else ": the next node replacement or scale-up will fail"
    )
    return f"has only {verdict.subnet.available_ip_count} free IP addresses; {what}{now}"


def _no_wave_message(verdict: SubnetHeadroom) -> str:
    wave = verdict.widest_wave
    what = (
        f"a replacement wave of {wave.group} ({wave.wave_nodes} x {wave.instance_type}, "
        f"{wave.per_node} each) takes {wave.wave}"
        if wave and wave.wave >= WARN_FLOOR
        else f"the headroom floor is {WARN_FLOOR}"
    )
    return (
        f"has only {verdict.subnet.available_ip_count} free IP addresses; {what}: several "
        "replacements or a scale-up may fail"
    )


def word_headroom(verdict: SubnetHeadroom) -> Finding:
    """The finding that states one subnet's headroom, with the figures as evidence."""
    subnet_id, free = verdict.subnet.subnet_id, verdict.subnet.available_ip_count
    where = f"Subnet {subnet_id} ({verdict.subnet.cidr_block})"
    evidence = _evidence(verdict)
    if verdict.headroom is Headroom.UNKNOWN:
        return FREE_IPS_FINDINGS.info(
            f"Subnet {subnet_id} reports no AvailableIpAddressCount",
            resources=[subnet_id],
            **evidence,
        )
    if verdict.headroom is Headroom.NO_NODE:
        return FREE_IPS_FINDINGS.fail(
            Priority.P0 if verdict.short_groups else Priority.P1,
            f"{where} {_no_node_message(verdict)}",
            resources=[subnet_id],
            **evidence,
        )
    if verdict.headroom is Headroom.NO_WAVE:
        return FREE_IPS_FINDINGS.warn(
            Priority.P1, f"{where} {_no_wave_message(verdict)}", resources=[subnet_id], **evidence
        )
    return FREE_IPS_FINDINGS.passed(
        f"Subnet {subnet_id} has {free} free IP addresses (enough for a replacement wave)",
        resources=[subnet_id],
        **evidence,
    )


def _judge_subnet(subnet: Subnet, demands: list[Demand]) -> Finding:
    return word_headroom(subnet_headroom(subnet, demands))


@check(FREE_IPS_FINDINGS, title="Free IP addresses per subnet")
def subnet_free_ips(data: ClusterData) -> Iterable[Finding]:
    """Free addresses in every cluster subnet against what the nodes of its groups take."""
    if data.cluster().uses_managed_vpc:
        return [managed_vpc_finding(FREE_IPS_FINDINGS, "subnet free-IP counts")]
    groups = data.instance_groups()
    wanted = sorted({ec2_type(t) for g in groups for t in g.instance_types})
    # Unreadable types: the prerequisites' P5 figures stand in (see the module docstring).
    entries = data.optional(lambda: data.instance_types(wanted)) or ()
    described = {t.instance_type: t for t in entries}
    cluster_ids = data.cluster().vpc_config.subnets
    demands = group_demands(groups, cluster_ids, described, data.orchestrator)
    return judge_free_ips(cluster_subnets(data), demands)
