"""Xid lines from dmesg -T, raw dmesg and journalctl short-iso."""

# ruff: noqa: E501  (literal tool output keeps its real line lengths)

from __future__ import annotations

from tools.parsers.xid import gpus, no_previous_boot, numbers, of_kind, parse_xid_line, parse_xids

DMESG = """\
[Tue Oct  8 03:22:07 2024] NVRM: GPU at PCI:0000:53:00: GPU-2f6d53c1-8b7a-4f0e-9c52-7d1e0a3b4c01
[Tue Oct  8 03:22:07 2024] NVRM: Xid (PCI:0000:53:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.
[Tue Oct  8 03:25:41 2024] NVRM: Xid (PCI:0000:64:00): 13, pid=48213, name=python3, Graphics SM Warp Exception on (GPC 1, TPC 0, SM 1): Illegal Instruction Encoding
[Tue Oct  8 03:25:41 2024] NVRM: Xid (PCI:0000:64:00): 45, pid=48213, name=python3, Ch 00000008
[Tue Oct  8 03:30:00 2024] NVRM: Xid (PCI:0000:75:00): 71, pid=0, name=swapper, copy engine error
[Tue Oct  8 03:31:00 2024] oom-kill:constraint=CONSTRAINT_NONE
"""

JOURNAL = """\
2024-10-07T22:10:03+0000 ip-10-1-88-12 kernel: NVRM: Xid (PCI:0000:53:00): 79, pid=1203, name=pt_main_thread, GPU has fallen off the bus.
2024-10-07T22:10:03+00:00 ip-10-1-88-12 kernel: NVRM: Xid (PCI:0000:53:00): 48, pid='<unknown>', name=<unknown>, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 2, subpartition 0.
"""


def test_dmesg_lines_classified() -> None:
    events = parse_xids(DMESG)
    assert [e.xid for e in events] == [79, 13, 45, 71]
    fell_off = events[0]
    assert fell_off.pci == "0000:53:00"
    assert fell_off.kind == "hardware"
    assert fell_off.pid is None
    assert fell_off.process is None
    assert fell_off.text == "GPU has fallen off the bus."
    assert fell_off.timestamp == "Tue Oct  8 03:22:07 2024"
    app = events[1]
    assert app.kind == "application"
    assert app.pid == "48213"
    assert app.process == "python3"
    assert app.text.startswith("Graphics SM Warp Exception")
    assert events[2].kind == "follow-on"
    assert events[3].kind == "hardware"  # Xid 71, a copy engine error
    assert numbers(of_kind(events, "hardware")) == [71, 79]
    assert gpus(events) == ["0000:53:00", "0000:64:00", "0000:75:00"]


def test_journal_short_iso_lines() -> None:
    events = parse_xids(JOURNAL)
    assert [(e.xid, e.timestamp) for e in events] == [
        (79, "2024-10-07T22:10:03+0000"),
        (48, "2024-10-07T22:10:03+00:00"),
    ]
    assert events[1].kind == "hardware"
    assert events[0].process == "pt_main_thread"


def test_raw_dmesg_timestamp_and_no_pid() -> None:
    event = parse_xid_line("[12345.678901] NVRM: Xid (PCI:0000:ca:00): 94, Contained ECC error")
    assert event is not None
    assert (event.timestamp, event.xid, event.text) == ("12345.678901", 94, "Contained ECC error")


def test_non_xid_lines_are_ignored() -> None:
    assert parse_xid_line("[Tue Oct  8 03:22:07 2024] NVRM: loading NVIDIA UNIX driver") is None
    assert parse_xids("") == ()


def test_previous_boot_unavailable_markers() -> None:
    assert no_previous_boot(
        "Specifying boot ID or boot offset has no effect, no persistent journal was found.\n"
    )
    assert no_previous_boot("No journal boot entry found from the specified boot offset (-1).")
    assert not no_previous_boot(JOURNAL)


def test_xid_63_is_a_remap_event_and_64_stays_hardware() -> None:
    remap = parse_xid_line(
        "NVRM: Xid (PCI:0000:18:00): 63, pid=3321, name=torchrun, Row Remapper: New row "
        "(0x00000000000b8b1e) marked for remapping, reset gpu to activate."
    )
    failure = parse_xid_line("NVRM: Xid (PCI:0000:bb:00): 64, pid=0, Row Remapper Error")
    assert remap is not None
    assert failure is not None
    assert remap.kind == "remap"
    assert failure.kind == "hardware"


def test_xid_154_names_the_recovery_the_driver_asks_for() -> None:
    text = """\
[Sun Mar 29 19:20:37 2026] NVRM: Xid (PCI:0000:5f:00): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)
[Sun Mar 29 19:20:38 2026] NVRM: Xid (PCI:0000:01:00): 154, pid='<unknown>', name=<unknown>, GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)
[Sun Mar 29 19:20:39 2026] NVRM: Xid (PCI:0000:02:00): 154, GPU recovery action changed from 0x0 (None) to 0x3 (Drain P2P)
[Sun Mar 29 19:20:40 2026] NVRM: Xid (PCI:0000:03:00): 154, GPU recovery action changed from 0x0 (None) to 0x4 (Drain and Reset)
[Sun Mar 29 19:20:41 2026] NVRM: Xid (PCI:0000:04:00): 154, GPU recovery action changed from 0x2 (Node Reboot Required) to 0x0 (None)
[Sun Mar 29 19:20:42 2026] NVRM: Xid (PCI:0000:05:00): 154, GPU recovery action changed
"""
    events = parse_xids(text)
    assert {e.kind for e in events} == {"recovery-action"}
    assert [(e.recovery_action, e.recovery) for e in events] == [
        ("GPU Reset Required", "reset"),
        ("Node Reboot Required", "reboot"),
        ("Drain P2P", "drain"),
        ("Drain and Reset", "reset"),
        ("None", "none"),
        (None, "unknown"),
    ]
    assert events[1].process is None


def test_other_xids_carry_no_recovery_action() -> None:
    event = parse_xid_line("NVRM: Xid (PCI:0000:53:00): 79, pid=1, GPU has fallen off the bus.")
    assert event is not None
    assert event.recovery_action is None


def test_no_previous_boot_covers_journalctl_answers() -> None:
    for answer in (
        "Data from the specified boot (-1) is not available: No such boot ID in journal",
        "Failed to look up boot -1: No such boot ID in journal",
        "-- No entries --",
    ):
        assert no_previous_boot(answer + "\n"), answer
