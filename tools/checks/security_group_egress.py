"""§ A.1: the security groups on the nodes' interfaces must let them reach AWS.

Security-group egress rules filter every connection an instance starts, whatever the route
afterwards, so a group whose only outbound rule is the EFA self rule cuts the nodes off from
SSM, STS, ECR, CloudWatch Logs, S3 and the SageMaker API even with a working NAT route. The
rules (`tools/checks/_egress.py`) judge each instance group's security-group set
(OverrideVpcConfig, else the cluster's) against each subnet it launches into: for every AWS
service a node needs (`tools.checks._network.required_endpoints`), the way the subnet routes
it and whether an outbound rule carries HTTPS that way.

Blocked services are a FAIL P0 naming what breaks; a WARN P1 when the set also has rules
that could lead to a proxy (the triage cannot tell a proxy from a file server); a WARN P2
when a service leaves only through a customer-managed prefix list or IPv6 rule whose reach
the triage cannot read. A service the subnet cannot route at all is § B.4's finding. The
evidence says whether the set would keep its way out without its rules to 0.0.0.0/0, the
one fact that decides whether such a rule may be narrowed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tools.checks._egress import (
    EgressVerdict,
    SetEgress,
    SubnetRouting,
    VpcWays,
    judge_set_egress,
    unknown_prefix_lists,
)
from tools.checks._network import (
    cluster_subnets,
    listing,
    managed_vpc_finding,
    required_endpoints,
)
from tools.findings import Finding, Findings, Priority
from tools.registry import check
from tools.triage.data import ClusterData
from tools.triage.data.network_model import RouteTable, SecurityGroup, VpcEndpoint
from tools.triage.data.sagemaker_model import Cluster

CHECK_ID = "sg-egress"
FINDINGS = Findings(CHECK_ID, "A.1")


# -- words --------------------------------------------------------------------------------

# What stops working when a node cannot reach a service, in the order a user notices it.
_CONSEQUENCES: tuple[tuple[str, str], ...] = (
    ("ssm", "no SSM sessions (no shell, no probes)"),
    ("sts", "no role credentials (STS)"),
    ("s3", "no lifecycle scripts or image layers from S3"),
    ("ecr.api", "no image pulls (ECR)"),
    ("logs", "no CloudWatch Logs"),
    ("sagemaker.api", "no SageMaker API for the node agent (new nodes fail to join)"),
    ("ec2", "no EC2 API"),
    ("eks", "no EKS API"),
)


def consequences(blocked: Iterable[str]) -> list[str]:
    names = set(blocked)
    related = {"ssm": {"ssmmessages", "ec2messages"}, "ecr.api": {"ecr.dkr"}}
    return [
        text
        for service, text in _CONSEQUENCES
        if service in names or related.get(service, set()) & names
    ]


def _harm(services: Iterable[str]) -> str:
    return "; ".join(consequences(services)) or f"no {', '.join(services)}"


def word_set_egress(answer: SetEgress, several: bool) -> Finding:
    """PASS when open; FAIL P0 when blocked; WARN P1 when blocked unless a proxy; WARN P2
    when a service leaves only through what the triage cannot read."""
    who = f"Instance group(s) {', '.join(answer.instance_groups)}: " if several else ""
    sgs = listing(answer.security_groups)
    evidence: dict[str, object] = {
        "instance_groups": list(answer.instance_groups),
        "security_groups": list(answer.security_groups),
        "services_checked": list(answer.checked),
        "blocked": {s: list(ids) for s, ids in answer.blocked.items()},
        "uncertain": {s: list(ids) for s, ids in answer.uncertain.items()},
        "only_within_set": answer.only_within_set,
        # Whether a rule to 0.0.0.0/0 may be narrowed: the set keeps a way out without it.
        "open_without_anywhere_rule": answer.open_without_anywhere,
    }
    resources = list(answer.security_groups)
    if answer.verdict is EgressVerdict.OPEN:
        also = (
            " (also without their rules to 0.0.0.0/0)"
            if answer.has_anywhere and answer.open_without_anywhere
            else ""
        )
        return FINDINGS.passed(
            f"{who}Security group(s) {sgs} let the nodes reach the AWS services their subnets "
            f"route ({', '.join(answer.checked) or 'none routable'}){also}",
            resources=resources,
            **evidence,
        )
    if answer.verdict is EgressVerdict.UNCERTAIN:
        through = ", ".join(answer.unread_prefix_lists) or "IPv6 rules"
        return FINDINGS.warn(
            Priority.P2,
            f"{who}Security group(s) {sgs} reach {', '.join(answer.uncertain)} only through "
            f"{through}, whose reach triage does not read: confirm it covers them, or "
            f"{_harm(answer.uncertain)}",
            resources=resources,
            unread_prefix_lists=list(answer.unread_prefix_lists),
            **evidence,
        )
    blocked = ", ".join(answer.blocked)
    if answer.only_within_set:
        what = (
            "allow outbound traffic only to themselves, so the nodes reach no AWS service "
            f"({blocked})"
        )
    else:
        what = f"do not allow HTTPS out to {blocked} by the way their subnets route it"
    harm = _harm(answer.blocked)
    if answer.verdict is EgressVerdict.PROXY_UNKNOWN:
        return FINDINGS.warn(
            Priority.P1,
            f"{who}Security group(s) {sgs} {what}, unless the nodes use a proxy reached by "
            f"{'; '.join(answer.maybe_proxy)}: otherwise {harm}",
            resources=resources,
            maybe_proxy=list(answer.maybe_proxy),
            **evidence,
        )
    return FINDINGS.fail(
        Priority.P0, f"{who}Security group(s) {sgs} {what}: {harm}", resources=resources, **evidence
    )


def security_group_sets(cluster: Cluster) -> dict[tuple[str, ...], list[str]]:
    """SG set -> the instance groups whose instances carry it (OverrideVpcConfig, else the
    cluster's); a cluster reporting no instance groups is judged on its own set."""
    sets: dict[tuple[str, ...], list[str]] = {}
    cluster_sgs = cluster.vpc_config.security_group_ids
    for group in cluster.instance_groups:
        override = group.override_vpc.security_group_ids if group.override_vpc else ()
        sets.setdefault(tuple(sorted(set(override or cluster_sgs))), []).append(group.name or "?")
    if not sets and cluster_sgs:
        sets[tuple(sorted(set(cluster_sgs)))] = ["cluster"]
    return sets


def _subnets_of(cluster: Cluster, names: Sequence[str]) -> set[str]:
    ids: set[str] = set()
    for group in cluster.instance_groups:
        if (group.name or "?") in names:
            override = group.override_vpc.subnets if group.override_vpc else ()
            ids.update(override or cluster.vpc_config.subnets)
    return ids or set(cluster.vpc_config.subnets)


@check(FINDINGS, title="Security-group egress to AWS")
def security_group_egress(data: ClusterData) -> Iterable[Finding]:
    """The security groups on each instance group's nodes let HTTPS reach every AWS service
    (SSM, STS, ECR, S3, CloudWatch Logs, SageMaker API, EKS) by the way its subnets route it:
    NAT, interface endpoints or the S3 gateway endpoint."""
    cluster = data.cluster()
    if cluster.uses_managed_vpc:
        return [managed_vpc_finding(FINDINGS, "security-group egress")]
    groups, _missing = data.existing_security_groups(data.cluster_security_group_ids())
    by_id = {g.group_id: g for g in groups}
    subnets = {s.subnet_id: s for s in cluster_subnets(data)}
    services = required_endpoints(cluster.orchestrator)
    sets = security_group_sets(cluster)
    several = len(sets) > 1
    findings: list[Finding] = []
    for set_ids, names in sorted(sets.items()):
        present = [by_id[sg] for sg in set_ids if sg in by_id]
        in_set = [subnets[s] for s in sorted(_subnets_of(cluster, names)) if s in subnets]
        if not present or not in_set:
            continue  # missing groups and subnets are § A's and § B.1's findings
        answers: list[SetEgress] = []
        for vpc_id in sorted({s.vpc_id or "" for s in in_set}):
            tables = data.route_tables(vpc_id) if vpc_id else ()
            endpoints = data.vpc_endpoints(vpc_id) if vpc_id else ()
            ways = VpcWays.of(endpoints, tables)
            routing = SubnetRouting(
                subnets=tuple(s for s in in_set if (s.vpc_id or "") == vpc_id),
                route_tables=tables,
                ways=_with_prefix_list_names(data, present, ways, endpoints, tables),
            )
            answers.append(judge_set_egress(names, present, routing, services))
        findings.append(word_set_egress(_merge(answers), several))
    return findings


def _with_prefix_list_names(
    data: ClusterData,
    groups: Sequence[SecurityGroup],
    ways: VpcWays,
    endpoints: Sequence[VpcEndpoint],
    tables: Sequence[RouteTable],
) -> VpcWays:
    """Read the names of the prefix lists the rules send to and no route names: an
    AWS-managed list (com.amazonaws.<region>.s3) tells its service. A refused read leaves
    them unknown, which the rules treat as "cannot tell", never as blocked."""
    unknown = unknown_prefix_lists(groups, ways.prefix_list_services)
    if not unknown:
        return ways
    listed = data.optional(lambda: data.prefix_lists(unknown))
    return VpcWays.of(endpoints, tables, listed or ())


def _merge(answers: Sequence[SetEgress]) -> SetEgress:
    """One answer for a set whose subnets span several VPCs (§ B.1 flags that itself)."""
    if len(answers) == 1:
        return answers[0]
    blocked: dict[str, set[str]] = {}
    for answer in answers:
        for service, ids in answer.blocked.items():
            blocked.setdefault(service, set()).update(ids)
    uncertain: dict[str, set[str]] = {}
    for answer in answers:
        for service, ids in answer.uncertain.items():
            uncertain.setdefault(service, set()).update(ids)
    verdicts = {a.verdict for a in answers}
    order = (EgressVerdict.BLOCKED, EgressVerdict.PROXY_UNKNOWN, EgressVerdict.UNCERTAIN)
    verdict = next((v for v in order if v in verdicts), EgressVerdict.OPEN)
    first = answers[0]
    checked = [s for a in answers for s in a.checked]
    return SetEgress(
        instance_groups=first.instance_groups,
        security_groups=first.security_groups,
        verdict=verdict,
        blocked={s: tuple(sorted(ids)) for s, ids in blocked.items()},
        uncertain={s: tuple(sorted(ids)) for s, ids in uncertain.items()},
        checked=tuple(dict.fromkeys(checked)),
        only_within_set=first.only_within_set,
        maybe_proxy=first.maybe_proxy,
        unread_prefix_lists=tuple(sorted({pl for a in answers for pl in a.unread_prefix_lists})),
        has_anywhere=first.has_anywhere,
        open_without_anywhere=all(a.open_without_anywhere for a in answers),
    )
