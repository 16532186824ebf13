"""§ G.3 gpu-ecc and § G.4 gpu-throttle over the per-GPU CSV query."""

from __future__ import annotations

from cluster_simulator.node_samples import accelerators as samples
from tools.checks.gpu_ecc import CHECK_ID as ECC_ID
from tools.checks.gpu_ecc import judge_ecc
from tools.checks.gpu_throttle import CHECK_ID as THROTTLE_ID
from tools.checks.gpu_throttle import judge_throttle
from tools.findings import Priority, Status
from tools.parsers.nvidia_smi import GpuRow, parse_gpu_query

from ._accel_data import P5, healthy_p5, node, run_check


def rows(text: str) -> tuple[GpuRow, ...]:
    return parse_gpu_query(text).rows


def test_volatile_uncorrectable_ecc_fails_p0() -> None:
    finding = judge_ecc(
        "i-1", P5, rows(samples.gpu_query(samples.GpuQuerySpec(ecc_volatile={2: 3})))
    )
    assert finding.status is Status.FAIL
    assert finding.priority is Priority.P0
    assert finding.section == "G.3"
    assert "GPU 2 (0000:75:00.0): 3 volatile, 3 aggregate" in finding.message
    assert "isolate" in finding.message
    assert "replace" in finding.message
    assert finding.evidence["gpus"] == ["GPU 2 (0000:75:00.0)"]


def test_aggregate_only_warns_and_points_at_row_remapping() -> None:
    finding = judge_ecc(
        "i-1", P5, rows(samples.gpu_query(samples.GpuQuerySpec(ecc_aggregate={4: 1})))
    )
    assert finding.status is Status.WARN
    assert finding.priority is Priority.P1
    assert "history only" in finding.message
    assert "§ G.1.a" in finding.message


def test_volatile_errors_fail_even_with_aggregate_only_gpus_beside_them() -> None:
    finding = judge_ecc(
        "i-1",
        P5,
        rows(
            samples.gpu_query(samples.GpuQuerySpec(ecc_volatile={1: 1}, ecc_aggregate={1: 1, 4: 3}))
        ),
    )
    assert finding.status is Status.FAIL
    assert finding.priority is Priority.P0


def test_clean_counters_pass_and_absent_counters_are_info() -> None:
    assert judge_ecc("i-1", P5, rows(samples.gpu_query())).status is Status.PASS
    na = (
        "0, 00000000:53:00.0, NVIDIA A10G, 550.127.05, 30, [N/A], [N/A], "
        "Not Active, Not Active, Not Active\n"
    )
    assert judge_ecc("i-1", P5, rows(na)).status is Status.INFO


def test_thermal_throttle_fails_p1_with_gpu_and_temperature() -> None:
    text = samples.gpu_query(
        samples.GpuQuerySpec(throttled={1: ["hw_thermal", "sw_thermal"]}, temps={1: 93})
    )
    finding = judge_throttle("i-1", P5, rows(text))
    assert finding.status is Status.FAIL
    assert finding.priority is Priority.P1
    assert finding.section == "G.4"
    assert "GPU 1 (0000:64:00.0) at 93 °C: HW thermal slowdown, SW thermal slowdown" in (
        finding.message
    )
    assert finding.evidence["temperatures"]["GPU 1 (0000:64:00.0)"] == 93


def test_hw_slowdown_alone_fails_and_no_throttle_passes() -> None:
    slow = judge_throttle(
        "i-1", P5, rows(samples.gpu_query(samples.GpuQuerySpec(throttled={6: ["hw_slowdown"]})))
    )
    assert slow.status is Status.FAIL
    assert "HW slowdown" in slow.message
    assert judge_throttle("i-1", P5, rows(samples.gpu_query())).status is Status.PASS


def test_registered_checks_share_the_query_probe() -> None:
    faulty = healthy_p5(
        gpu_query=samples.gpu_query(
            samples.GpuQuerySpec(ecc_volatile={0: 1}, throttled={0: ["hw_slowdown"]})
        )
    )
    [ecc] = run_check(ECC_ID, node("i-1", P5, faulty))
    [throttle] = run_check(THROTTLE_ID, node("i-1", P5, faulty))
    assert (ecc.status, throttle.status) == (Status.FAIL, Status.FAIL)
    unreadable = healthy_p5(
        gpu_query='Field "clocks_throttle_reasons.hw_slowdown" is not a valid field to query.\n'
    )
    [info] = run_check(ECC_ID, node("i-2", P5, unreadable))
    assert info.status is Status.INFO
    assert "not a valid field" in info.message
