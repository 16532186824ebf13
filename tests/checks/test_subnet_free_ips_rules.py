"""§ B.6 subnet-free-ips: the headroom rule alone, without its words."""

from __future__ import annotations

from tools.checks.subnet_free_ips import Demand, Headroom, subnet_headroom
from tools.triage.data.network_model import Subnet


def subnet(free: int | None) -> Subnet:
    found: dict[str, object] = {"SubnetId": "subnet-1", "CidrBlock": "10.1.0.0/24"}
    if free is not None:
        found["AvailableIpAddressCount"] = free
    return Subnet.from_api(found)


def demand(group: str, per_node: int, target: int = 4, short: bool = False) -> Demand:
    return Demand(group, "p5.48xlarge", per_node, target, short, "DescribeInstanceTypes")


def test_the_hungriest_node_and_the_widest_wave_set_the_bars() -> None:
    small, big = demand("cpu", 15, target=200), demand("gpu", 81, target=4)
    verdict = subnet_headroom(subnet(90), [small, big])
    assert verdict.headroom is Headroom.NO_WAVE
    assert (verdict.hungriest, verdict.widest_wave) == (big, small)
    assert (verdict.fail_below, verdict.warn_below) == (81, 300)


def test_no_room_for_one_node_names_the_groups_below_target() -> None:
    verdict = subnet_headroom(
        subnet(40), [demand("b", 81, short=True), demand("a", 32, short=True)]
    )
    assert verdict.headroom is Headroom.NO_NODE
    assert verdict.short_groups == ("a", "b")


def test_floors_apply_without_groups_and_a_missing_count_is_unknown() -> None:
    assert subnet_headroom(subnet(4), []).headroom is Headroom.NO_NODE
    assert subnet_headroom(subnet(49), []).headroom is Headroom.NO_WAVE
    assert subnet_headroom(subnet(50), []).headroom is Headroom.ENOUGH
    assert subnet_headroom(subnet(None), []).headroom is Headroom.UNKNOWN
