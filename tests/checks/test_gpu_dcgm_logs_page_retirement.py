"""§ G.1.b gpu-dcgm-logs and § G.1.a gpu-page-retirement, on the node samples."""

from __future__ import annotations

from typing import cast

from cluster_simulator.node_samples import accelerators as samples
from tools.checks.gpu_dcgm_logs import CHECK_ID as LOGS_ID
from tools.checks.gpu_dcgm_logs import judge_dcgm_logs
from tools.checks.gpu_page_retirement import CHECK_ID as PAGES_ID
from tools.checks.gpu_page_retirement import judge_page_retirement
from tools.findings import Finding, Priority, Status
from tools.parsers.dcgm_logs import parse_dcgm_logs
from tools.parsers.page_retirement import parse_page_retirement
from tools.probes.instance_facts import InstanceFacts
from tools.probes.model import NodeProbes
from tools.registry import get_check
from tools.triage.data import ClusterData

from ._accel_data import P5, FakeNodeData, healthy_p5, node, run_check

P3 = "ml.p3.16xlarge"


def logs(text: str) -> list[tuple[Status, Priority | None]]:
    return [(f.status, f.priority) for f in judge_dcgm_logs("i-1", P5, parse_dcgm_logs(text))]


def test_a_failed_test_is_p0_and_says_rerun_then_replace() -> None:
    [finding] = judge_dcgm_logs("i-1", P5, parse_dcgm_logs(samples.dcgm_diag_logs("memory")))
    assert (finding.status, finding.priority, finding.section) == (
        Status.FAIL,
        Priority.P0,
        "G.1.b",
    )
    assert '"Test memory: Fail"' in finding.message
    assert "run the same dcgmi diag level again" in finding.message
    assert finding.evidence["log"] == "/var/log/nvidia-dcgm/nvvs.log"


def test_remap_lines_and_errors() -> None:
    assert logs(samples.dcgm_diag_logs(remap="failure")) == [(Status.FAIL, Priority.P0)]
    assert logs(samples.dcgm_diag_logs(remap="pending")) == [(Status.FAIL, Priority.P1)]
    assert logs(samples.dcgm_diag_logs(errors=["Error: plugin config invalid"])) == [
        (Status.WARN, Priority.P1)
    ]
    # Errors that come with a failed test are part of that failure, not a second finding.
    assert logs(samples.dcgm_diag_logs("pcie")) == [(Status.FAIL, Priority.P0)]


def test_clean_log_passes_and_no_log_is_info_not_a_pass() -> None:
    assert logs(samples.dcgm_diag_logs()) == [(Status.PASS, None)]
    for text in (
        samples.dcgm_diag_logs(has_log=False),
        samples.DCGM_LOG_DIR_MISSING,
        samples.DCGM_LOG_DIR_DENIED,
        samples.dcgm_diag_logs(unreadable=True),
    ):
        [finding] = judge_dcgm_logs("i-1", P5, parse_dcgm_logs(text))
        assert finding.status is Status.INFO, text
        assert "unknown" in finding.message or "not a pass" in finding.message


def test_registered_dcgm_logs_check_reads_the_probe() -> None:
    failing = node("i-1", outputs=healthy_p5(dcgm_diag_logs=samples.dcgm_diag_logs("memory")))
    not_run = node("i-2", outputs=healthy_p5(dcgm_diag_logs="bash: line 1: ls: not found\n"))
    found = {f.resources[0]: f for f in run_check(LOGS_ID, failing, not_run)}
    assert found["i-1"].priority is Priority.P0
    assert found["i-2"].status is Status.INFO  # output without the marker: not read


def pages(text: str) -> list[Finding]:
    return judge_page_retirement("i-1", P3, parse_page_retirement(text))


def test_pending_retirement_is_p1_reboot() -> None:
    [pending] = pages(samples.page_retirement(row_remapping=False, pending=(3,)))
    assert (pending.status, pending.priority, pending.section) == (
        Status.FAIL,
        Priority.P1,
        "G.1.a",
    )
    assert "0000:00:1a.0" in pending.message
    assert "reboot the node" in pending.message


def test_double_bit_retired_pages_warn_and_single_bit_alone_passes() -> None:
    [dbe] = pages(samples.page_retirement(row_remapping=False, double_bit={0: 2}))
    assert (dbe.status, dbe.priority) == (Status.WARN, Priority.P2)
    assert "0000:00:17.0 (2)" in dbe.message
    assert "Xid 64" in dbe.message
    [sbe] = pages(samples.page_retirement(row_remapping=False, single_bit={0: 4}))
    assert sbe.status is Status.PASS


def test_row_remapping_gpus_get_no_page_retirement_finding() -> None:
    assert pages(samples.page_retirement()) == []
    [finding] = run_check(PAGES_ID, node("i-1", outputs=healthy_p5()))
    assert finding.status is Status.INFO
    assert "gpu-row-remap" in finding.message


def on_p3(*nodes: NodeProbes) -> list[Finding]:
    """The registered check on V100 nodes (the built-in type table has no p3 row)."""
    facts = {P3: InstanceFacts(instance_type="p3.16xlarge", gpus=8)}
    data = cast(ClusterData, FakeNodeData(nodes, facts))
    return list(get_check(PAGES_ID).run(data))


def test_registered_page_retirement_check_on_a_p3() -> None:
    v100 = samples.page_retirement(row_remapping=False, pending=(1,))
    findings = on_p3(node("i-1", P3, {"gpu_page_retirement": v100}))
    assert [(f.status, f.priority) for f in findings] == [(Status.FAIL, Priority.P1)]
    unreadable = on_p3(node("i-2", P3, {"gpu_page_retirement": "nvidia-smi: command not found\n"}))
    assert [f.status for f in unreadable] == [Status.INFO]
