"""tools/parsers systemd and time_sync over literal outputs and the scenario samples."""

from __future__ import annotations

from cluster_simulator.node_samples import system
from tools.parsers.systemd import parse_units
from tools.parsers.time_sync import parse_time_sync

SHOW = """\
Id=amazon-ssm-agent.service
LoadState=loaded
ActiveState=active
SubState=running

Id=snap.amazon-ssm-agent.amazon-ssm-agent.service
LoadState=not-found
ActiveState=inactive
SubState=dead

Id=kubelet.service
LoadState=loaded
ActiveState=activating
SubState=auto-restart
"""


def test_units_by_name() -> None:
    units = parse_units(SHOW)
    assert [u.name for u in units.units] == [
        "amazon-ssm-agent",
        "snap.amazon-ssm-agent.amazon-ssm-agent",
        "kubelet",
    ]
    ssm = units.get("amazon-ssm-agent.service")
    assert ssm is not None
    assert ssm.installed
    assert ssm.active
    snap = units.get("snap.amazon-ssm-agent.amazon-ssm-agent")
    assert snap is not None
    assert not snap.installed
    kubelet = units.get("kubelet")
    assert kubelet is not None
    assert kubelet.installed
    assert not kubelet.active
    assert kubelet.state == "activating/auto-restart"
    assert units.get("slurmd") is None


def test_blocks_without_blank_lines_split_on_a_repeated_key() -> None:
    text = SHOW.replace("\n\n", "\n")
    assert [u.name for u in parse_units(text).units] == [u.name for u in parse_units(SHOW).units]


def test_properties_in_another_order_and_noise() -> None:
    text = (
        "Starting session\nLoadState=loaded\nSubState=dead\nActiveState=inactive\n"
        "Id=munge.service\n"
    )
    munge = parse_units(text).get("munge")
    assert munge is not None
    assert (munge.load_state, munge.active_state, munge.sub_state) == ("loaded", "inactive", "dead")


def test_systemctl_unavailable() -> None:
    units = parse_units("System has not been booted with systemd as init system (PID 1).\n")
    assert units.units == ()
    assert units.unavailable is not None
    assert parse_units("sh: 1: systemctl: not found").unavailable is not None


def test_services_sample_round_trip() -> None:
    units = parse_units(system.services(system.eks_services(kubelet="failed")))
    assert len(units.units) == len(system.SERVICE_UNITS)
    kubelet = units.get("kubelet")
    assert kubelet is not None
    assert kubelet.state == "failed/failed"
    slurmd = units.get("slurmd")
    assert slurmd is not None
    assert not slurmd.installed
    slurm = parse_units(system.services(system.slurm_services(munge="inactive")))
    munge = slurm.get("munge")
    assert munge is not None
    assert munge.installed
    assert not munge.active


TRACKING = """\
NTP=yes
NTPSynchronized=yes
Reference ID    : A9FEA97B (169.254.169.123)
Stratum         : 4
Ref time (UTC)  : Fri Nov 20 11:59:31 2026
System time     : 0.000011243 seconds slow of NTP time
Last offset     : -0.000001342 seconds
Leap status     : Normal
"""


def test_synchronised_chrony() -> None:
    sync = parse_time_sync(TRACKING)
    assert sync.ntp_synchronized is True
    assert sync.ntp_enabled is True
    assert sync.leap_status == "Normal"
    assert sync.chrony_synchronised is True
    assert sync.offset_s == -0.000011243
    assert sync.stratum == 4
    assert sync.reference == "A9FEA97B (169.254.169.123)"
    assert sync.notes == ()


def test_missing_tools_and_daemon() -> None:
    sync = parse_time_sync("bash: timedatectl: command not found\nsh: 1: chronyc: not found\n")
    assert sync.empty
    assert sync.notes == ("timedatectl not installed", "chronyc not installed")
    down = parse_time_sync("NTP=yes\nNTPSynchronized=no\n506 Cannot talk to daemon\n")
    assert down.ntp_synchronized is False
    assert down.chrony_synchronised is None
    assert down.notes == ("chronyd not answering",)


def test_time_sync_samples_round_trip() -> None:
    bad = parse_time_sync(system.time_sync(synchronized=False, offset_s=-4.5))
    assert bad.ntp_synchronized is False
    assert bad.chrony_synchronised is False
    assert bad.offset_s == -4.5
    drift = parse_time_sync(system.time_sync(offset_s=2.25))
    assert drift.chrony_synchronised is True
    assert drift.offset_s == 2.25
    no_chrony = parse_time_sync(system.time_sync(chrony=False))
    assert no_chrony.ntp_synchronized is True
    assert no_chrony.leap_status is None
