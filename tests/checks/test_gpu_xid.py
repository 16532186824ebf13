"""§ G.2 gpu-xid: classification, repeated hardware Xid after a reboot, unreadable logs."""

from __future__ import annotations

from cluster_simulator.node_samples import accelerators as samples
from tools.checks.gpu_xid import CHECK_ID, judge_xids
from tools.findings import Priority, Status
from tools.parsers.xid import parse_xids
from tools.remediation import Signal, advice, replacement_first

from ._accel_data import P5, healthy_p5, node, run_check, without

PCI = samples.driver_pci(3)
FELL_OFF = samples.xid_line(PCI, 79, "GPU has fallen off the bus.")
FELL_OFF_BEFORE = samples.xid_line(PCI, 79, "GPU has fallen off the bus.", style="journal")
APP = samples.xid_line(
    samples.driver_pci(1), 13, "Graphics SM Warp Exception", origin=samples.XidOrigin(pid="4812")
)
CLEANUP = samples.xid_line(
    samples.driver_pci(1), 45, "Ch 00000008", origin=samples.XidOrigin(pid="4812")
)
# Xid 71 (copy engine) is in the table now: an unlisted number stands for the unknown.
UNKNOWN = samples.xid_line(samples.driver_pci(2), 250, "unlisted event")
COPY_ENGINE = samples.xid_line(samples.driver_pci(2), 71, "CE4: Unknown Error")
DBE = samples.xid_line(PCI, 48, "An uncorrectable double bit error (DBE) has been detected.")
REMAP = samples.xid_line(
    PCI,
    63,
    "Row Remapper: New row (0x00000000000b8b1e) marked for remapping, reset gpu to activate.",
)
REMAP_FAILED = samples.xid_line(PCI, 64, "Row Remapper Error")
OTHER_GPU_FELL_OFF_BEFORE = samples.xid_line(
    samples.driver_pci(5), 79, "GPU has fallen off the bus.", style="journal"
)
UNPRIVILEGED_JOURNAL = (
    "Hint: You are currently not seeing messages from other users and the system.\n"
)


def recovery(action: str) -> str:
    return samples.xid_line(
        PCI,
        154,
        f"GPU recovery action changed from 0x0 (None) to {action}",
        origin=samples.XidOrigin(pid="0"),
    )


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
    assert "workload signal, not a node fault" in findings[0].message
    assert "from <unknown> (pid 4812)" not in findings[0].message
    assert "(pid 4812)" in findings[0].message
    assert not any(word in findings[0].message for word in ("reboot", "replace"))
    assert findings[0].evidence["workload"] is True
    assert "Xid 250" in findings[1].message


def test_xid_71_is_judged_as_hardware_and_repeats_mean_replace() -> None:
    [finding] = judge_xids("i-1", parse_xids(COPY_ENGINE), (), P5)
    assert (finding.status, finding.priority) == (Status.FAIL, Priority.P0)
    assert "hardware Xid 71 (copy engine (CE4) error)" in finding.message
    before = samples.xid_line(samples.driver_pci(2), 71, "CE4: Unknown Error", style="journal")
    [again] = judge_xids("i-1", parse_xids(COPY_ENGINE), parse_xids(before), P5)
    assert again.evidence["repeated_after_reboot"] is True
    assert "replace the node" in again.message


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


def test_different_hardware_xids_across_boots_are_not_called_repeated() -> None:
    [finding] = judge_xids("i-1", parse_xids(DBE), parse_xids(FELL_OFF_BEFORE), P5)
    assert (finding.status, finding.priority) == (Status.FAIL, Priority.P0)
    assert "repeated" not in finding.message
    assert "replace the node" not in finding.message
    assert "Xid 48" in finding.message
    assert "the previous boot had hardware Xid 79" in finding.message
    assert "isolate the node, reboot it" in finding.message
    assert finding.evidence["repeated_after_reboot"] is False
    assert finding.evidence["previous_boot"]["xids"] == [79]


def test_the_same_xid_on_another_gpu_is_not_called_repeated() -> None:
    [finding] = judge_xids("i-1", parse_xids(FELL_OFF), parse_xids(OTHER_GPU_FELL_OFF_BEFORE), P5)
    assert finding.status is Status.FAIL
    assert finding.evidence["repeated_after_reboot"] is False
    assert "previous boot had hardware Xid 79" in finding.message
    assert samples.driver_pci(5) in finding.message


def test_only_the_repeated_xid_is_named_repeated() -> None:
    [finding] = judge_xids("i-1", parse_xids(FELL_OFF + DBE), parse_xids(FELL_OFF_BEFORE), P5)
    assert finding.evidence["repeated_after_reboot"] is True
    assert "hardware Xid 79 (GPU has fallen off the bus) on 0000:86:00 repeated" in finding.message
    assert finding.evidence["xids"] == [48, 79]
    assert finding.evidence["previous_boot"]["xids"] == [79]


def test_xid_63_is_a_remap_to_apply_not_a_hardware_fault() -> None:
    [finding] = judge_xids("i-1", parse_xids(REMAP), parse_xids(REMAP), P5)
    assert (finding.status, finding.priority, finding.section) == (
        Status.WARN,
        Priority.P1,
        "G.1.a",
    )
    assert advice(Signal.GPU_ROW_REMAP_PENDING) in finding.message
    assert finding.evidence["remediation"] == Signal.GPU_ROW_REMAP_PENDING
    assert finding.evidence["xids"] == [63]


