"""§ B.6 free-IP tiers (tools/checks/subnet_free_ips.py) over literal data, and the section's
text held to the rule's numbers."""

from __future__ import annotations

from typing import Any

from tools.checks import subnet_free_ips as rule
from tools.checks.subnet_free_ips import (
    Demand,
    addresses_per_node,
    group_demands,
    judge_free_ips,
)
from tools.findings import Priority, Status
from tools.references import section_text
from tools.triage.data.network_model import InstanceTypeInfo, Subnet
from tools.triage.data.sagemaker_model import InstanceGroup

# DescribeInstanceTypes entries (the NetworkInfo fields the rule reads).
P5 = InstanceTypeInfo.from_api(
    {
        "InstanceType": "p5.48xlarge",
        "NetworkInfo": {"MaximumNetworkCards": 32, "Ipv4AddressesPerInterface": 50},
    }
)
M5 = InstanceTypeInfo.from_api(
    {
        "InstanceType": "m5.2xlarge",
        "NetworkInfo": {"MaximumNetworkCards": 1, "Ipv4AddressesPerInterface": 15},
    }
)


def subnet(free: int | None, subnet_id: str = "subnet-1") -> Subnet:
    found: dict[str, Any] = {"SubnetId": subnet_id, "CidrBlock": "10.1.0.0/24"}
    if free is not None:
        found["AvailableIpAddressCount"] = free
    return Subnet.from_api(found)


def demand(per_node: int, target: int = 4, short: bool = False, group: str = "gpu") -> Demand:
    return Demand(group, "p5.48xlarge", per_node, target, short, "DescribeInstanceTypes")


def verdict(free: int, demands: list[Demand]) -> tuple[Status, Priority | None]:
    [finding] = judge_free_ips([subnet(free)], {"subnet-1": demands})
    return finding.status, finding.priority


def test_addresses_per_node_match_the_prerequisites_p5_figures() -> None:
    assert addresses_per_node(P5, "slurm") == (32, "DescribeInstanceTypes")
    assert addresses_per_node(P5, "eks") == (81, "DescribeInstanceTypes")
    assert addresses_per_node(M5, "slurm") == (1, "DescribeInstanceTypes")
    assert addresses_per_node(M5, "eks") == (15, "DescribeInstanceTypes")


def test_network_cards_list_is_used_when_the_maximum_is_absent() -> None:
    entry = InstanceTypeInfo.from_api(
        {"NetworkInfo": {"NetworkCards": [{}, {}, {}, {}], "Ipv4AddressesPerInterface": 30}}
    )
    assert addresses_per_node(entry, "slurm")[0] == 4
    assert addresses_per_node(entry, "eks")[0] == 33


def test_an_undescribed_type_counts_as_a_p5() -> None:
    assert addresses_per_node(None, "slurm") == (32, "prerequisites fallback")
    assert addresses_per_node(None, "eks") == (81, "prerequisites fallback")
    assert addresses_per_node(InstanceTypeInfo.from_api({"NetworkInfo": {}}), "eks")[0] == 81


def test_one_node_that_does_not_fit_fails_p1() -> None:
    assert verdict(80, [demand(81)]) == (Status.FAIL, Priority.P1)
    assert verdict(81, [demand(81)]) == (Status.WARN, Priority.P1)


def test_a_group_below_target_makes_it_p0() -> None:
    assert verdict(80, [demand(81, short=True)]) == (Status.FAIL, Priority.P0)


def test_a_wave_is_ten_percent_of_the_target_at_least_two_nodes() -> None:
    assert demand(81, target=4).wave_nodes == 2
    assert demand(81, target=40).wave_nodes == 4
    assert demand(81, target=41).wave_nodes == 5
    # 40 nodes of 81 addresses: a wave of 4 takes 324.
    assert verdict(323, [demand(81, target=40)]) == (Status.WARN, Priority.P1)
    assert verdict(324, [demand(81, target=40)]) == (Status.PASS, None)


def test_floors_apply_without_any_known_group() -> None:
    assert verdict(4, [])[0] is Status.FAIL
    assert verdict(5, [])[0] is Status.WARN
    assert verdict(49, [])[0] is Status.WARN
    assert verdict(50, []) == (Status.PASS, None)


