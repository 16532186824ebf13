"""§ A: EFA needs the security groups of every instance to allow all traffic among themselves.

The rules an instance gets are the union of all its security groups, so the rule is judged
per instance group on its effective set (OverrideVpcConfig SGs, else the cluster SGs). A
set used only by instance groups whose type does not support EFA (a CPU controller or login
group) needs no self rules: INFO, not FAIL.

An all-traffic outbound rule to 0.0.0.0/0 (or ::/0) next to the self rules is normal: it is
what AWS's own HyperPod template creates, and on a VPC that reaches AWS through a NAT
gateway it is the nodes' way to SSM, STS, ECR, S3, CloudWatch Logs and the SageMaker API
(security-group egress filters NAT-bound traffic too; § A.1, `sg-egress`, judges whether
the nodes keep a way out). The HyperPod prerequisites still note that such a rule may cause
EFA health-check failures, so it is reported as an INFO quoting that note, never as a
problem and never with advice to remove it: whether it can be narrowed depends on the other
ways out, which § A.1 describes. Recent EFA health-check failures of the same instance
groups are named in the INFO, pointing at the self rules and the devices first.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from tools.checks._cluster_events import classify, problem_events, split_by_age
from tools.checks._network import managed_vpc_finding
from tools.findings import Finding, Findings, Priority, Status
from tools.registry import check
from tools.triage.data import ClusterData, ec2_type
from tools.triage.data.network_model import IpPermission, SecurityGroup
from tools.triage.data.sagemaker_model import Cluster, ClusterEvent

CHECK_ID = "efa-security-groups"
FINDINGS = Findings(CHECK_ID, "A")


def _allows_all_from_self(permissions: tuple[IpPermission, ...], group_id: str) -> bool:
    return any(perm.all_protocols and group_id in perm.source_group_ids for perm in permissions)


ANYWHERE_V4, ANYWHERE_V6 = "0.0.0.0/0", "::/0"
ALL_PORTS = (0, 65535)
EFA_FAMILY = "efa-health-check"  # the cluster-event family (tools/checks/_event_families.py)


def _all_traffic(perm: IpPermission) -> bool:
    """Protocol -1, or TCP/UDP over every port (0-65535): broad enough to carry anything a
    node opens, which is what the prerequisites warn about."""
    if perm.all_protocols:
        return True
    ports = (perm.from_port, perm.to_port)
    return perm.protocol in ("tcp", "udp", "6", "17") and ports == ALL_PORTS


def anywhere_egress(permissions: tuple[IpPermission, ...]) -> list[str]:
    """The all-traffic outbound rules to 0.0.0.0/0 or ::/0, described ("-1 to 0.0.0.0/0")."""
    found: list[str] = []
    for perm in permissions:
        if not _all_traffic(perm):
            continue
        what = "all traffic" if perm.all_protocols else f"{perm.protocol} 0-65535"
        found.extend(f"{what} to {ANYWHERE_V4}" for r in perm.ipv4_ranges if r == ANYWHERE_V4)
        found.extend(f"{what} to {ANYWHERE_V6}" for r in perm.ipv6_ranges if r == ANYWHERE_V6)
    return found


def _allows_all_within(permissions: tuple[IpPermission, ...], group_ids: set[str]) -> bool:
    return any(
        perm.all_protocols and any(sg in group_ids for sg in perm.source_group_ids)
        for perm in permissions
    )


def effective_security_groups(cluster: Cluster) -> dict[str, list[str]]:
    """Instance group name -> the SGs its instances carry (OverrideVpcConfig, else cluster).

    A cluster that reports no instance groups is judged on its cluster-level SGs.
    """
    cluster_sgs = cluster.vpc_config.security_group_ids
    sets: dict[str, list[str]] = {}
    for group in cluster.instance_groups:
        override = group.override_vpc.security_group_ids if group.override_vpc else ()
        sets[group.name or "?"] = sorted(set(override or cluster_sgs))
    if not sets and cluster_sgs:
        sets["cluster"] = sorted(set(cluster_sgs))
    return sets


def _self_rules(group: SecurityGroup) -> tuple[bool, bool]:
    return (
        _allows_all_from_self(group.inbound, group.group_id),
        _allows_all_from_self(group.outbound, group.group_id),
    )


def _missing_directions(group: SecurityGroup) -> list[str]:
    inbound, outbound = _self_rules(group)
    return [d for d, ok in (("inbound", inbound), ("outbound", outbound)) if not ok]


def judge_security_groups(
    groups: Sequence[SecurityGroup],
    group_sets: dict[str, list[str]],
    no_efa: dict[str, str] | None = None,
    efa_failures: list[ClusterEvent] | None = None,
) -> list[Finding]:
    """Judged per instance group on the union of its SGs (the rules an instance gets).

    FAIL P0 when no SG of the set has both all-traffic self rules (and the set's rules do
    not together allow all traffic within it); an SG without them beside one that has them
    is INFO. `no_efa` (instance group name -> its instance type) names the groups whose
    type does not support EFA: a set used only by them needs no self rules (INFO, not FAIL)
    and no egress note. On any other set, an all-traffic outbound rule to 0.0.0.0/0 or
    ::/0 is an INFO (normal; the prerequisites' note), naming `efa_failures` (recent EFA
    health-check events, see `efa_health_failures`) of the set's instance groups.
    """
    by_id = {g.group_id: g for g in groups}
    wanted = sorted({sg for ids in group_sets.values() for sg in ids})
    findings: list[Finding] = [
        FINDINGS.fail(Priority.P0, f"Security group {missing} does not exist", resources=[missing])
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
            if not names or not all(n in (no_efa or {}) for n in names):
                findings.extend(_judge_egress(present, names, several, efa_failures or []))
    return findings


def _judge_set(
    present: list[SecurityGroup], names: list[str], several: bool, no_efa: dict[str, str]
) -> list[Finding]:
    ids = [g.group_id for g in present]
    who = f"Instance group(s) {', '.join(names)}: " if several else ""
    base: dict[str, Any] = {"instance_groups": names, "security_groups": ids}
    covering = [g for g in present if not _missing_directions(g)]
    findings: list[Finding] = []
    for group in present:
        group_id = group.group_id
        inbound, outbound = _self_rules(group)
        evidence = {"inbound_self_all": inbound, "outbound_self_all": outbound, **base}
        if group in covering:
            findings.append(
                FINDINGS.passed(
                    f"{who}Security group {group_id} allows all traffic to and from itself",
                    resources=[group_id],
                    **evidence,
                )
            )
        elif covering:
            cover = ", ".join(g.group_id for g in covering)
            findings.append(
                FINDINGS.info(
                    f"{who}Security group {group_id} lacks the all-traffic "
                    f"{' and '.join(_missing_directions(group))} rule referencing itself, but "
                    f"the same instances also carry {cover}, which allows all traffic to and "
                    "from itself (EFA is covered)",
                    resources=[group_id],
                    covered_by=[g.group_id for g in covering],
                    **evidence,
                )
            )
    if not covering:
        uncovered = _uncovered(present, who, base)
        if uncovered.status is Status.FAIL and names and all(n in no_efa for n in names):
            types = ", ".join(sorted({no_efa[n] for n in names}))
            shown = ", ".join(uncovered.resources)
            uncovered = FINDINGS.info(
                f"{who}EFA not supported on {types}; self rules not required (security "
                f"group{'s' if len(uncovered.resources) != 1 else ''} {shown} "
                "without all-traffic rules referencing itself)",
                resources=uncovered.resources,
                efa_supported=False,
                instance_types=sorted({no_efa[n] for n in names}),
                **uncovered.evidence,
            )
        findings.append(uncovered)
    return findings


def _judge_egress(
    present: list[SecurityGroup],
    names: list[str],
    several: bool,
    efa_failures: list[ClusterEvent],
) -> list[Finding]:
    """INFO for an all-traffic egress to anywhere: normal, with the prerequisites' note and
    any recent EFA health-check failures of the same instance groups (or of the cluster)."""
    rules = {g.group_id: anywhere_egress(g.outbound) for g in present}
    rules = {sg: found for sg, found in rules.items() if found}
    if not rules:
        return []
    who = f"Instance group(s) {', '.join(names)}: " if several else ""
    ids = sorted(rules)
    shown = "; ".join(f"{sg}: {', '.join(found)}" for sg, found in rules.items())
    evidence: dict[str, Any] = {
        "instance_groups": names,
        "security_groups": [g.group_id for g in present],
        "anywhere_egress": rules,
    }
    related = [e for e in efa_failures if not e.instance_group or e.instance_group in names]
    note = (
        f"{who}Outbound rule to anywhere beside the self rules ({shown}): normal, and on a "
        "NAT-routed subnet the nodes' way to AWS (§ A.1): keep it. The HyperPod "
        "prerequisites note that a 0.0.0.0/0 outbound rule may cause EFA health-check "
        "failures; narrow it only where the nodes keep another way out (§ A.1)"
    )
    if related:
        latest = max(related, key=lambda e: e.sort_time)
        count = len(related)
        note += (
            f". {count} EFA health-check event{'s' if count != 1 else ''} of these instance "
            f"groups (latest at {'?' if latest.time is None else latest.time}): confirm the "
            "self rules and the nodes' EFA devices first"
        )
        evidence["efa_health_events"] = [e.event_id for e in related][:20]
    return [FINDINGS.info(note, resources=ids, **evidence)]


def _uncovered(present: list[SecurityGroup], who: str, base: dict[str, Any]) -> Finding:
    """No SG of the set has both self rules: FAIL, unless the rules are split across SGs
    of the set so that together they still admit all traffic between its instances."""
    ids = [g.group_id for g in present]
    members = set(ids)
    inbound = any(_allows_all_within(g.inbound, members) for g in present)
    outbound = any(_allows_all_within(g.outbound, members) for g in present)
    missing = {g.group_id: _missing_directions(g) for g in present}
    evidence = {"inbound_within_set": inbound, "outbound_within_set": outbound, **base}
    if inbound and outbound:
        return FINDINGS.passed(
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
    return FINDINGS.fail(
        Priority.P0, message, resources=ids, missing_self_rules=missing, **evidence
    )


@check(FINDINGS, title="EFA security-group rules")
def efa_security_groups(data: ClusterData) -> Iterable[Finding]:
    """All-traffic self rules in each instance group's SG set (OverrideVpcConfig or cluster)."""
    if data.cluster().uses_managed_vpc:
        return [managed_vpc_finding(FINDINGS, "EFA security-group rules")]
    # DescribeSecurityGroups fails as a whole on one unknown id; judge the ones that exist.
    found, _missing = data.existing_security_groups(data.cluster_security_group_ids())
    sets = effective_security_groups(data.cluster())
    findings = judge_security_groups(found, sets)
    missing_rules = any(
        f.status is Status.FAIL and "missing_self_rules" in f.evidence for f in findings
    )
    egress = any("anywhere_egress" in f.evidence for f in findings)
    if not missing_rules and not egress:
        return findings
    # Only now ask which types support EFA (a CPU controller or login group needs no self
    # rules) and, for an egress to anywhere, which EFA health-check events the note names.
    no_efa = groups_without_efa(data) if missing_rules else {}
    failures = cluster_efa_failures(data) if egress else []
    if not no_efa and not failures:
        return findings
    return judge_security_groups(found, sets, no_efa, failures)


