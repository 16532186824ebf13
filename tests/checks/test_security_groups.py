"""§ A rule of tools/checks/security_groups.py over literal DescribeSecurityGroups dicts,
parsed into the models the rule takes."""

from __future__ import annotations

from typing import Any

from tools.checks.security_groups import (
    CHECK_ID,
    anywhere_egress,
    efa_health_failures,
    effective_security_groups,
    judge_security_groups,
)
from tools.findings import Finding, Priority, Status
from tools.triage.data.network_model import IpPermission, SecurityGroup
from tools.triage.data.sagemaker_model import Cluster, ClusterEvent

SG, OVERRIDE_SG = "sg-cluster", "sg-override"
ONE = {"workers": [SG]}


def self_rule(group_id: str, protocol: str = "-1", **ports: int) -> dict[str, Any]:
    return {
        "IpProtocol": protocol,
        "UserIdGroupPairs": [{"GroupId": group_id, "UserId": "111122223333"}],
        "IpRanges": [],
        **ports,
    }


INTERNET = {"IpProtocol": "-1", "UserIdGroupPairs": [], "IpRanges": [{"CidrIp": "0.0.0.0/0"}]}
# The least-privilege egress the prerequisites leave room for: HTTPS out, nothing else.
HTTPS = {
    "IpProtocol": "tcp",
    "FromPort": 443,
    "ToPort": 443,
    "UserIdGroupPairs": [],
    "IpRanges": [{"CidrIp": "0.0.0.0/0"}],
}


