"""Raw stdout of the system probes (disks, memory, CPU, kernel log, time, services, uptime).

Each function prints what the catalogued command prints on a HyperPod node (Ubuntu DLAMI
layout: root on /dev/root, the secondary EBS volume on /opt/sagemaker, the instance store
as a RAID-0 /dev/md0 on /opt/dlami/nvme), with parameters for the faults the bundled
scenarios need. The parsers in tools/parsers read all of it back (tests hold them to it).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta

from cluster_simulator.base import RECORDED_AT

GIB_KIB = 1024 * 1024

# (filesystem, 1K-blocks, inodes) of each mount, sized like a p5.48xlarge node.
_ROOT = ("/dev/root", 100 * GIB_KIB, 12_800_000)
_SAGEMAKER = ("/dev/nvme1n1", 500 * GIB_KIB, 32_768_000)
_NVME = ("/dev/md0", 28_000 * GIB_KIB, 1_800_000_000)
_SHM = ("tmpfs", 1_000 * GIB_KIB, 262_144_000)


def _row(filesystem: str, size: int, pct: int, mount: str) -> str:
    # df rounds the percentage up; integer "used" keeps the printed value exact.
    used = size * pct // 100
    return f"{filesystem:<16}{size:>14}{used:>14}{size - used:>14}{pct:>8}% {mount}"


def _df(
    header: str,
    sizes: tuple[int, int, int, int],
    pcts: tuple[int, int, int, int],
    nvme_mounted: bool,
    nvme_exists: bool,
) -> str:
    root, sagemaker, nvme, shm = sizes
    lines = []
    if not nvme_exists:
        # stderr is unbuffered, so df's complaint lands before the rows it buffered.
        lines.append("df: /opt/dlami/nvme: No such file or directory")
    lines.append(header)
    lines.append(_row(_ROOT[0], root, pcts[0], "/"))
    lines.append(_row(_SAGEMAKER[0], sagemaker, pcts[1], "/opt/sagemaker"))
    if nvme_exists:
        if nvme_mounted:
            lines.append(_row(_NVME[0], nvme, pcts[2], "/opt/dlami/nvme"))
        else:  # the directory exists on the root volume: df answers with the root row
            lines.append(_row(_ROOT[0], root, pcts[0], "/"))
    lines.append(_row(_SHM[0], shm, pcts[3], "/dev/shm"))
    return "\n".join(lines) + "\n"


def df_usage(
    root_pct: int = 42,
    opt_sagemaker_pct: int = 10,
    nvme_pct: int = 1,
    shm_pct: int = 1,
    *,
    nvme_mounted: bool = True,
    nvme_exists: bool = True,
) -> str:
    """`df -P / /opt/sagemaker /opt/dlami/nvme /dev/shm`."""
    return _df(
        "Filesystem     1024-blocks      Used Available Capacity Mounted on",
        (_ROOT[1], _SAGEMAKER[1], _NVME[1], _SHM[1]),
        (root_pct, opt_sagemaker_pct, nvme_pct, shm_pct),
        nvme_mounted,
        nvme_exists,
    )


def df_inodes(
    root_pct: int = 6,
    opt_sagemaker_pct: int = 1,
    nvme_pct: int = 1,
    shm_pct: int = 1,
    *,
    nvme_mounted: bool = True,
    nvme_exists: bool = True,
) -> str:
    """`df -P -i / /opt/sagemaker /opt/dlami/nvme /dev/shm`."""
    return _df(
        "Filesystem         Inodes     IUsed     IFree IUse% Mounted on",
        (_ROOT[2], _SAGEMAKER[2], _NVME[2], _SHM[2]),
        (root_pct, opt_sagemaker_pct, nvme_pct, shm_pct),
        nvme_mounted,
        nvme_exists,
    )


def meminfo(
    total_kib: int = 2_097_152_000,
    available_kib: int = 1_950_000_000,
    *,
    hugepages_total: int = 0,
    hugepages_free: int = 0,
    hugepage_size_kib: int = 2048,
) -> str:
    """`cat /proc/meminfo` (the fields a 5.15 / 6.8 kernel prints, trimmed of the rarest)."""
    free = max(available_kib - 40_000_000, 0)
    fields: list[tuple[str, int, bool]] = [
        ("MemTotal", total_kib, True),
        ("MemFree", free, True),
        ("MemAvailable", available_kib, True),
        ("Buffers", 1_204_332, True),
        ("Cached", 38_112_556, True),
        ("SwapCached", 0, True),
        ("Active", 21_554_120, True),
        ("Inactive", 30_112_448, True),
        ("Shmem", 2_210_004, True),
        ("Slab", 6_884_212, True),
        ("SwapTotal", 0, True),
        ("SwapFree", 0, True),
        ("Dirty", 1_024, True),
        ("AnonPages", 12_903_332, True),
        ("Mapped", 1_512_220, True),
        ("CommitLimit", total_kib // 2, True),
        ("Committed_AS", 40_221_900, True),
        ("VmallocTotal", 34_359_738_367, True),
        ("HugePages_Total", hugepages_total, False),
        ("HugePages_Free", hugepages_free, False),
        ("HugePages_Rsvd", 0, False),
        ("HugePages_Surp", 0, False),
        ("Hugepagesize", hugepage_size_kib, True),
        ("Hugetlb", hugepages_total * hugepage_size_kib, True),
        ("DirectMap4k", 1_093_632, True),
        ("DirectMap2M", 56_481_792, True),
    ]
    lines = [f"{name + ':':<16}{value:>10}{' kB' if kib else ''}" for name, value, kib in fields]
    return "\n".join(lines) + "\n"


def uptime(seconds: float = 864_000.0) -> str:
    """`cat /proc/uptime` (idle time summed over 192 CPUs)."""
    return f"{seconds:.2f} {seconds * 190:.2f}\n"


def lscpu(
    cpus: int = 192,
    threads_per_core: int = 2,
    sockets: int = 2,
    model: str = "AMD EPYC 7R13 Processor",
) -> str:
    """`lscpu` as util-linux 2.37+ prints it (nested fields indented)."""
    cores = max(cpus // max(threads_per_core * sockets, 1), 1)
    half = cpus // 2
    return (
        "Architecture:                       x86_64\n"
        "  CPU op-mode(s):                   32-bit, 64-bit\n"
        "  Address sizes:                    48 bits physical, 48 bits virtual\n"
        "  Byte Order:                       Little Endian\n"
        f"CPU(s):                             {cpus}\n"
        f"  On-line CPU(s) list:              0-{cpus - 1}\n"
        "Vendor ID:                          AuthenticAMD\n"
        f"  Model name:                       {model}\n"
        "    CPU family:                     25\n"
        "    Model:                          1\n"
        f"    Thread(s) per core:             {threads_per_core}\n"
        f"    Core(s) per socket:             {cores}\n"
        f"    Socket(s):                      {sockets}\n"
        "    Stepping:                       1\n"
        "    BogoMIPS:                       5299.99\n"
        "Virtualization features:\n"
        "  Hypervisor vendor:                KVM\n"
        "  Virtualization type:              full\n"
        "NUMA:\n"
        "  NUMA node(s):                     2\n"
        f"  NUMA node0 CPU(s):                0-{half - 1}\n"
        f"  NUMA node1 CPU(s):                {half}-{cpus - 1}\n"
    )


def kernel_release(release: str = "5.15.0-1063-aws") -> str:
    return release + "\n"


# -- kernel log lines (message only; kernel_log() adds the timestamps) ---------------------


def oom_kill_line(process: str = "python", pid: int = 48211) -> str:
    return (
        f"Out of memory: Killed process {pid} ({process}) total-vm:98765432kB, "
        "anon-rss:87654321kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:171234kB "
        "oom_score_adj:0"
    )


def oom_invoked_line(process: str = "python", pid: int = 48211) -> str:
    return (
        f"{process} invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), "
        "order=0, oom_score_adj=0"
    )


def soft_lockup_line(
    cpu: int = 12, seconds: int = 23, process: str = "python", pid: int = 4242
) -> str:
    return f"watchdog: BUG: soft lockup - CPU#{cpu} stuck for {seconds}s! [{process}:{pid}]"


def hard_lockup_line(cpu: int = 5) -> str:
    return f"NMI watchdog: Watchdog detected hard LOCKUP on cpu {cpu}"


def hung_task_line(process: str = "python", pid: int = 4242, seconds: int = 122) -> str:
    return f"INFO: task {process}:{pid} blocked for more than {seconds} seconds."


def panic_line(reason: str = "Fatal exception") -> str:
    return f"Kernel panic - not syncing: {reason}"


def nmi_line(cpu: int = 0) -> str:
    return f"Uhhuh. NMI received for unknown reason 3d on CPU {cpu}."


def mce_line(cpu: int = 0, bank: int = 5) -> str:
    return f"mce: [Hardware Error]: CPU {cpu}: Machine Check: 0 Bank {bank}: bea0000000000108"


def io_error_line(device: str = "nvme1n1", sector: int = 2048) -> str:
    return f"blk_update_request: I/O error, dev {device}, sector {sector} op 0x1:(WRITE) flags 0x0"


def nvrm_error_line(bus: str = "0000:53:00.0") -> str:
    return f"NVRM: GPU {bus}: RmInitAdapter failed! (0x26:0x56:1482)"


def oops_lines(process: str = "python", pid: int = 4242, cpu: int = 7) -> list[str]:
    """A kernel NULL pointer oops as the kernel prints it: the BUG line, then the Oops line
    with the die counter, then the CPU / task line the oops names."""
    return [
        "BUG: kernel NULL pointer dereference, address: 0000000000000008",
        "Oops: 0000 [#1] SMP NOPTI",
        f"CPU: {cpu} PID: {pid} Comm: {process} Tainted: P           OE     5.15.0-1063-aws #69",
    ]


def user_trap_line(process: str = "python", pid: int = 4242) -> str:
    """A user process's own fault: the kernel reports it, but it is not a kernel oops."""
    return (
        f"traps: {process}[{pid}] general protection fault ip:7f3a1c2b4e10 sp:7ffd5c1e9a80 "
        "error:0 in libc.so.6[7f3a1c228000+195000]"
    )


