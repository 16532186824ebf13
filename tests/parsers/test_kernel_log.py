"""tools/parsers/kernel_log.py: timestamps stripped, signatures classified, Xid left alone."""

# Real kernel lines are long; they are kept verbatim rather than wrapped.
# ruff: noqa: E501

from __future__ import annotations

import pytest

from cluster_simulator.node_samples import system
from tools.parsers.kernel_log import (
    KernelEventKind,
    classify,
    parse_kernel_log,
    strip_timestamp,
)

K = KernelEventKind

DMESG = """\
[Fri Nov 20 11:31:02 2026] python invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0
[Fri Nov 20 11:31:02 2026] oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,task_memcg=/user.slice,task=python,pid=48211,uid=0
[Fri Nov 20 11:31:02 2026] Out of memory: Killed process 48211 (python) total-vm:98765432kB, anon-rss:87654321kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:171234kB oom_score_adj:0
[Fri Nov 20 11:31:03 2026] oom_reaper: reaped process 48211 (python), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB
[Fri Nov 20 11:40:17 2026] NVRM: Xid (PCI:0000:53:00): 79, pid=1912, name=python, GPU has fallen off the bus.
[Fri Nov 20 11:40:17 2026] NVRM: GPU 0000:53:00.0: GPU has fallen off the bus.
[Fri Nov  6 09:01:44 2026] watchdog: BUG: soft lockup - CPU#12 stuck for 23s! [python:4242]
"""

JOURNAL = """\
-- Boot 3f1e0c2d9a7b4c5d8e6f7a8b9c0d1e2f --
2026-11-18T08:14:22+0000 ip-10-1-0-11 kernel: INFO: task kworker/u256:3:1234 blocked for more than 122 seconds.
2026-11-18T08:14:22+0000 ip-10-1-0-11 kernel: "echo 0 > /proc/sys/kernel/hung_task_timeout_secs" disables this message.
2026-11-18T08:15:01+00:00 ip-10-1-0-11 kernel: Kernel panic - not syncing: Hard LOCKUP
"""


def test_dmesg_lines_are_stripped_and_classified() -> None:
    log = parse_kernel_log(DMESG)
    assert [e.kind for e in log.events] == [
        K.OOM,
        K.OOM,
        K.OOM_KILL,
        K.OOM,
        K.XID,
        K.NVRM,
        K.SOFT_LOCKUP,
    ]
    kill = log.events[2]
    assert (kill.process, kill.pid) == ("python", 48211)
    assert kill.timestamp == "Fri Nov 20 11:31:02 2026"
    assert kill.message.startswith("Out of memory: Killed process")
    lockup = log.events[-1]
    assert (lockup.cpu, lockup.seconds, lockup.process, lockup.pid) == (12, 23, "python", 4242)
    assert lockup.timestamp == "Fri Nov  6 09:01:44 2026"
    assert log.of_kind(K.OOM_KILL) == (kill,)
    assert not log.previous_boot_unavailable


def test_journal_lines_lose_timestamp_host_and_ident() -> None:
    log = parse_kernel_log(JOURNAL)
    assert [e.kind for e in log.events] == [K.HUNG_TASK, K.OTHER, K.PANIC]
    hung = log.events[0]
    assert (hung.process, hung.pid, hung.seconds) == ("kworker/u256:3", 1234, 122)
    assert hung.timestamp == "2026-11-18T08:14:22+0000"
    assert hung.message.startswith("INFO: task")
    assert log.events[2].timestamp == "2026-11-18T08:15:01+00:00"


def test_raw_dmesg_timestamps() -> None:
    assert strip_timestamp("[  123.456789] NMI watchdog: Enabled.") == (
        "123.456789",
        "NMI watchdog: Enabled.",
    )
    assert strip_timestamp("no stamp here") == (None, "no stamp here")


@pytest.mark.parametrize(
    ("message", "kind"),
    [
        ("NMI watchdog: Watchdog detected hard LOCKUP on cpu 5", K.HARD_LOCKUP),
        ("Uhhuh. NMI received for unknown reason 3d on CPU 0.", K.NMI),
        ("NMI: PCI system error (SERR) for reason a1 on CPU 0.", K.NMI),
        ("Dazed and confused, but trying to continue", K.NMI),
        ("mce: [Hardware Error]: Machine check events logged", K.MCE),
        ("BUG: workqueue lockup - pool cpus=3 node=0 flags=0x0 nice=0 stuck for 41s!", K.WATCHDOG),
        ("blk_update_request: I/O error, dev nvme1n1, sector 2048 op 0x1:(WRITE)", K.IO_ERROR),
        ("Buffer I/O error on dev nvme0n1p1, logical block 0, async page read", K.IO_ERROR),
        (
            "Memory cgroup out of memory: Killed process 7 (pt_main_thread) total-vm:1kB",
            K.CGROUP_OOM_KILL,
        ),
        ("Memory cgroup out of memory: Kill process 7 (java) score 900 or sacrifice child", K.OOM),
        ("Out of memory: Kill process 1234 (java) score 900 or sacrifice child", K.OOM),
        ("NVRM: GPU at PCI:0000:53:00: GPU-5f0a8c1e-0000-0000-0000-000000000000", K.OTHER),
        ("NVRM: nvAssertFailedNoLog: Assertion failed: 0 @ gpu.c:2012", K.NVRM),
        ("NVRM: Xid (PCI:0000:a8:00): 48, pid=2, DBE (0x1,0x1)", K.XID),
        ("NVRM: Xid (PCI:0000:a8:00): 119, pid=2, Timeout after 6s of waiting for RPC", K.XID),
        ("Kernel panic - not syncing: softlockup: hung tasks", K.PANIC),
        ("khungtaskd: hung_task: blocked tasks", K.HUNG_TASK),
        ("watchdog: BUG: soft lockup - CPU#7 stuck for 22s! [swapper/7:0]", K.SOFT_LOCKUP),
        ("rcu: INFO: rcu_sched self-detected stall on CPU", K.OTHER),
    ],
)
def test_classification(message: str, kind: KernelEventKind) -> None:
    assert classify(message).kind is kind