def efa_health_failures(events: Iterable[ClusterEvent], now: datetime | None) -> list[ClusterEvent]:
    """Error/Warn events of the last 7 days whose description reads as an EFA health-check
    failure (the `efa-health-check` family the cluster-events check uses)."""
    recent, _older = split_by_age(problem_events(events), now)
    return [
        e
        for e in recent
        if (family := classify(e.description, e)) is not None and family.key == EFA_FAMILY
    ]


def cluster_efa_failures(data: ClusterData) -> list[ClusterEvent]:
    """Recent EFA health-check events of the cluster; [] when events are unavailable or
    cannot be read (the cluster-events check reports that itself)."""
    if not data.events_available():
        return []
    listed = data.optional(data.events)
    return efa_health_failures(listed.items, data.now) if listed is not None else []


def groups_without_efa(data: ClusterData) -> dict[str, str]:
    """Instance group name -> instance type, for groups none of whose types supports EFA
    (DescribeInstanceTypes NetworkInfo.EfaSupported false); {} when the types cannot be
    read, so that missing self rules still FAIL."""
    groups = {
        g.name: [ec2_type(t) for t in g.instance_types] for g in data.instance_groups() if g.name
    }
    described = data.optional(
        lambda: data.instance_types([t for types in groups.values() for t in types])
    )
    if described is None:
        return {}
    efa = {t.instance_type: t.efa_supported for t in described}
    return {
        name: ", ".join(types)
        for name, types in groups.items()
        if types and all(efa.get(t) is False for t in types)
    }