def nvrm_loading_line(version: str = "535.183.01") -> str:
    return (
        f"NVRM: loading NVIDIA UNIX x86_64 Kernel Module  {version}  Tue Jun  4 22:09:08 UTC 2024"
    )


def benign_boot_lines() -> list[str]:
    """What the signature grep lets through on every healthy boot."""
    return [
        "NMI watchdog: Enabled. Permanently consumes one hw-PMU counter.",
        "watchdog: Disabling watchdog on nohz_full cores by default",
        "mce: CPU0: Thermal monitoring enabled (TM1)",
        "MCE: In-kernel MCE decoding enabled.",
        "efa: loading out-of-tree module taints kernel.",
        "efa 0000:10:1c.0: Setup irq:0x3c name:efa-mgmnt@pci:0000:10:1c.0",
    ]


def _dmesg_time(moment: datetime) -> str:
    return f"{moment:%a %b} {moment.day:>2} {moment:%H:%M:%S %Y}"


def kernel_log(lines: Iterable[str] = (), *, end: datetime = RECORDED_AT) -> str:
    """`dmesg -T | grep ... | tail`: the benign boot lines, then `lines`, one second apart,
    the last one shortly before `end`."""
    messages = [*benign_boot_lines(), *lines]
    start = end - timedelta(days=2)
    stamped = [
        f"[{_dmesg_time(start + timedelta(seconds=i))}] {message}"
        for i, message in enumerate(messages[: len(benign_boot_lines())])
    ]
    later = messages[len(benign_boot_lines()) :]
    first = end - timedelta(minutes=30)
    stamped += [
        f"[{_dmesg_time(first + timedelta(seconds=i))}] {message}"
        for i, message in enumerate(later)
    ]
    return "\n".join(stamped) + "\n"