def test_small_nodes_are_held_to_the_floors() -> None:
    slurm_cpu = demand(1, target=100)
    assert verdict(4, [slurm_cpu])[0] is Status.FAIL
    assert verdict(49, [slurm_cpu])[0] is Status.WARN
    assert verdict(50, [slurm_cpu])[0] is Status.PASS


def test_the_hungriest_group_in_the_subnet_sets_the_bar() -> None:
    findings = judge_free_ips(
        [subnet(100)], {"subnet-1": [demand(1, group="cpu"), demand(81, group="gpu")]}
    )
    [finding] = findings
    assert finding.status is Status.WARN
    assert "gpu" in finding.message
    assert finding.evidence["fail_below"] == 81
    assert finding.evidence["warn_below"] == 162


def test_missing_count_is_info() -> None:
    [finding] = judge_free_ips([subnet(None)])
    assert finding.status is Status.INFO


def test_group_demands_follow_override_subnets_and_the_hungriest_type() -> None:
    groups = [
        {"InstanceGroupName": "cpu", "InstanceType": "ml.m5.2xlarge", "TargetCount": 2},
        {
            "InstanceGroupName": "gpu",
            "InstanceType": "ml.p5.48xlarge",
            "CurrentCount": 3,
            "TargetCount": 4,
            "OverrideVpcConfig": {"Subnets": ["subnet-2"], "SecurityGroupIds": ["sg-1"]},
        },
    ]
    described = {"m5.2xlarge": M5, "p5.48xlarge": P5}
    parsed = [InstanceGroup.from_api(g) for g in groups]
    demands = group_demands(parsed, ["subnet-1"], described, "eks")
    assert [(d.group, d.per_node, d.short) for d in demands["subnet-1"]] == [("cpu", 15, False)]
    assert [(d.group, d.per_node, d.short) for d in demands["subnet-2"]] == [("gpu", 81, True)]


def test_registered_check_judges_the_base_worlds_as_healthy() -> None:
    from cluster_simulator import base
    from tools.aws.session import AwsAccess
    from tools.checks.subnet_free_ips import subnet_free_ips
    from tools.target import TriageTarget
    from tools.triage.data import ClusterData

    for world in (base.healthy_eks(), base.healthy_slurm()):
        target = TriageTarget(cluster=world.cluster["ClusterName"], region=world.region)
        data = ClusterData(AwsAccess(world.region, replay=world), target, now=base.RECORDED_AT)
        findings = list(subnet_free_ips(data))
        assert {f.status for f in findings} == {Status.PASS}
        per_node = {
            name: g["addresses_per_node"] for name, g in findings[0].evidence["groups"].items()
        }
        assert per_node[base.GPU_GROUP] == (81 if world.cluster.get("Orchestrator") else 32)


# -- § B.6 says what the code does ----------------------------------------------------------


def test_b6_text_states_the_rule_and_its_numbers() -> None:
    text = " ".join(section_text("B.6").split())
    phrases = [
        f"fewer than {rule.FAIL_FLOOR} free addresses",
        f"fewer than {rule.WARN_FLOOR} free addresses",
        f"{rule.WAVE_PERCENT} % of its target count, at least {rule.WAVE_MIN_NODES} nodes",
        f"counted with the P5 figures ({rule.FALLBACK_SLURM} on Slurm, {rule.FALLBACK_EKS} on EKS)",
        "on Slurm, `MaximumNetworkCards`",
        "on EKS, `Ipv4AddressesPerInterface` plus `MaximumNetworkCards` minus one",
        "P0 while a group that uses the subnet is below its target count, else P1",
        "| WARN P1 |",
    ]
    missing = [p for p in phrases if p not in text]
    assert not missing, f"§ B.6 no longer states: {missing}"
    # The prerequisites' own P5 figures, which the fallback and the formula reproduce.
    assert addresses_per_node(P5, "slurm")[0] == rule.FALLBACK_SLURM
    assert addresses_per_node(P5, "eks")[0] == rule.FALLBACK_EKS
