"""§ C rule of tools/checks/capacity.py over literal groups, subnets and offerings."""

from __future__ import annotations

from typing import Any

from tools.checks.capacity import (
    CHECK_ID,
    group_instance_types,
    group_subnet_ids,
    judge_offerings,
)
from tools.findings import Priority, Status


def group(name: str, instance_type: str, override: list[str] | None = None) -> dict[str, Any]:
    g: dict[str, Any] = {"InstanceGroupName": name, "InstanceType": instance_type}
    if override is not None:
        g["OverrideVpcConfig"] = {"SecurityGroupIds": ["sg-1"], "Subnets": override}
    return g


def subnet(subnet_id: str, az: str) -> dict[str, Any]:
    return {"SubnetId": subnet_id, "AvailabilityZone": az}


def offered(instance_type: str, *azs: str) -> list[dict[str, Any]]:
    return [
        {"InstanceType": instance_type, "LocationType": "availability-zone", "Location": az}
        for az in azs
    ]


SUBNETS = [subnet("subnet-c", "us-west-2c"), subnet("subnet-a", "us-west-2a")]


def test_offered_in_a_subnet_az_is_info_with_the_capacity_caveat() -> None:
    findings = judge_offerings(
        [group("gpu", "ml.p5.48xlarge")],
        ["subnet-c"],
        SUBNETS,
        offered("p5.48xlarge", "us-west-2b", "us-west-2c"),
    )
    assert [(f.check, f.status, f.section) for f in findings] == [(CHECK_ID, Status.INFO, "C")]
    finding = findings[0]
    assert "not free capacity" in finding.message
    assert "InsufficientInstanceCapacity" in finding.evidence["note"]
    assert finding.evidence["instance_type"] == "p5.48xlarge"
    assert not finding.message.endswith(".")


def test_not_offered_in_any_subnet_az_fails_naming_everything() -> None:
    findings = judge_offerings(
        [group("gpu", "ml.p5.48xlarge")],
        ["subnet-c"],
        SUBNETS,
        offered("p5.48xlarge", "us-west-2a", "us-west-2b"),
    )
    assert len(findings) == 1
    finding = findings[0]
    assert (finding.status, finding.priority, finding.section) == (Status.FAIL, Priority.P0, "C")
    for part in ("gpu", "p5.48xlarge", "us-west-2c", "us-west-2a, us-west-2b", "subnet-c"):
        assert part in finding.message
    assert finding.resources == ["subnet-c"]
    assert finding.evidence["subnet_azs"] == {"subnet-c": "us-west-2c"}
    assert finding.evidence["offered_azs"] == ["us-west-2a", "us-west-2b"]


def test_one_matching_subnet_among_several_is_enough() -> None:
    findings = judge_offerings(
        [group("gpu", "ml.p5.48xlarge")],
        ["subnet-a", "subnet-c"],
        SUBNETS,
        offered("p5.48xlarge", "us-west-2a"),
    )
    assert [f.status for f in findings] == [Status.INFO]


def test_override_subnets_replace_the_cluster_subnets() -> None:
    groups = [group("gpu", "ml.p5.48xlarge", override=["subnet-a"]), group("cpu", "ml.m5.large")]
    offers = offered("p5.48xlarge", "us-west-2c") + offered("m5.large", "us-west-2c")
    findings = judge_offerings(groups, ["subnet-c"], SUBNETS, offers)
    by_group = {f.evidence["group"]: f.status for f in findings}
    assert by_group == {"gpu": Status.FAIL, "cpu": Status.INFO}
    assert group_subnet_ids(groups[0], ["subnet-c"]) == ["subnet-a"]
    assert group_subnet_ids(groups[1], ["subnet-c"]) == ["subnet-c"]


def test_type_offered_nowhere_fails() -> None:
    findings = judge_offerings([group("gpu", "ml.p5e.48xlarge")], ["subnet-c"], SUBNETS, [])
    assert findings[0].status == Status.FAIL
    assert "no AZ of this region" in findings[0].message


def test_region_offerings_are_ignored() -> None:
    offers = [{"InstanceType": "p5.48xlarge", "LocationType": "region", "Location": "us-west-2"}]
    findings = judge_offerings([group("gpu", "ml.p5.48xlarge")], ["subnet-c"], SUBNETS, offers)
    assert findings[0].status == Status.FAIL