def kernel_log_previous_boot(
    lines: Iterable[str] | None = None,
    *,
    hostname: str = "ip-10-1-0-11",
    end: datetime = RECORDED_AT - timedelta(days=2),
) -> str:
    """`journalctl -k -b -1 -o short-iso | grep ...`: `lines` from the previous boot, or
    (None) journald's answer on a node without a persistent journal."""
    if lines is None:
        return "Specifying boot ID or boot offset has no effect, no persistent journal was found.\n"
    messages = list(lines)
    first = end - timedelta(seconds=len(messages))
    return "".join(
        f"{(first + timedelta(seconds=i)).strftime('%Y-%m-%dT%H:%M:%S%z')} {hostname} "
        f"kernel: {message}\n"
        for i, message in enumerate(messages)
    )


# -- time sync --------------------------------------------------------------------------


def time_sync(
    synchronized: bool = True,
    *,
    offset_s: float = 0.000012,
    chrony: bool = True,
    chrony_running: bool = True,
) -> str:
    """`timedatectl show -p NTPSynchronized -p NTP; chronyc tracking` (stderr folded in)."""
    out = f"NTP=yes\nNTPSynchronized={'yes' if synchronized else 'no'}\n"
    if not chrony:
        return out + "sh: 1: chronyc: not found\n"
    if not chrony_running:
        return out + "506 Cannot talk to daemon\n"
    direction = "fast" if offset_s >= 0 else "slow"
    if not synchronized:
        return out + (
            "Reference ID    : 00000000 ()\n"
            "Stratum         : 0\n"
            "Ref time (UTC)  : Thu Jan 01 00:00:00 1970\n"
            f"System time     : {abs(offset_s):.9f} seconds {direction} of NTP time\n"
            "Last offset     : +0.000000000 seconds\n"
            "RMS offset      : 0.000000000 seconds\n"
            "Frequency       : 0.000 ppm slow\n"
            "Residual freq   : +0.000 ppm\n"
            "Skew            : 0.000 ppm\n"
            "Root delay      : 1.000000000 seconds\n"
            "Root dispersion : 1.000000000 seconds\n"
            "Update interval : 0.0 seconds\n"
            "Leap status     : Not synchronised\n"
        )
    return out + (
        "Reference ID    : A9FEA97B (169.254.169.123)\n"
        "Stratum         : 4\n"
        "Ref time (UTC)  : Fri Nov 20 11:59:31 2026\n"
        f"System time     : {abs(offset_s):.9f} seconds {direction} of NTP time\n"
        "Last offset     : -0.000001342 seconds\n"
        "RMS offset      : 0.000011874 seconds\n"
        "Frequency       : 3.122 ppm slow\n"
        "Residual freq   : -0.001 ppm\n"
        "Skew            : 0.014 ppm\n"
        "Root delay      : 0.000331121 seconds\n"
        "Root dispersion : 0.000210356 seconds\n"
        "Update interval : 16.2 seconds\n"
        "Leap status     : Normal\n"
    )


