"""§ G.2 gpu-xid: the rules alone, on literal Xid events, without their words."""

from __future__ import annotations

from tools.checks.gpu_xid import (
    HardwareState,
    HardwareXids,
    RecoveryAsk,
    XidGroup,
    XidGroupKind,
    hardware_verdict,
    recovery_verdict,
    xid_verdicts,
)
from tools.explain.xid_catalog import XidKind
from tools.parsers.xid import XidEvent


def xid(number: int, kind: XidKind, pci: str = "0000:86:00", action: str | None = None) -> XidEvent:
    return XidEvent(number, pci, None, None, "", None, kind, "", "", recovery_action=action)


def test_only_the_same_xid_on_the_same_gpu_is_a_repeat() -> None:
    fell_off, dbe = xid(79, "hardware"), xid(48, "hardware")
    other_gpu = xid(79, "hardware", pci="0000:53:00")
    verdict = hardware_verdict((fell_off, dbe), (fell_off, other_gpu), previous_read=True)
    assert verdict is not None
    assert verdict.state is HardwareState.REPEATED_AFTER_REBOOT
    assert (verdict.repeated, verdict.before) == ((fell_off,), (fell_off,))


def test_hardware_in_one_boot_only() -> None:
    now, before = xid(79, "hardware"), xid(48, "hardware")
    this_boot = hardware_verdict((now,), (before,), previous_read=True)
    assert this_boot is not None
    assert (this_boot.state, this_boot.before) == (HardwareState.THIS_BOOT, (before,))
    earlier = hardware_verdict((), (before,), previous_read=True)
    assert earlier is not None
    assert earlier.state is HardwareState.PREVIOUS_BOOT_ONLY
    assert hardware_verdict((), (), previous_read=False) is None


def test_xid_154_is_judged_by_the_worst_recovery_asked() -> None:
    def need(*actions: str | None) -> str:
        return recovery_verdict(tuple(xid(154, "recovery-action", action=a) for a in actions)).need

    assert need("Drain P2P", "Node Reboot Required") == "reboot"
    assert need("GPU Reset Required", "Drain P2P") == "reset"
    assert need(None, "Drain P2P") == "drain"
    assert need(None) == "unknown"
    assert need("None") == "none"


def test_verdicts_come_in_report_order_and_follow_ons_only_alone() -> None:
    remap, app, follow_on = xid(63, "remap"), xid(13, "application"), xid(45, "follow-on")
    verdicts = xid_verdicts((app, follow_on, remap), None)
    assert verdicts == [
        XidGroup(XidGroupKind.REMAP, (remap,)),
        XidGroup(XidGroupKind.APPLICATION, (app,)),
    ]
    assert xid_verdicts((follow_on,), ()) == [XidGroup(XidGroupKind.FOLLOW_ON_ONLY, (follow_on,))]
    assert xid_verdicts((), None) == [XidGroup(XidGroupKind.CLEAN)]
    [ask] = xid_verdicts((xid(154, "recovery-action", action="None"),), ())
    assert isinstance(ask, RecoveryAsk)


def test_a_hardware_xid_records_whether_the_previous_boot_was_read() -> None:
    fell_off = xid(79, "hardware")
    assert xid_verdicts((fell_off,), None) == [
        HardwareXids(HardwareState.THIS_BOOT, (fell_off,), (), (), previous_read=False)
    ]
    [read] = xid_verdicts((fell_off,), ())
    assert isinstance(read, HardwareXids)
    assert read.previous_read
