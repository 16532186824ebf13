"""tools/parsers meminfo, lscpu and uptime over literal outputs and the scenario samples."""

from __future__ import annotations

from cluster_simulator.node_samples import system
from tools.parsers.lscpu import count_cpu_list, parse_lscpu
from tools.parsers.meminfo import parse_meminfo
from tools.parsers.uptime import parse_uptime

MEMINFO = """\
MemTotal:       2097152000 kB
MemFree:          41234560 kB
MemAvailable:     62914560 kB
Buffers:           1204332 kB
SwapTotal:               0 kB
SwapFree:                0 kB
HugePages_Total:    5128
HugePages_Free:        0
HugePages_Rsvd:        0
HugePages_Surp:        0
Hugepagesize:       2048 kB
DirectMap1G:    2080374784 kB
"""

LSCPU_OLD = """\
Architecture:        x86_64
CPU op-mode(s):      32-bit, 64-bit
Byte Order:          Little Endian
CPU(s):              96
On-line CPU(s) list: 0-95
Thread(s) per core:  1
Core(s) per socket:  48
Socket(s):           2
NUMA node(s):        2
Vendor ID:           AuthenticAMD
Model name:          AMD EPYC 7R13 Processor
NUMA node0 CPU(s):   0-47
NUMA node1 CPU(s):   48-95
"""


def test_meminfo_fields_and_hugepages() -> None:
    info = parse_meminfo(MEMINFO)
    assert info.mem_total_kib == 2097152000
    assert info.mem_available_kib == 62914560
    assert info.hugepages_total == 5128
    assert info.hugepages_free == 0
    assert info.hugepage_size_kib == 2048
    assert info.hugepages_exhausted
    assert info.available_pct is not None
    assert round(info.available_pct, 1) == 3.0
    assert info.values["DirectMap1G"] == 2080374784


def test_meminfo_without_totals_has_no_percentage() -> None:
    info = parse_meminfo("MemAvailable: 10 kB\ncat: /proc/meminfo: No such file\n")
    assert info.available_pct is None
    assert not info.hugepages_exhausted
    assert parse_meminfo("").empty
    assert parse_meminfo("MemTotal: 0 kB\nMemAvailable: 5 kB").available_pct is None


def test_meminfo_sample_round_trip() -> None:
    text = system.meminfo(
        total_kib=1_000_000, available_kib=30_000, hugepages_total=64, hugepages_free=0
    )
    info = parse_meminfo(text)
    assert (info.mem_total_kib, info.mem_available_kib) == (1_000_000, 30_000)
    assert info.available_pct == 3.0
    assert info.hugepages_exhausted
    assert not parse_meminfo(system.meminfo()).hugepages_exhausted


def test_lscpu_old_flat_layout() -> None:
    cpu = parse_lscpu(LSCPU_OLD)
    assert (cpu.cpus, cpu.online_cpus, cpu.threads_per_core) == (96, 96, 1)
    assert (cpu.cores_per_socket, cpu.sockets) == (48, 2)
    assert cpu.model_name == "AMD EPYC 7R13 Processor"


def test_lscpu_nested_sample_round_trip() -> None:
    cpu = parse_lscpu(system.lscpu(cpus=96, threads_per_core=1))
    assert (cpu.cpus, cpu.online_cpus, cpu.threads_per_core) == (96, 96, 1)
    assert cpu.cores_per_socket == 48
    full = parse_lscpu(system.lscpu())
    assert (full.cpus, full.threads_per_core, full.sockets) == (192, 2, 2)


def test_lscpu_garbage_and_missing_tool() -> None:
    assert parse_lscpu("sh: 1: lscpu: not found\n").empty
    cpu = parse_lscpu("CPU(s): lots\nThread(s) per core: 2\n")
    assert cpu.cpus is None
    assert cpu.threads_per_core == 2


def test_cpu_lists() -> None:
    assert count_cpu_list("0-95,128-191") == 160
    assert count_cpu_list("3") == 1
    assert count_cpu_list("5-1") is None
    assert count_cpu_list("0-a") is None


def test_uptime() -> None:
    up = parse_uptime("350735.47 234388.90\n")
    assert up.seconds == 350735.47
    assert up.idle_seconds == 234388.90
    assert parse_uptime(system.uptime(3600)).seconds == 3600.0
    assert parse_uptime("banner\n12.5\n").seconds == 12.5
    assert parse_uptime("-5 3\n").seconds is None
    assert parse_uptime("cat: /proc/uptime: No such file or directory").seconds is None
