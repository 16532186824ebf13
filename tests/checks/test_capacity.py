"""§ C rule of tools/checks/capacity.py over literal groups, subnets and offerings (each in
botocore's shape, parsed into the models the rule takes)."""

from __future__ import annotations

from typing import Any

from tools.checks import capacity
from tools.checks.capacity import CHECK_ID
from tools.findings import Finding, Priority, Status
from tools.triage.data.network_model import InstanceTypeOffering, Subnet
from tools.triage.data.sagemaker_model import InstanceGroup, parse_instance_groups


# The rule takes parsed instance groups; the groups stay literal DescribeCluster entries.
def judge_offerings(
    groups: list[dict[str, Any]],
    cluster_subnets: list[str],
    subnets: list[Subnet],
    offerings: list[InstanceTypeOffering],
) -> list[Finding]:
    parsed = parse_instance_groups(groups)
    return capacity.judge_offerings(parsed, cluster_subnets, subnets, offerings)


def group_subnet_ids(group: dict[str, Any], cluster_subnets: list[str]) -> list[str]:
    return capacity.group_subnet_ids(InstanceGroup.from_api(group), cluster_subnets)


def group(name: str, instance_type: str, override: list[str] | None = None) -> dict[str, Any]:
    g: dict[str, Any] = {"InstanceGroupName": name, "InstanceType": instance_type}
    if override is not None:
        g["OverrideVpcConfig"] = {"SecurityGroupIds": ["sg-1"], "Subnets": override}
    return g


def subnet(subnet_id: str, az: str) -> Subnet:
    return Subnet.from_api({"SubnetId": subnet_id, "AvailabilityZone": az})


