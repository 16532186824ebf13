"""§ G.1.a gpu-row-remap and § G.1.b gpu-dcgm."""

from __future__ import annotations

from typing import Any

from cluster_simulator.node_samples import accelerators as samples
from tools.checks.gpu_dcgm import CHECK_ID as DCGM_ID
from tools.checks.gpu_dcgm import judge_dcgm
from tools.checks.gpu_row_remap import CHECK_ID as REMAP_ID
from tools.checks.gpu_row_remap import judge_row_remap
from tools.findings import Finding, Priority, Status
from tools.parsers.dcgm import parse_dcgm_health
from tools.parsers.nvidia_smi import parse_row_remap
from tools.remediation import Signal, advice

from ._accel_data import P5, healthy_p5, node, run_check


def remap(**kwargs: Any) -> list[Finding]:
    return judge_row_remap(
        "i-1", P5, parse_row_remap(samples.row_remap(samples.RowRemapSpec(**kwargs)))
    )


def test_pending_remap_fails_p1_reboot_then_recheck() -> None:
    [finding] = remap(pending=(1,))
    assert finding.status is Status.FAIL
    assert finding.priority is Priority.P1
    assert finding.section == "G.1.a"
    assert "0000:64:00.0" in finding.message
    assert "reboot" in finding.message
    assert "still pending after the reboot → replace" in finding.message


def test_remapping_failure_fails_p0_replace() -> None:
    [finding] = remap(failure=(2,))
    assert finding.status is Status.FAIL
    assert finding.priority is Priority.P0
    assert advice(Signal.GPU_ROW_REMAP_FAILURE) in finding.message
    assert finding.evidence["remediation"] == Signal.GPU_ROW_REMAP_FAILURE
    assert finding.evidence["gpus"] == ["0000:75:00.0"]


def test_exhausted_histogram_warns_and_healthy_passes() -> None:
    [low] = remap(histogram_low=(4,))
    assert low.status is Status.WARN
    assert low.priority is Priority.P1
    assert "440 of 640 banks low or none" in low.message
    [ok] = remap()
    assert ok.status is Status.PASS


def test_failure_and_pending_together_give_both() -> None:
    findings = remap(pending=(1,), failure=(2,))
    assert [(f.status, f.priority) for f in findings] == [
        (Status.FAIL, Priority.P0),
        (Status.FAIL, Priority.P1),
    ]


def test_dcgm_levels() -> None:
    failure = judge_dcgm("i-1", P5, parse_dcgm_health(samples.dcgm_health("Failure")))
    assert (failure.status, failure.priority, failure.section) == (
        Status.FAIL,
        Priority.P0,
        "G.1.b",
    )
    assert "GPU 0 Memory system: Failure" in failure.message
    warning = judge_dcgm("i-1", P5, parse_dcgm_health(samples.dcgm_health("Warning")))
    assert (warning.status, warning.priority) == (Status.WARN, Priority.P1)
    assert judge_dcgm("i-1", P5, parse_dcgm_health(samples.dcgm_health())).status is Status.PASS


def test_dcgm_missing_or_silent_is_info() -> None:
    for text in (samples.DCGM_NOT_INSTALLED, samples.DCGM_NO_WATCHES, samples.DCGM_NO_HOST_ENGINE):
        finding = judge_dcgm("i-1", P5, parse_dcgm_health(text))
        assert finding.status is Status.INFO
    assert (
        "not installed"
        in judge_dcgm("i-1", P5, parse_dcgm_health(samples.DCGM_NOT_INSTALLED)).message
    )


def test_registered_remap_and_dcgm_checks() -> None:
    outputs = healthy_p5(
        gpu_row_remap=samples.row_remap(samples.RowRemapSpec(pending=(0,))),
        dcgm_health=samples.dcgm_health("Failure"),
    )
    [pending] = run_check(REMAP_ID, node("i-1", P5, outputs))
    [dcgm] = run_check(DCGM_ID, node("i-1", P5, outputs))
    assert (pending.status, pending.priority) == (Status.FAIL, Priority.P1)
    assert (dcgm.status, dcgm.priority) == (Status.FAIL, Priority.P0)
    [unread] = run_check(REMAP_ID, node("i-2", P5, healthy_p5(gpu_row_remap="")))
    assert unread.status is Status.INFO
