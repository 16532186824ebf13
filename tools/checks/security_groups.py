"""§ A: EFA needs the security groups of every instance to allow all traffic among themselves.

The rules an instance gets are the union of all its security groups, so the rule is judged
per instance group on its effective set (OverrideVpcConfig SGs, else the cluster SGs). A
set used only by instance groups whose type does not support EFA (a CPU controller or login
group) needs no self rules: INFO, not FAIL.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tools.aws.errors import AwsAccessError
from tools.checks._network import managed_vpc_finding, uses_managed_vpc
from tools.findings import Finding, Priority, Status, fail, info, passed, warn
from tools.registry import check
from tools.triage.data import ClusterData, ec2_type

CHECK_ID = "efa-security-groups"


def _allows_all_from_self(permissions: list[dict[str, Any]], group_id: str) -> bool:
    return any(
        perm.get("IpProtocol") == "-1"
        and any(pair.get("GroupId") == group_id for pair in perm.get("UserIdGroupPairs", []))
        for perm in permissions
    )


def _allows_all_to_internet(permissions: list[dict[str, Any]]) -> bool:
    return any(
        perm.get("IpProtocol") == "-1"
        and any(r.get("CidrIp") == "0.0.0.0/0" for r in perm.get("IpRanges", []))
        for perm in permissions
    )


def _allows_all_within(permissions: list[dict[str, Any]], group_ids: set[str]) -> bool:
    return any(
        perm.get("IpProtocol") == "-1"
        and any(pair.get("GroupId") in group_ids for pair in perm.get("UserIdGroupPairs", []))
        for perm in permissions
    )


def effective_security_groups(cluster: dict[str, Any]) -> dict[str, list[str]]:
    """Instance group name -> the SGs its instances carry (OverrideVpcConfig, else cluster).

    A cluster that reports no instance groups is judged on its cluster-level SGs.
    """
    cluster_sgs = list((cluster.get("VpcConfig") or {}).get("SecurityGroupIds") or [])
    sets: dict[str, list[str]] = {}
    for group in cluster.get("InstanceGroups") or []:
        override = (group.get("OverrideVpcConfig") or {}).get("SecurityGroupIds")
        sets[str(group.get("InstanceGroupName", "?"))] = sorted(set(override or cluster_sgs))
    if not sets and cluster_sgs:
        sets["cluster"] = sorted(set(cluster_sgs))
    return sets


def _self_rules(group: dict[str, Any]) -> tuple[bool, bool]:
    group_id = str(group.get("GroupId"))
    return (
        _allows_all_from_self(group.get("IpPermissions", []), group_id),
        _allows_all_from_self(group.get("IpPermissionsEgress", []), group_id),
    )


def _missing_directions(group: dict[str, Any]) -> list[str]:
    inbound, outbound = _self_rules(group)
    return [d for d, ok in (("inbound", inbound), ("outbound", outbound)) if not ok]


def judge_security_groups(
    groups: list[dict[str, Any]],
    group_sets: dict[str, list[str]],
    no_efa: dict[str, str] | None = None,
) -> list[Finding]:
    """Judged per instance group on the union of its SGs (the rules an instance gets).

    FAIL P0 when no SG of the set has both all-traffic self rules (and the set's rules do
    not together allow all traffic within it); an SG without them beside one that has them
    is INFO. WARN P1 when no SG of the set allows all outbound traffic to 0.0.0.0/0.
    `no_efa` (instance group name -> its instance type) names the groups whose type does
    not support EFA: a set used only by them needs no self rules (INFO, not FAIL).
    """
    by_id = {str(g.get("GroupId")): g for g in groups}
    wanted = sorted({sg for ids in group_sets.values() for sg in ids})
    findings: list[Finding] = [
        fail(
            CHECK_ID,
            Priority.P0,
            "A",
            f"Security group {missing} does not exist",
            resources=[missing],
        )
        for missing in wanted
        if missing not in by_id
    ]
    # Instance groups with the same SG set are judged once, together.
    users: dict[tuple[str, ...], list[str]] = {}
    for name, ids in sorted(group_sets.items()):
        users.setdefault(tuple(sorted(set(ids))), []).append(name)
    several = len(users) > 1
    for set_ids, names in sorted(users.items()):
        present = [by_id[sg] for sg in set_ids if sg in by_id]
        if present:
            findings.extend(_judge_set(present, names, several, no_efa or {}))
    return findings


def _judge_set(
    present: list[dict[str, Any]], names: list[str], several: bool, no_efa: dict[str, str]
) -> list[Finding]:
    ids = [str(g.get("GroupId")) for g in present]
    who = f"Instance group(s) {', '.join(names)}: " if several else ""
    base: dict[str, Any] = {"instance_groups": names, "security_groups": ids}
    covering = [g for g in present if not _missing_directions(g)]
    findings: list[Finding] = []
    for group in present:
        group_id = str(group.get("GroupId"))
        inbound, outbound = _self_rules(group)
        evidence = {"inbound_self_all": inbound, "outbound_self_all": outbound, **base}
        if group in covering:
            findings.append(
                passed(
                    CHECK_ID,
                    "A",
                    f"{who}Security group {group_id} allows all traffic to and from itself",
                    resources=[group_id],
                    **evidence,
                )
            )
        elif covering:
            cover = ", ".join(str(g.get("GroupId")) for g in covering)
            findings.append(
                info(
                    CHECK_ID,
                    "A",
                    f"{who}Security group {group_id} lacks the all-traffic "
                    f"{' and '.join(_missing_directions(group))} rule referencing itself, but "
                    f"the same instances also carry {cover}, which allows all traffic to and "
                    "from itself (EFA is covered)",
                    resources=[group_id],
                    covered_by=[str(g.get("GroupId")) for g in covering],
                    **evidence,
                )
            )
    if not covering:
        uncovered = _uncovered(present, who, base)
        if uncovered.status is Status.FAIL and names and all(n in no_efa for n in names):
            types = ", ".join(sorted({no_efa[n] for n in names}))
            shown = ", ".join(uncovered.resources)
            uncovered = info(
                CHECK_ID,
                "A",
                f"{who}EFA not supported on {types}; self rules not required (security "
                f"group{'s' if len(uncovered.resources) != 1 else ''} {shown} "
                "without all-traffic rules referencing itself)",
                resources=uncovered.resources,
                efa_supported=False,
                instance_types=sorted({no_efa[n] for n in names}),
                **uncovered.evidence,
            )
        findings.append(uncovered)
    if not any(_allows_all_to_internet(g.get("IpPermissionsEgress", [])) for g in present):
        if len(ids) == 1:
            what = f"Security group {ids[0]} has no"
        else:
            what = f"None of security groups {', '.join(ids)} has an"
        findings.append(
            warn(
                CHECK_ID,
                Priority.P1,
                "A",
                f"{who}{what} all-traffic outbound rule to 0.0.0.0/0 (nodes may not reach AWS "
                "endpoints)",
                resources=ids,
                **base,
            )
        )
    return findings


def _uncovered(present: list[dict[str, Any]], who: str, base: dict[str, Any]) -> Finding:
    """No SG of the set has both self rules: FAIL, unless the rules are split across SGs
    of the set so that together they still admit all traffic between its instances."""
    ids = [str(g.get("GroupId")) for g in present]
    members = set(ids)
    inbound = any(_allows_all_within(g.get("IpPermissions", []), members) for g in present)
    outbound = any(_allows_all_within(g.get("IpPermissionsEgress", []), members) for g in present)
    missing = {str(g.get("GroupId")): _missing_directions(g) for g in present}
    evidence = {"inbound_within_set": inbound, "outbound_within_set": outbound, **base}
    if inbound and outbound:
        return passed(
            CHECK_ID,
            "A",
            f"{who}No single security group allows all traffic to and from itself, but the "
            f"rules of {', '.join(ids)} together allow all traffic between instances that "
            "carry them all",
            resources=ids,
            missing_self_rules=missing,
            **evidence,
        )
    if len(present) == 1:
        message = (
            f"{who}Security group {ids[0]} lacks the all-traffic "
            f"{' and '.join(missing[ids[0]])} "
            "rule referencing itself (EFA traffic is blocked)"
        )
        evidence.update(inbound_self_all=inbound, outbound_self_all=outbound)
    else:
        lacks = "; ".join(f"{sg} lacks {' and '.join(d)}" for sg, d in missing.items())
        message = (
            f"{who}None of security groups {', '.join(ids)} has both all-traffic rules "
            f"referencing itself ({lacks}): EFA traffic is blocked"
        )
    return fail(
        CHECK_ID, Priority.P0, "A", message, resources=ids, missing_self_rules=missing, **evidence
    )


@check(CHECK_ID, section="A", title="EFA security-group rules")
def efa_security_groups(data: ClusterData) -> Iterable[Finding]:
    """All-traffic self rules in each instance group's SG set (OverrideVpcConfig or cluster)."""
    if uses_managed_vpc(data.cluster()):
        return [managed_vpc_finding(CHECK_ID, "A", "EFA security-group rules")]
    # DescribeSecurityGroups fails as a whole on one unknown id; judge the ones that exist.
    found, _missing = data.existing_security_groups(data.cluster_security_group_ids())
    sets = effective_security_groups(data.cluster())
    findings = judge_security_groups(found, sets)
    if not any(f.status is Status.FAIL and "missing_self_rules" in f.evidence for f in findings):
        return findings
    # Only now ask which types support EFA: a CPU controller or login group needs no rules.
    no_efa = groups_without_efa(data)
    return judge_security_groups(found, sets, no_efa) if no_efa else findings


def groups_without_efa(data: ClusterData) -> dict[str, str]:
    """Instance group name -> instance type, for groups none of whose types supports EFA
    (DescribeInstanceTypes NetworkInfo.EfaSupported false); {} when the types cannot be
    read, so that missing self rules still FAIL."""
    # Imported here: importing a check module at the top would register it out of order.
    from tools.checks.capacity import group_instance_types

    groups = {
        str(g.get("InstanceGroupName")): [ec2_type(t) for t in group_instance_types(g)]
        for g in data.instance_groups()
        if isinstance(g, dict) and g.get("InstanceGroupName")
    }
    try:
        described = data.instance_types([t for types in groups.values() for t in types])
    except AwsAccessError:
        return {}
    efa = {
        str(t.get("InstanceType")): (t.get("NetworkInfo") or {}).get("EfaSupported")
        for t in described
        if isinstance(t, dict)
    }
    return {
        name: ", ".join(types)
        for name, types in groups.items()
        if types and all(efa.get(t) is False for t in types)
    }
