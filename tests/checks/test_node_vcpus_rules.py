"""§ J node-vcpus: the rule alone, on literal lscpu counts, without its words."""

from __future__ import annotations

from typing import Any

from tools.checks.node_vcpus import NodeCpus, VcpuCount, VcpuState, vcpu_verdict
from tools.parsers.lscpu import CpuInfo


def verdict(cpus: int, online: int | None, expected: int | None, threads: Any) -> VcpuCount:
    subject = NodeCpus("i-1", "ml.p5.48xlarge", CpuInfo(cpus, online), expected, "gpu", threads)
    return vcpu_verdict(subject)


def test_all_visible_or_an_unknown_type_is_not_a_shortfall() -> None:
    assert verdict(192, 192, 192, 2).state is VcpuState.ALL_VISIBLE
    assert verdict(192, None, 192, 2) == VcpuCount(VcpuState.ALL_VISIBLE, 192)
    assert verdict(96, 96, None, 2).state is VcpuState.UNKNOWN_TYPE


def test_threads_per_core_1_explains_exactly_half_and_nothing_less() -> None:
    assert verdict(96, 96, 192, 1) == VcpuCount(VcpuState.HALVED_BY_SETTING, 96)
    assert verdict(96, 90, 192, 1) == VcpuCount(VcpuState.BELOW_SETTING, 90, offline=6)


def test_a_shortfall_with_multithreading_on_or_unknown() -> None:
    assert verdict(192, 180, 192, 2) == VcpuCount(VcpuState.MISSING, 180, offline=12)
    assert verdict(180, None, 192, None) == VcpuCount(VcpuState.SETTING_UNKNOWN, 180)