# -- services -----------------------------------------------------------------------------

# The units the services probe asks about, in its order.
SERVICE_UNITS: tuple[str, ...] = (
    "amazon-ssm-agent",
    "snap.amazon-ssm-agent.amazon-ssm-agent",
    "containerd",
    "kubelet",
    "slurmd",
    "slurmctld",
    "munge",
)

# ActiveState/SubState pairs by a short name; "missing" is a unit that is not installed.
_STATES: dict[str, tuple[str, str, str]] = {
    "running": ("loaded", "active", "running"),
    "exited": ("loaded", "active", "exited"),
    "inactive": ("loaded", "inactive", "dead"),
    "failed": ("loaded", "failed", "failed"),
    "restarting": ("loaded", "activating", "auto-restart"),
    "missing": ("not-found", "inactive", "dead"),
}


def eks_services(**overrides: str) -> dict[str, str]:
    """Unit states of a healthy EKS worker (Amazon Linux 2: the SSM agent as an rpm)."""
    states = dict.fromkeys(SERVICE_UNITS, "missing")
    states.update({"amazon-ssm-agent": "running", "containerd": "running", "kubelet": "running"})
    states.update(overrides)
    return states


def slurm_services(*, controller: bool = False, **overrides: str) -> dict[str, str]:
    """Unit states of a healthy Slurm node (Ubuntu DLAMI: the SSM agent as a snap)."""
    states = dict.fromkeys(SERVICE_UNITS, "missing")
    states.update(
        {
            "snap.amazon-ssm-agent.amazon-ssm-agent": "running",
            "containerd": "running",
            "munge": "running",
            ("slurmctld" if controller else "slurmd"): "running",
        }
    )
    states.update(overrides)
    return states


