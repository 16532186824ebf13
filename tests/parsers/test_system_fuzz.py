"""Property tests: the system parsers never raise and keep their invariants on any input."""

from __future__ import annotations

import math
from collections.abc import Callable

from hypothesis import given, settings
from hypothesis import strategies as st

from cluster_simulator.node_samples import system
from tools.parsers.df import parse_df
from tools.parsers.kernel_log import KernelEventKind, parse_kernel_log
from tools.parsers.lscpu import parse_lscpu
from tools.parsers.meminfo import parse_meminfo
from tools.parsers.systemd import parse_units
from tools.parsers.time_sync import parse_time_sync
from tools.parsers.uptime import parse_uptime

from . import _real_output as real

SAMPLES: list[str] = [
    system.df_usage(root_pct=95, shm_pct=85),
    system.df_usage(nvme_exists=False),
    system.df_inodes(root_pct=99, nvme_mounted=False),
    system.meminfo(hugepages_total=64),
    system.uptime(),
    system.lscpu(cpus=96, threads_per_core=1),
    system.kernel_log([system.oom_kill_line(), system.soft_lockup_line(), system.panic_line()]),
    system.kernel_log_previous_boot([system.hung_task_line(), system.mce_line()]),
    system.time_sync(synchronized=False, offset_s=-3.0),
    system.services(system.eks_services(kubelet="failed")),
    # Real kernel log lines quoted in public sources (tests/parsers/_real_output.py).
    real.HUNG_KWORKER.text + real.SOFT_LOCKUP_KWORKER.text + real.OOM_SD_PAM.text,
    real.OOM_RHEL6.text + real.OOM_UID_AFTER.text + real.HUNG_KWORKER_UNBOUND.text,
]

# Text that looks like probe output: lines built from the characters these formats use.
probe_like = st.lists(
    st.text(alphabet="0123456789 %:=-/.[]()#!_,abcdefkKLMNOPRSTUVWXYZ\t", max_size=80),
    max_size=30,
).map("\n".join)


def check_df(text: str) -> None:
    report = parse_df(text)
    for row in report.rows:
        assert row.use_pct is None or 0 <= row.use_pct <= 100
        assert row.mounted_on.startswith("/")
        for value in (row.size, row.used, row.available):
            assert value is None or value >= 0
    for path, _ in report.paths:
        assert path not in report.missing
    for path in ("/", "/opt/dlami/nvme"):
        report.row_for(path)
        assert report.is_mount_point(path) in (True, False, None)
    report.mounts()


def check_meminfo(text: str) -> None:
    info = parse_meminfo(text)
    pct = info.available_pct
    assert pct is None or 0.0 <= pct <= 100.0
    assert all(value >= 0 for value in info.values.values())
    assert isinstance(info.hugepages_exhausted, bool)


def check_kernel_log(text: str) -> None:
    log = parse_kernel_log(text)
    for event in log.events:
        assert isinstance(event.kind, KernelEventKind)
        assert event.message == event.message.strip()
        if event.kind is KernelEventKind.OOM_KILL:
            assert event.pid is not None
        for number in (event.pid, event.cpu, event.seconds):
            assert number is None or number >= 0
    assert len(log.events) <= len(text.splitlines())


def check_time_sync(text: str) -> None:
    sync = parse_time_sync(text)
    assert sync.offset_s is None or math.isfinite(sync.offset_s)
    assert sync.chrony_synchronised in (True, False, None)
    assert sync.stratum is None or 0 <= sync.stratum <= 999


def check_units(text: str) -> None:
    units = parse_units(text)
    for unit in units.units:
        assert unit.id
        assert "/" in unit.state
        assert isinstance(unit.installed, bool)
        assert units.get(unit.id) is not None


def check_lscpu(text: str) -> None:
    cpu = parse_lscpu(text)
    for value in (cpu.cpus, cpu.online_cpus, cpu.threads_per_core, cpu.sockets):
        assert value is None or value >= 0


def check_uptime(text: str) -> None:
    up = parse_uptime(text)
    assert up.seconds is None or (math.isfinite(up.seconds) and up.seconds >= 0)


CHECKS: list[Callable[[str], None]] = [
    check_df,
    check_meminfo,
    check_kernel_log,
    check_time_sync,
    check_units,
    check_lscpu,
    check_uptime,
]


def check_all(text: str) -> None:
    for run in CHECKS:
        run(text)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400))
def test_arbitrary_text(text: str) -> None:
    check_all(text)


@settings(max_examples=300, deadline=None)
@given(probe_like)
def test_probe_like_text(text: str) -> None:
    check_all(text)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=600))
def test_random_bytes(data: bytes) -> None:
    check_all(data.decode("utf-8", errors="replace"))


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(SAMPLES), st.integers(min_value=0, max_value=5000))
def test_truncated_samples(sample: str, cut: int) -> None:
    check_all(sample[: cut % (len(sample) + 1)])


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(SAMPLES), st.integers(min_value=0, max_value=5000), st.text(max_size=40))
def test_samples_with_injected_noise(sample: str, at: int, noise: str) -> None:
    where = at % (len(sample) + 1)
    check_all(sample[:where] + noise + sample[where:])


def test_huge_numbers_do_not_reach_int() -> None:
    digits = "9" * 5000
    check_all(f"/dev/x {digits} 1 1 1% /\nMemTotal: {digits} kB\nCPU(s): {digits}\n{digits}\n")
    check_all(f"[{digits}.1] Out of memory: Killed process {digits} (x)\n")