def group(
    group_id: str = SG,
    inbound: list[dict[str, Any]] | None = None,
    outbound: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    return {
        "GroupId": group_id,
        "IpPermissions": [self_rule(group_id)] if inbound is None else inbound,
        "IpPermissionsEgress": [self_rule(group_id)] if outbound is None else outbound,
    }


def judge(groups: list[dict[str, Any]], *args: Any, **kwargs: Any) -> list[Finding]:
    """`judge_security_groups` over DescribeSecurityGroups dicts."""
    return judge_security_groups([SecurityGroup.from_api(g) for g in groups], *args, **kwargs)


def problems(findings: list[Finding]) -> list[tuple[Status, Priority | None, list[str]]]:
    return [
        (f.status, f.priority, f.resources)
        for f in findings
        if f.status in (Status.FAIL, Status.WARN)
    ]


def test_healthy_group_passes() -> None:
    findings = judge([group()], ONE)
    assert [(f.check, f.status, f.section) for f in findings] == [(CHECK_ID, Status.PASS, "A")]
    assert findings[0].evidence == {
        "inbound_self_all": True,
        "outbound_self_all": True,
        "instance_groups": ["workers"],
        "security_groups": [SG],
    }
    assert findings[0].message == f"Security group {SG} allows all traffic to and from itself"


def test_missing_outbound_self_rule_fails() -> None:
    findings = judge([group(outbound=[HTTPS])], ONE)
    assert problems(findings) == [(Status.FAIL, Priority.P0, [SG])]
    assert "outbound" in findings[0].message
    assert "inbound" not in findings[0].message
    assert findings[0].evidence["outbound_self_all"] is False
    assert not findings[0].message.endswith(".")


def test_missing_inbound_self_rule_fails() -> None:
    findings = judge([group(inbound=[])], ONE)
    assert problems(findings) == [(Status.FAIL, Priority.P0, [SG])]
    assert "inbound" in findings[0].message
    assert findings[0].evidence["inbound_self_all"] is False


def test_both_directions_missing_is_one_finding() -> None:
    findings = judge([group(inbound=[], outbound=[HTTPS])], ONE)
    assert problems(findings) == [(Status.FAIL, Priority.P0, [SG])]
    assert "inbound and outbound" in findings[0].message


def test_self_rule_with_a_port_range_does_not_count() -> None:
    ranged = self_rule(SG, "tcp", FromPort=0, ToPort=65535)
    findings = judge([group(inbound=[ranged])], ONE)
    assert problems(findings) == [(Status.FAIL, Priority.P0, [SG])]


def test_all_traffic_rule_from_another_group_does_not_count() -> None:
    findings = judge([group(inbound=[self_rule("sg-elsewhere")])], ONE)
    assert problems(findings) == [(Status.FAIL, Priority.P0, [SG])]


def test_override_group_is_judged_too() -> None:
    broken = group(OVERRIDE_SG, outbound=[HTTPS])
    findings = judge([group(), broken], {"workers": [SG], "override": [OVERRIDE_SG]})
    assert problems(findings) == [(Status.FAIL, Priority.P0, [OVERRIDE_SG])]
    assert [f.status for f in findings if f.resources == [SG]] == [Status.PASS]


def test_missing_group_fails() -> None:
    findings = judge([group()], {"workers": [SG, "sg-gone"]})
    assert problems(findings) == [(Status.FAIL, Priority.P0, ["sg-gone"])]
    assert "does not exist" in findings[0].message


def test_no_outbound_rule_to_anywhere_is_not_a_finding() -> None:
    findings = judge([group(outbound=[self_rule(SG)])], ONE)
    assert problems(findings) == []


def test_missing_keys_fail_both_directions() -> None:
    findings = judge([{"GroupId": SG}], ONE)
    assert problems(findings) == [(Status.FAIL, Priority.P0, [SG])]


# -- the effective SG set of each instance group ------------------------------------------

EXTRA = "sg-extra"


def plain(group_id: str) -> dict[str, Any]:
    """An SG without self rules (e.g. one that only admits SSH from a bastion)."""
    return group(group_id, inbound=[], outbound=[HTTPS])


def test_sg_without_self_rules_beside_one_with_them_is_info() -> None:
    findings = judge([group(), plain(EXTRA)], {"workers": [SG, EXTRA]})
    assert problems(findings) == []
    by_sg = {f.resources[0]: f for f in findings}
    assert by_sg[SG].status == Status.PASS
    assert by_sg[EXTRA].status == Status.INFO
    assert by_sg[EXTRA].evidence["covered_by"] == [SG]
    assert SG in by_sg[EXTRA].message
    assert "inbound and outbound" in by_sg[EXTRA].message


def test_set_without_any_self_rules_fails_naming_every_sg_and_direction() -> None:
    half = group(SG, outbound=[HTTPS])
    findings = judge([half, plain(EXTRA)], {"workers": [SG, EXTRA]})
    assert problems(findings) == [(Status.FAIL, Priority.P0, [SG, EXTRA])]
    message = findings[0].message
    assert f"{SG} lacks outbound" in message
    assert f"{EXTRA} lacks inbound and outbound" in message
    assert findings[0].evidence["missing_self_rules"] == {
        SG: ["outbound"],
        EXTRA: ["inbound", "outbound"],
    }


def test_rules_split_across_the_set_still_admit_efa() -> None:
    inbound_only = group(SG, outbound=[HTTPS])
    outbound_only = group(EXTRA, inbound=[], outbound=[self_rule(EXTRA)])
    findings = judge([inbound_only, outbound_only], {"workers": [SG, EXTRA]})
    assert problems(findings) == []
    assert [f.status for f in findings] == [Status.PASS]
    assert findings[0].evidence["inbound_within_set"] is True


def test_each_instance_group_is_judged_on_its_own_set() -> None:
    sets = {"gpu": [SG, EXTRA], "cpu": [EXTRA]}
    findings = judge([group(), plain(EXTRA)], sets)
    assert problems(findings) == [(Status.FAIL, Priority.P0, [EXTRA])]
    fail = next(f for f in findings if f.status == Status.FAIL)
    assert fail.evidence["instance_groups"] == ["cpu"]
    assert fail.message.startswith("Instance group(s) cpu: ")
    gpu = [f for f in findings if f.evidence.get("instance_groups") == ["gpu"]]
    assert sorted(f.status for f in gpu) == [Status.INFO, Status.PASS]


def test_effective_sets_use_the_override_else_the_cluster_sgs() -> None:
    cluster = {
        "VpcConfig": {"SecurityGroupIds": [SG], "Subnets": ["subnet-1"]},
        "InstanceGroups": [
            {"InstanceGroupName": "cpu"},
            {
                "InstanceGroupName": "gpu",
                "OverrideVpcConfig": {"SecurityGroupIds": [EXTRA, SG], "Subnets": ["subnet-2"]},
            },
        ],
    }
    assert effective_security_groups(Cluster.from_api(cluster)) == {
        "cpu": [SG],
        "gpu": [SG, EXTRA],
    }
    cluster_only = Cluster.from_api({"VpcConfig": {"SecurityGroupIds": [SG]}})
    assert effective_security_groups(cluster_only) == {"cluster": [SG]}
    assert effective_security_groups(Cluster.from_api({})) == {}


# -- instance types without EFA need no self rules ------------------------------------------


def test_missing_self_rules_on_a_group_without_efa_is_info() -> None:
    sets = {"controller": [OVERRIDE_SG], "workers": [SG]}
    findings = judge(
        [group(SG), group(OVERRIDE_SG, inbound=[], outbound=[HTTPS])],
        sets,
        no_efa={"controller": "m5.4xlarge"},
    )
    assert not [f for f in findings if f.status is Status.FAIL]
    [note] = [f for f in findings if f.status is Status.INFO]
    assert "EFA not supported on m5.4xlarge; self rules not required" in note.message
    assert note.resources == [OVERRIDE_SG]


def test_missing_self_rules_stay_fail_on_an_efa_capable_group() -> None:
    findings = judge(
        [group(SG, inbound=[], outbound=[HTTPS])],
        {"controller": [SG], "workers": [SG]},
        no_efa={"controller": "m5.4xlarge"},  # workers (p5) share the set and need EFA
    )
    [failed] = [f for f in findings if f.status is Status.FAIL]
    assert failed.priority is Priority.P0


def _world_with_controller_sg() -> Any:
    from cluster_simulator import base

    world = base.healthy_slurm()
    controller_sg = "sg-0a1b2c3d4e5f6c001"
    world.security_groups.append(
        {**group(controller_sg, inbound=[], outbound=[HTTPS]), "VpcId": base.VPC}
    )
    controller = world.cluster["InstanceGroups"][0]
    controller["OverrideVpcConfig"] = {
        "SecurityGroupIds": [controller_sg],
        "Subnets": [base.SUBNET],
    }
    return world


def _run(world: Any) -> list[Finding]:
    from cluster_simulator import base
    from tools.aws.session import AwsAccess
    from tools.checks.security_groups import efa_security_groups
    from tools.target import TriageTarget
    from tools.triage.data import ClusterData

    target = TriageTarget(cluster=world.cluster["ClusterName"], region=world.region)
    data = ClusterData(AwsAccess(world.region, replay=world), target, now=base.RECORDED_AT)
    return list(efa_security_groups(data))


def test_registered_check_reads_efa_support_only_when_rules_are_missing() -> None:
    from cluster_simulator import base

    healthy = base.healthy_slurm()
    asked: list[str] = []
    respond = healthy.respond

    def spy(service: str, operation: str, params: dict[str, Any]) -> Any:
        asked.append(operation)
        return respond(service, operation, params)

    healthy.respond = spy  # type: ignore[method-assign]
    _run(healthy)
    assert "DescribeInstanceTypes" not in asked
    findings = _run(_world_with_controller_sg())
    assert not [f for f in findings if f.status is Status.FAIL]
    assert any("EFA not supported on m5.4xlarge" in f.message for f in findings)


def test_registered_check_keeps_the_fail_when_types_cannot_be_read() -> None:
    world = _world_with_controller_sg()
    world.denied.add(("ec2", "DescribeInstanceTypes"))
    [failed] = [f for f in _run(world) if f.status is Status.FAIL]
    assert failed.priority is Priority.P0


# -- an all-traffic egress to anywhere on an EFA security group -----------------------------

EFA_EVENT = {
    "EventId": "evt-efa",
    "EventTime": "2026-11-20T10:00:00Z",
    "EventLevel": "Error",
    "InstanceGroupName": "workers",
    "Description": "EFA health checks did not run successfully on the instance",
}


def test_anywhere_egress_rules_are_described() -> None:
    v6 = {"IpProtocol": "-1", "Ipv6Ranges": [{"CidrIpv6": "::/0"}]}
    all_tcp = {"IpProtocol": "tcp", "FromPort": 0, "ToPort": 65535, "IpRanges": [INTERNET_V4]}
    literal: list[dict[str, Any]] = [INTERNET, v6, all_tcp, HTTPS, self_rule(SG)]
    rules = tuple(IpPermission.from_api(p) for p in literal)
    assert anywhere_egress(rules) == [
        "all traffic to 0.0.0.0/0",
        "all traffic to ::/0",
        "tcp 0-65535 to 0.0.0.0/0",
    ]


INTERNET_V4 = {"CidrIp": "0.0.0.0/0"}


def infos(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.status is Status.INFO]


def test_egress_to_anywhere_beside_the_self_rules_is_normal_info() -> None:
    """AWS's own HyperPod template: self rules both ways plus all traffic to 0.0.0.0/0. On a
    NAT-routed subnet that rule is the nodes' way to AWS: never a problem, never "remove"."""
    findings = judge([group(outbound=[self_rule(SG), INTERNET])], ONE)
    assert problems(findings) == []
    [note] = infos(findings)
    assert note.resources == [SG]
    assert "0.0.0.0/0" in note.message
    assert "EFA health-check" in note.message  # the prerequisites' note, quoted
    assert "keep it" in note.message
    assert "remove" not in note.message.lower()
    assert note.evidence["anywhere_egress"] == {SG: ["all traffic to 0.0.0.0/0"]}


def test_https_only_egress_is_fine() -> None:
    findings = judge([group(outbound=[self_rule(SG), HTTPS])], ONE)
    assert problems(findings) == []
    assert infos(findings) == []


def test_egress_to_anywhere_beside_an_efa_health_check_failure_stays_info() -> None:
    """The failure event is `cluster-events`' FAIL; the rule beside it is not named as its
    cause: the self rules and the devices are looked at first."""
    findings = judge(
        [group(outbound=[self_rule(SG), INTERNET])],
        ONE,
        efa_failures=[ClusterEvent.from_api(EFA_EVENT)],
    )
    assert problems(findings) == []
    [note] = infos(findings)
    assert note.evidence["efa_health_events"] == ["evt-efa"]
    assert "self rules" in note.message


def test_an_efa_failure_of_another_group_is_not_named() -> None:
    other = {**EFA_EVENT, "InstanceGroupName": "elsewhere"}
    findings = judge(
        [group(outbound=[self_rule(SG), INTERNET])],
        ONE,
        efa_failures=[ClusterEvent.from_api(other)],
    )
    [note] = infos(findings)
    assert "efa_health_events" not in note.evidence
    cluster_wide = {k: v for k, v in EFA_EVENT.items() if k != "InstanceGroupName"}
    named = judge(
        [group(outbound=[self_rule(SG), INTERNET])],
        ONE,
        efa_failures=[ClusterEvent.from_api(cluster_wide)],
    )
    [note] = infos(named)
    assert note.evidence["efa_health_events"] == ["evt-efa"]


def test_egress_to_anywhere_on_a_group_without_efa_is_not_judged() -> None:
    controller = group(OVERRIDE_SG, outbound=[self_rule(OVERRIDE_SG), INTERNET])
    findings = judge(
        [group(), controller],
        {"controller": [OVERRIDE_SG], "workers": [SG]},
        no_efa={"controller": "m5.4xlarge"},
    )
    assert problems(findings) == []


def test_efa_health_failures_keep_recent_efa_events_only() -> None:
    from datetime import UTC, datetime

    now = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
    old = {**EFA_EVENT, "EventId": "old", "EventTime": "2026-11-01T00:00:00Z"}
    info_level = {**EFA_EVENT, "EventId": "info", "EventLevel": "Info"}
    capacity = {**EFA_EVENT, "EventId": "cap", "Description": "Insufficient capacity"}
    raw = [EFA_EVENT, old, info_level, capacity]
    kept = efa_health_failures([ClusterEvent.from_api(e) for e in raw], now)
    assert [e.event_id for e in kept] == ["evt-efa"]


def test_registered_check_names_the_cluster_events_beside_the_egress() -> None:
    from cluster_simulator import base

    world = base.healthy_slurm()
    sg = next(g for g in world.security_groups if g["GroupId"] == base.SG)
    assert INTERNET in sg["IpPermissionsEgress"]  # the base world is AWS's template shape
    [note] = [f for f in _run(world) if f.status is not Status.PASS]
    assert note.status is Status.INFO
    assert "efa_health_events" not in note.evidence
    world.events.append(
        {**EFA_EVENT, "InstanceGroupName": base.GPU_GROUP, "EventTime": "2026-11-20T09:00:00Z"}
    )
    [named] = [f for f in _run(world) if f.status is not Status.PASS]
    assert named.status is Status.INFO
    assert named.evidence["efa_health_events"] == ["evt-efa"]