def services(states: Mapping[str, str]) -> str:
    """`systemctl show -p Id -p LoadState -p ActiveState -p SubState <units>`: one block per
    unit of SERVICE_UNITS; a unit absent from `states` is not installed."""
    blocks = []
    for unit in SERVICE_UNITS:
        load, active, sub = _STATES[states.get(unit, "missing")]
        blocks.append(
            f"Id={unit}.service\nLoadState={load}\nActiveState={active}\nSubState={sub}\n"
        )
    return "\n".join(blocks)


# -- the node's own network: ENA interfaces (§ A) and the metadata service (§ B) ---------------

NIC_COUNTER_FILES = (
    "statistics/rx_packets",
    "statistics/tx_packets",
    "statistics/rx_errors",
    "statistics/tx_errors",
    "statistics/rx_dropped",
    "statistics/tx_dropped",
)
# (name, PCI address, IPv4/prefix or None): the primary ENA interface of a HyperPod node.
PRIMARY_NIC = ("ens5", "0000:00:05.0", "10.1.0.11/20")


def net_interfaces(
    nics: Iterable[tuple[str, str, str | None]] = (PRIMARY_NIC,),
    *,
    errors: Mapping[str, tuple[int, int]] | None = None,
    down: Iterable[str] = (),
) -> str:
    """`grep -H .` over the ENA interfaces' sysfs files (grep reads them pattern by pattern,
    so all operstate lines come first), then `ip -o -4 addr show`. `errors` gives
    (rx_errors, tx_errors) per interface; `down` interfaces report operstate down."""
    rows = list(nics)
    failing = dict(errors or {})
    off = set(down)

    def value(leaf: str, name: str) -> str:
        rx, tx = failing.get(name, (0, 0))
        return {
            "operstate": "down" if name in off else "up",
            "statistics/rx_packets": "18446712",
            "statistics/tx_packets": "17213390",
            "statistics/rx_errors": str(rx),
            "statistics/tx_errors": str(tx),
        }.get(leaf, "0")

    lines = [
        f"/sys/bus/pci/drivers/ena/{pci}/net/{name}/{leaf}:{value(leaf, name)}"
        for leaf in ("operstate", *NIC_COUNTER_FILES)
        for name, pci, _ in rows
    ]
    lines.append(
        "1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever preferred_lft forever"
    )
    for number, (name, _, address) in enumerate(rows, start=2):
        if address is None or name in off:
            continue
        broadcast = ipaddress.ip_interface(address).network.broadcast_address
        lines.append(
            f"{number}: {name}    inet {address} metric 100 brd {broadcast} scope global "
            f"dynamic {name}\\       valid_lft 3402sec preferred_lft 3402sec"
        )
    return "\n".join(lines) + "\n"


def imds(
    instance_type: str = "p5.48xlarge",
    *,
    token: tuple[int, str] = (0, "200"),
    read: tuple[int, str] = (0, "200"),
) -> str:
    """What the `imds` probe prints: the token step's curl exit and HTTP code, the
    instance type (only on a 200), the read's HTTP code and curl exit. A metadata
    service that does not answer is curl exit 28 (timed out) with HTTP 000."""
    body = instance_type if read == (0, "200") else ""
    return (
        f"token: curl_exit={token[0]} http={token[1]}\n"
        f"{body}\n"
        f"instance-type: http={read[1]}\n"
        f"instance-type: curl_exit={read[0]}\n"
    )


IMDS_UNREACHABLE = imds(token=(28, "000"), read=(28, "000"))
IMDS_TOKEN_REQUIRED = imds(token=(28, "000"), read=(0, "401"))