def test_benign_boot_lines_are_not_faults() -> None:
    log = parse_kernel_log(system.kernel_log([system.nvrm_loading_line()]))
    assert {e.kind for e in log.events} == {K.OTHER}


def test_previous_boot_unavailable() -> None:
    log = parse_kernel_log(system.kernel_log_previous_boot(None))
    assert log.events == ()
    assert log.previous_boot_unavailable
    assert parse_kernel_log("-- No entries --\n").previous_boot_unavailable


# What journalctl answers for `-b -1` when there is no previous boot, across systemd versions.
NO_PREVIOUS_BOOT = [
    "Data from the specified boot (-1) is not available: No such boot ID in journal",
    "No journal boot entry found from the specified boot offset (-1).",
    "No journal boot entry found for the specified boot (-1).",
    "Failed to look up boot -1: No such boot ID in journal",
    "Failed to find journal entry from the specified boot offset (-1): Cannot assign requested address",
    "-- No entries --",
]


@pytest.mark.parametrize("answer", NO_PREVIOUS_BOOT)
def test_journalctl_answers_for_a_first_boot_mean_unavailable(answer: str) -> None:
    log = parse_kernel_log(answer + "\n")
    assert log.previous_boot_unavailable
    assert log.events == ()
    assert log.refused is None


def test_an_unprivileged_journalctl_is_a_refusal() -> None:
    text = (
        "Hint: You are currently not seeing messages from other users and the system.\n"
        "      Users in groups 'adm', 'systemd-journal' can see all messages.\n"
    )
    log = parse_kernel_log(text)
    assert log.refused is not None
    assert log.refused.startswith("Hint: You are currently not seeing messages")
    # The same words inside a timestamped kernel message are a kernel message.
    stamped = "[Fri Nov 20 11:30:00 2026] audit: hint: you are currently not seeing messages from other users and the system"
    assert parse_kernel_log(stamped + "\n").refused is None


def test_cgroup_oom_kills_are_tagged_apart_from_node_oom_kills() -> None:
    text = system.kernel_log(
        [
            # Newer kernels: the constraint line names the memory cgroup and the pid.
            "python invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0",
            "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=cri-containerd-1a2b,mems_allowed=0-1,oom_memcg=/kubepods/burstable/pod7f3e,task_memcg=/kubepods/burstable/pod7f3e/1a2b,task=python,pid=48211,uid=0",
            "Memory cgroup out of memory: Killed process 48211 (python) total-vm:98765432kB, anon-rss:87654321kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:171234kB oom_score_adj:985",
            # Older kernels: the kill is announced, then printed without the cgroup words.
            "Memory cgroup out of memory: Kill process 77 (java) score 900 or sacrifice child",
            "Killed process 77 (java) total-vm:10kB, anon-rss:5kB, file-rss:0kB",
            # A node OOM: the global constraint.
            "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,task_memcg=/user.slice,task=trainer,pid=9,uid=0",
            system.oom_kill_line("trainer", 9),
        ]
    )
    log = parse_kernel_log(text)
    cgroup = log.of_kind(K.CGROUP_OOM_KILL)
    assert [(e.process, e.pid) for e in cgroup] == [("python", 48211), ("java", 77)]
    assert [(e.process, e.pid) for e in log.of_kind(K.OOM_KILL)] == [("trainer", 9)]


def test_samples_round_trip() -> None:
    lines = [
        system.oom_invoked_line("python", 1),
        system.oom_kill_line("python", 1),
        system.soft_lockup_line(3, 45, "pt_main_thread", 77),
        system.hard_lockup_line(9),
        system.hung_task_line("python", 8, 241),
        system.panic_line(),
        system.nmi_line(2),
        system.mce_line(),
        system.io_error_line(),
        system.nvrm_error_line(),
    ]
    log = parse_kernel_log(system.kernel_log(lines))
    kinds = [e.kind for e in log.events if e.kind is not K.OTHER]
    assert kinds == [
        K.OOM,
        K.OOM_KILL,
        K.SOFT_LOCKUP,
        K.HARD_LOCKUP,
        K.HUNG_TASK,
        K.PANIC,
        K.NMI,
        K.MCE,
        K.IO_ERROR,
        K.NVRM,
    ]
    assert all(e.timestamp for e in log.events)
    soft = log.of_kind(K.SOFT_LOCKUP)[0]
    assert (soft.cpu, soft.seconds, soft.process, soft.pid) == (3, 45, "pt_main_thread", 77)
    assert log.of_kind(K.HARD_LOCKUP)[0].cpu == 9
    previous = parse_kernel_log(system.kernel_log_previous_boot([system.panic_line("Fatal")]))
    assert [e.kind for e in previous.events] == [K.PANIC]
    assert previous.events[0].timestamp is not None
    assert previous.events[0].message == "Kernel panic - not syncing: Fatal"