def test_xid_64_remap_failure_stays_hardware_p0() -> None:
    [finding] = judge_xids("i-1", parse_xids(REMAP_FAILED), None, P5)
    assert (finding.status, finding.priority) == (Status.FAIL, Priority.P0)
    assert "hardware Xid 64" in finding.message


def test_a_bare_xid_64_is_reset_first_and_judged_by_the_remap_failure_flag() -> None:
    # NVIDIA's catalogue names a GPU reset as Xid 64's immediate action; the flag read after
    # it (Remapping Failure Occurred) is the conclusive evidence, not the line itself.
    [finding] = judge_xids("i-1", parse_xids(REMAP_FAILED), None, P5)
    assert finding.evidence["remediation"] == Signal.XID_REMAP_NOT_RECORDED
    assert not replacement_first(finding.evidence["remediation"])
    assert advice(Signal.XID_REMAP_NOT_RECORDED) in finding.message
    assert "Remapping Failure Occurred" in finding.message


def test_xid_64_back_after_a_reboot_is_conclusive() -> None:
    before = samples.xid_line(PCI, 64, "Row Remapper Error", style="journal")
    [finding] = judge_xids("i-1", parse_xids(REMAP_FAILED), parse_xids(before), P5)
    assert finding.evidence["remediation"] == Signal.HARDWARE_XID_REPEATED
    assert replacement_first(finding.evidence["remediation"])


def test_xid_154_says_what_the_driver_asks_for() -> None:
    hardware, reboot = judge_xids(
        "i-1", parse_xids(FELL_OFF + recovery("0x2 (Node Reboot Required)")), None
    )
    assert hardware.evidence["xids"] == [79]
    assert (reboot.status, reboot.priority) == (Status.FAIL, Priority.P0)
    assert "the driver asks for a node reboot (Node Reboot Required)" in reboot.message
    assert reboot.evidence["recovery"] == "reboot"
    assert reboot.evidence["recovery_actions"] == ["Node Reboot Required"]

    [reset] = judge_xids("i-1", parse_xids(recovery("0x1 (GPU Reset Required)")), None)
    assert (reset.status, reset.priority) == (Status.FAIL, Priority.P0)
    assert "a GPU reset" in reset.message

    [drain] = judge_xids("i-1", parse_xids(recovery("0x3 (Drain P2P)")), None)
    assert (drain.status, drain.priority) == (Status.WARN, Priority.P1)
    assert "draining peer-to-peer traffic" in drain.message

    [unlabelled] = judge_xids(
        "i-1", parse_xids(samples.xid_line(PCI, 154, "GPU recovery action changed")), None
    )
    assert (unlabelled.status, unlabelled.priority) == (Status.WARN, Priority.P1)
    assert unlabelled.evidence["recovery"] == "unknown"

    [cleared] = judge_xids(
        "i-1",
        parse_xids(
            samples.xid_line(
                PCI,
                154,
                "GPU recovery action changed from 0x2 (Node Reboot Required) to 0x0 (None)",
            )
        ),
        None,
    )
    assert cleared.status is Status.INFO


def test_registered_check_different_xids_across_boots() -> None:
    [finding] = run_check(
        CHECK_ID,
        node("i-1", P5, healthy_p5(kernel_log=DBE, kernel_log_previous_boot=FELL_OFF_BEFORE)),
    )
    assert (finding.status, finding.priority) == (Status.FAIL, Priority.P0)
    assert "repeated" not in finding.message
    assert "previous boot had hardware Xid 79" in finding.message


def test_registered_check_remap_warns() -> None:
    [finding] = run_check(CHECK_ID, node("i-1", P5, healthy_p5(kernel_log=REMAP)))
    assert (finding.status, finding.priority, finding.section) == (
        Status.WARN,
        Priority.P1,
        "G.1.a",
    )


def test_an_unprivileged_journal_is_not_a_previous_boot() -> None:
    [finding] = run_check(
        CHECK_ID,
        node(
            "i-1",
            P5,
            healthy_p5(kernel_log=FELL_OFF, kernel_log_previous_boot=UNPRIVILEGED_JOURNAL),
        ),
    )
    assert finding.status is Status.FAIL
    assert finding.evidence["previous_boot_read"] is False


def test_a_refused_dmesg_is_not_a_clean_log() -> None:
    refused = "dmesg: read kernel buffer failed: Operation not permitted\n"
    [finding] = run_check(CHECK_ID, node("i-1", P5, healthy_p5(kernel_log=refused)))
    assert finding.status is Status.INFO
    assert "Could not read the kernel log" in finding.message
    assert "Operation not permitted" in finding.message


def test_application_xid_names_the_process_and_stays_a_warning() -> None:
    line = samples.xid_line(
        samples.driver_pci(4),
        31,
        "MMU Fault: ENGINE GRAPHICS",
        origin=samples.XidOrigin(pid="'77'", process="python3"),
    )
    stopped = samples.xid_line(
        samples.driver_pci(4), 43, "Ch 00000010", origin=samples.XidOrigin(pid="'77'")
    )
    [finding] = judge_xids("i-1", parse_xids(line + stopped), None, P5)
    assert (finding.status, finding.priority, finding.section) == (
        Status.WARN,
        Priority.P2,
        "G.2",
    )
    # The Xid 43 line repeats the pid without a name: one process, named once.
    assert "from python3 (pid 77) —" in finding.message
    assert finding.evidence["xids"] == [31, 43]
    assert finding.evidence["processes"] == ["python3 (pid 77)"]