def offered(instance_type: str, *azs: str) -> list[InstanceTypeOffering]:
    return [
        InstanceTypeOffering.from_api(
            {"InstanceType": instance_type, "LocationType": "availability-zone", "Location": az}
        )
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
    offers = [
        InstanceTypeOffering.from_api(
            {"InstanceType": "p5.48xlarge", "LocationType": "region", "Location": "us-west-2"}
        )
    ]
    findings = judge_offerings([group("gpu", "ml.p5.48xlarge")], ["subnet-c"], SUBNETS, offers)
    assert findings[0].status == Status.FAIL


def test_unreadable_subnets_are_not_judged() -> None:
    findings = judge_offerings(
        [group("gpu", "ml.p5.48xlarge")], ["subnet-gone"], SUBNETS, offered("p5.48xlarge")
    )
    assert [f.status for f in findings] == [Status.INFO]


def test_missing_keys() -> None:
    findings = judge_offerings(
        [{}], [], [Subnet.from_api({"SubnetId": "subnet-c"})], [InstanceTypeOffering.from_api({})]
    )
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
    assert InstanceGroup.from_api(group_).instance_types == (
        "ml.p5en.48xlarge",
        "ml.p5.48xlarge",
        "ml.p4d.24xlarge",
    )
    assert InstanceGroup.from_api(group("cpu", "ml.m5.large")).instance_types == ("ml.m5.large",)
    assert InstanceGroup.from_api({}).instance_types == ()


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
    from cluster_simulator import base
    from tools.aws.session import AwsAccess
    from tools.checks.capacity import instance_type_offerings
    from tools.target import TriageTarget
    from tools.triage.data import ClusterData

    world = base.healthy_eks()
    gpu = world.cluster["InstanceGroups"][0]
    del gpu["InstanceType"]
    gpu["InstanceRequirements"] = {"CurrentInstanceTypes": ["ml.p5.48xlarge"]}
    target = TriageTarget(cluster=world.cluster["ClusterName"], region=world.region)
    data = ClusterData(AwsAccess(world.region, replay=world), target, now=base.RECORDED_AT)
    findings = list(instance_type_offerings(data))
    assert [f.status for f in findings] == [Status.INFO, Status.INFO]
    assert "p5.48xlarge is offered in us-west-2c" in findings[0].message


# -- EC2 lists that are paged even without MaxResults ---------------------------------------


def _paged_world() -> Any:
    """A world whose EC2 lists are longer than one page of the API's largest page size."""
    from cluster_simulator import base

    world = base.healthy_eks()
    # The group's own AZ offering comes last, beyond the first page of 1000.
    world.offerings = [
        {"InstanceType": "p5.48xlarge", "LocationType": "availability-zone", "Location": f"x-{n}"}
        for n in range(1200)
    ] + world.offerings
    world.route_tables = [
        {"RouteTableId": f"rtb-{n:017x}", "VpcId": base.VPC, "Associations": [], "Routes": []}
        for n in range(150)
    ] + world.route_tables
    world.vpc_endpoints = [
        {**world.vpc_endpoints[0], "VpcEndpointId": f"vpce-{n:017x}"} for n in range(1100)
    ] + world.vpc_endpoints
    return world


def _data(world: Any) -> Any:
    from cluster_simulator import base
    from tools.aws.session import AwsAccess
    from tools.target import TriageTarget
    from tools.triage.data import ClusterData

    target = TriageTarget(cluster=world.cluster["ClusterName"], region=world.region)
    return ClusterData(AwsAccess(world.region, replay=world), target, now=base.RECORDED_AT)


def test_offerings_are_read_across_pages_and_judged_whole() -> None:
    from cluster_simulator import base
    from tools.checks.capacity import instance_type_offerings

    world = _paged_world()
    data = _data(world)
    findings = list(instance_type_offerings(data))
    assert [f.status for f in findings] == [Status.INFO, Status.INFO]
    assert f"p5.48xlarge is offered in {base.AZ}" in findings[0].message
    assert len(data.instance_type_offerings(["p5.48xlarge", "m5.2xlarge"])) == len(world.offerings)


def test_a_single_call_refuses_the_paged_answer() -> None:
    """What the data layer no longer does: one call gets a NextToken and is refused."""
    import pytest

    from tools.aws.errors import AwsAccessError

    data = _data(_paged_world())
    with pytest.raises(AwsAccessError, match="the answer is paged"):
        data.access.call(
            "ec2",
            "DescribeInstanceTypeOfferings",
            LocationType="availability-zone",
            Filters=[{"Name": "instance-type", "Values": ["p5.48xlarge"]}],
        )


def test_route_tables_endpoints_and_instance_types_are_read_across_pages() -> None:
    from cluster_simulator import base

    world = _paged_world()
    world.instance_types = [
        {**world.instance_types[1], "InstanceType": f"m5.{n}xlarge"} for n in range(130)
    ] + world.instance_types
    data = _data(world)
    assert len(data.route_tables(base.VPC)) == len(world.route_tables)
    assert len(data.vpc_endpoints(base.VPC)) == len(world.vpc_endpoints)
    wanted = [t["InstanceType"] for t in world.instance_types]
    assert len(data.instance_types(wanted)) == len(wanted)


def test_a_list_longer_than_its_cap_is_refused_not_judged_partial(
    monkeypatch: Any,
) -> None:
    import pytest

    from cluster_simulator import base
    from tools.aws.errors import AwsAccessError
    from tools.triage.data import network

    monkeypatch.setattr(network, "ROUTE_TABLE_CAP", 120)
    data = _data(_paged_world())
    with pytest.raises(AwsAccessError, match="more than 120 RouteTables"):
        data.route_tables(base.VPC)


# -- the rule alone: verdicts, no words -------------------------------------------------

AZ_OF = {"subnet-c": "us-west-2c", "subnet-a": "us-west-2a"}


def placement(
    group_: dict[str, Any], offers: list[InstanceTypeOffering], cluster: tuple[str, ...] = ()
) -> capacity.GroupPlacement:
    offered_ = capacity.zonal_offerings(offers)
    return capacity.group_placement(
        InstanceGroup.from_api(group_), cluster or ("subnet-c",), AZ_OF, offered_
    )


def test_rule_places_a_type_offered_in_a_subnet_az() -> None:
    verdict = placement(group("gpu", "ml.p5.48xlarge"), offered("p5.48xlarge", "us-west-2c"))
    assert verdict.placement is capacity.Placement.OFFERED
    assert verdict.subnet_azs == {"subnet-c": "us-west-2c"}
    assert verdict.placeable_azs == {"p5.48xlarge": ("us-west-2c",)}


def test_rule_finds_a_type_offered_only_elsewhere_not_offered() -> None:
    verdict = placement(group("gpu", "ml.p5.48xlarge"), offered("p5.48xlarge", "us-west-2b"))
    assert verdict.placement is capacity.Placement.NOT_OFFERED
    assert verdict.offered_azs == {"p5.48xlarge": ("us-west-2b",)}


def test_rule_names_the_flexible_types_that_cannot_be_placed() -> None:
    offers = offered("p5.48xlarge", "us-west-2a") + offered("p4d.24xlarge", "us-west-2c")
    verdict = placement(flexible("gpu", "ml.p5.48xlarge", "ml.p4d.24xlarge"), offers)
    assert verdict.placement is capacity.Placement.OFFERED
    assert verdict.unplaceable_types == ("p5.48xlarge",)


def test_rule_does_not_judge_without_a_type_or_a_readable_subnet() -> None:
    no_type = placement({"InstanceGroupName": "gpu"}, [])
    assert (no_type.group, no_type.placement) == ("gpu", capacity.Placement.NO_INSTANCE_TYPE)
    gone = placement(group("gpu", "ml.p5.48xlarge"), [], cluster=("subnet-gone",))
    assert gone.placement is capacity.Placement.NO_READABLE_SUBNET
    assert (gone.subnet_ids, gone.placeable_azs) == (("subnet-gone",), {})


def test_zonal_offerings_leave_out_region_offerings() -> None:
    region = InstanceTypeOffering.from_api(
        {"InstanceType": "m5.large", "LocationType": "region", "Location": "us-west-2"}
    )
    offers = [region, *offered("p5.48xlarge", "us-west-2a", "us-west-2c")]
    assert capacity.zonal_offerings(offers) == {"p5.48xlarge": {"us-west-2a", "us-west-2c"}}
