"""§ G gpu-count: rules over parsed GPU lists, and the registered check over fake nodes."""

from __future__ import annotations

from cluster_simulator.node_samples import accelerators as samples
from tools.checks.gpu_devices import CHECK_ID, judge_gpu_count
from tools.findings import Priority, Status
from tools.parsers.nvidia_smi import parse_gpu_list
from tools.probes.model import ProbeOutput

from ._accel_data import CPU, P5, TRN1, healthy_p5, node, run_check, without


def test_seven_of_eight_fails_p0_naming_the_lost_gpu() -> None:
    listing = parse_gpu_list(samples.gpu_list(missing=(3,)))
    finding = judge_gpu_count("i-0abc", P5, 8, listing)
    assert finding.status is Status.FAIL
    assert finding.priority is Priority.P0
    assert finding.section == "G"
    assert "7 of 8 GPUs visible" in finding.message
    assert "0000:86:00.0" in finding.message
    assert finding.resources == ["i-0abc"]
    assert finding.evidence["visible"] == 7
    assert finding.evidence["expected"] == 8


def test_all_visible_passes_and_more_than_expected_is_info() -> None:
    assert judge_gpu_count("i-1", P5, 8, parse_gpu_list(samples.gpu_list())).status is Status.PASS
    extra = judge_gpu_count("i-1", P5, 4, parse_gpu_list(samples.gpu_list()))
    assert extra.status is Status.INFO


def test_no_devices_found_is_zero_of_eight() -> None:
    finding = judge_gpu_count("i-1", P5, 8, parse_gpu_list("No devices were found\n"))
    assert finding.status is Status.FAIL
    assert "0 of 8" in finding.message
    assert "No devices were found" in finding.message


def test_registered_check_judges_only_gpu_types() -> None:
    findings = run_check(
        CHECK_ID,
        node("i-gpu", P5, healthy_p5(gpu_list=samples.gpu_list(missing=(5,)))),
        node("i-trn", TRN1, {"neuron_devices": samples.neuron_ls()}),
        node("i-cpu", CPU, {}),
    )
    assert [(f.status, f.resources) for f in findings] == [(Status.FAIL, ["i-gpu"])]


def test_unreadable_output_is_info_not_fail() -> None:
    missing = run_check(CHECK_ID, node("i-1", P5, without(healthy_p5(), "gpu_list")))
    no_tool = run_check(
        CHECK_ID, node("i-2", P5, healthy_p5(gpu_list="bash: nvidia-smi: command not found\n"))
    )
    cut = run_check(
        CHECK_ID,
        node(
            "i-3", P5, healthy_p5(gpu_list=ProbeOutput(stdout="", exit_code=None, truncated=True))
        ),
    )
    for findings in (missing, no_tool, cut):
        [finding] = findings
        assert finding.status is Status.INFO
        assert finding.message.startswith("Could not read the GPU list on ")


def test_unreachable_nodes_and_no_gpu_nodes() -> None:
    [finding] = run_check(CHECK_ID, node("i-1", P5, healthy_p5(), unreachable="TargetNotConnected"))
    assert finding.status is Status.INFO
    assert "No probed node has NVIDIA GPUs" in finding.message


def test_a_gpu_list_cut_off_mid_output_is_not_a_lost_gpu() -> None:
    from tools.probes.model import ProbeOutput

    cut = ProbeOutput(
        stdout="\n".join(samples.gpu_list(8).splitlines()[:5]), exit_code=None, truncated=True
    )
    [finding] = run_check(CHECK_ID, node("i-p", P5, healthy_p5(gpu_list=cut)))
    assert finding.status is Status.INFO
    assert "session ended before the probe finished" in finding.message
