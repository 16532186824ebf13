"""§ G.2 gpu-xid: classification, repeated hardware Xid after a reboot, unreadable logs."""

from __future__ import annotations

from evals.clusters.node_samples import accelerators as samples
from tools.checks.gpu_xid import CHECK_ID, judge_xids
from tools.findings import Priority, Status
from tools.parsers.xid import parse_xids

from ._accel_data import P5, healthy_p5, node, run_check, without

PCI = samples.driver_pci(3)
FELL_OFF = samples.xid_line(PCI, 79, "GPU has fallen off the bus.")
FELL_OFF_BEFORE = samples.xid_line(PCI, 79, "GPU has fallen off the bus.", style="journal")
APP = samples.xid_line(samples.driver_pci(1), 13, "Graphics SM Warp Exception", pid="4812")
CLEANUP = samples.xid_line(samples.driver_pci(1), 45, "Ch 00000008", pid="4812")
UNKNOWN = samples.xid_line(samples.driver_pci(2), 71, "copy engine error")


def test_hardware_xid_this_boot_fails_p0_with_numbers_and_gpus() -> None:
    [finding] = judge_xids("i-1", parse_xids(FELL_OFF), (), P5)
    assert finding.status is Status.FAIL
    assert finding.priority is Priority.P0
    assert finding.section == "G.2"
    assert "Xid 79 (GPU has fallen off the bus) on 0000:86:00" in finding.message
    assert "repeated" not in finding.message
    assert finding.evidence["xids"] == [79]
    assert finding.evidence["gpus"] == ["0000:86:00"]
    assert finding.evidence["repeated_after_reboot"] is False


def test_hardware_xid_in_both_boots_means_replace() -> None:
    [finding] = judge_xids("i-1", parse_xids(FELL_OFF), parse_xids(FELL_OFF_BEFORE), P5)
    assert finding.status is Status.FAIL
    assert finding.priority is Priority.P0
    assert "repeated after a reboot" in finding.message
    assert "replace the node" in finding.message
    assert finding.evidence["repeated_after_reboot"] is True
    assert finding.evidence["previous_boot"]["xids"] == [79]


def test_hardware_only_before_the_reboot_is_info() -> None:
    before, now = judge_xids("i-1", (), parse_xids(FELL_OFF_BEFORE))
    assert before.status is Status.INFO
    assert "previous boot had hardware Xid 79" in before.message
    assert now.status is Status.PASS


def test_application_and_unknown_xids_warn_p2() -> None:
    findings = judge_xids("i-1", parse_xids(APP + CLEANUP + UNKNOWN), None)
    assert [(f.status, f.priority) for f in findings] == [
        (Status.WARN, Priority.P2),
        (Status.WARN, Priority.P2),
    ]
    assert "application Xid 13" in findings[0].message
    assert "workload" in findings[0].message
    assert "Xid 71" in findings[1].message


def test_follow_on_alone_is_info_and_a_clean_log_passes() -> None:
    [follow] = judge_xids("i-1", parse_xids(CLEANUP), None)
    assert follow.status is Status.INFO
    [clean] = judge_xids("i-1", (), None)
    assert clean.status is Status.PASS


def test_registered_check_reads_both_boots() -> None:
    findings = run_check(
        CHECK_ID,
        node("i-1", P5, healthy_p5(kernel_log=FELL_OFF, kernel_log_previous_boot=FELL_OFF_BEFORE)),
    )
    assert [f.status for f in findings] == [Status.FAIL]
    assert "repeated after a reboot" in findings[0].message


def test_without_a_persistent_journal_the_xid_is_not_called_repeated() -> None:
    findings = run_check(
        CHECK_ID,
        node(
            "i-1",
            P5,
            healthy_p5(kernel_log=FELL_OFF, kernel_log_previous_boot=samples.NO_PREVIOUS_BOOT),
        ),
    )
    [finding] = findings
    assert finding.status is Status.FAIL
    assert finding.evidence["previous_boot_read"] is False
    assert "repeated" not in finding.message


def test_missing_kernel_log_is_info() -> None:
    [finding] = run_check(CHECK_ID, node("i-1", P5, without(healthy_p5(), "kernel_log")))
    assert finding.status is Status.INFO
    assert "kernel log" in finding.message