def test_unreadable_subnets_are_not_judged() -> None:
    findings = judge_offerings(
        [group("gpu", "ml.p5.48xlarge")], ["subnet-gone"], SUBNETS, offered("p5.48xlarge")
    )
    assert [f.status for f in findings] == [Status.INFO]


def test_missing_keys() -> None:
    findings = judge_offerings([{}], [], [{"SubnetId": "subnet-c"}], [{}])
    assert [f.status for f in findings] == [Status.INFO]
    assert "instance types not judged" in findings[0].message


# -- flexible instance groups (no InstanceType) ------------------------------------------


def flexible(name: str, *types: str) -> dict[str, Any]:
    return {
        "InstanceGroupName": name,
        "InstanceRequirements": {"CurrentInstanceTypes": list(types)},
        "InstanceTypeDetails": [{"InstanceType": t, "CurrentCount": 1} for t in types],
    }


def test_flexible_group_types_come_from_requirements_and_details() -> None:
    group_ = {
        "InstanceGroupName": "gpu",
        "InstanceRequirements": {
            "CurrentInstanceTypes": ["ml.p5.48xlarge"],
            "DesiredInstanceTypes": ["ml.p5en.48xlarge", "ml.p5.48xlarge"],
        },
        "InstanceTypeDetails": [{"InstanceType": "ml.p4d.24xlarge", "CurrentCount": 1}],
    }
    assert group_instance_types(group_) == ["ml.p5en.48xlarge", "ml.p5.48xlarge", "ml.p4d.24xlarge"]
    assert group_instance_types(group("cpu", "ml.m5.large")) == ["ml.m5.large"]
    assert group_instance_types({}) == []


def test_flexible_group_with_one_type_offered_is_info_naming_the_other() -> None:
    offers = offered("p5.48xlarge", "us-west-2a") + offered("p4d.24xlarge", "us-west-2c")
    findings = judge_offerings(
        [flexible("gpu", "ml.p5.48xlarge", "ml.p4d.24xlarge")], ["subnet-c"], SUBNETS, offers
    )
    assert [f.status for f in findings] == [Status.INFO]
    finding = findings[0]
    assert "p4d.24xlarge in us-west-2c" in finding.message
    assert finding.evidence["not_offered_in_subnet_azs"] == ["p5.48xlarge"]
    assert finding.evidence["instance_types"] == ["p5.48xlarge", "p4d.24xlarge"]
    assert not finding.message.endswith(".")


def test_flexible_group_with_no_type_offered_fails() -> None:
    offers = offered("p5.48xlarge", "us-west-2a")
    findings = judge_offerings(
        [flexible("gpu", "ml.p5.48xlarge", "ml.p4d.24xlarge")], ["subnet-c"], SUBNETS, offers
    )
    assert [(f.status, f.priority) for f in findings] == [(Status.FAIL, Priority.P0)]
    message = findings[0].message
    assert "none of its instance types p5.48xlarge, p4d.24xlarge" in message
    assert "p4d.24xlarge in no AZ of this region" in message
    assert findings[0].evidence["offered_azs_by_type"] == {
        "p5.48xlarge": ["us-west-2a"],
        "p4d.24xlarge": [],
    }


def test_group_without_any_type_is_never_a_fail() -> None:
    findings = judge_offerings(
        [{"InstanceGroupName": "gpu", "InstanceRequirements": {}}], ["subnet-c"], SUBNETS, []
    )
    assert [f.status for f in findings] == [Status.INFO]
    assert "instance types not judged" in findings[0].message


def test_registered_check_asks_for_the_offerings_of_flexible_types() -> None:
    from evals.clusters import base
    from tools.aws.session import AwsAccess
    from tools.checks.capacity import instance_type_offerings
    from tools.triage.data import ClusterData
    from tools.triage.target import TriageTarget

    world = base.healthy_eks()
    gpu = world.cluster["InstanceGroups"][0]
    del gpu["InstanceType"]
    gpu["InstanceRequirements"] = {"CurrentInstanceTypes": ["ml.p5.48xlarge"]}
    target = TriageTarget(cluster=world.cluster["ClusterName"], region=world.region)
    data = ClusterData(AwsAccess(world.region, replay=world), target, now=base.RECORDED_AT)
    findings = list(instance_type_offerings(data))
    assert [f.status for f in findings] == [Status.INFO, Status.INFO]
    assert "p5.48xlarge is offered in us-west-2c" in findings[0].message
