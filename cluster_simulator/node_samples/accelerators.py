"""Raw stdout of the GPU, Neuron, EFA and version probes, parameterised for faults.

Each function returns what the catalogued probe prints on a p5.48xlarge-like node (or a
trn1.32xlarge for `neuron_ls`), with the fault the scenario asks for: a GPU that fell off the
bus, uncorrectable ECC counts, throttling, pending or failed row remaps, DCGM incidents,
missing EFA devices, another driver or NCCL build. The layouts follow the tools' own
output (nvidia-smi 550, dcgmi 3.x, neuron-ls 2.x, libfabric 1.22, EFA installer 1.37).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

# The eight H100 bus ids of a p5.48xlarge, in nvidia-smi index order.
P5_BUS_IDS = (
    "53:00.0",
    "64:00.0",
    "75:00.0",
    "86:00.0",
    "97:00.0",
    "a8:00.0",
    "b9:00.0",
    "ca:00.0",
)
GPU_NAME = "NVIDIA H100 80GB HBM3"
DRIVER = "550.127.05"
CUDA = "12.4"
NCCL = "2.21.5"
BANKS = 640  # row-remap banks an H100 reports in its histogram


def bus_id(index: int, width: int = 8) -> str:
    """The PCI bus id of GPU `index` as nvidia-smi prints it (8- or 4-digit domain)."""
    base = P5_BUS_IDS[index % len(P5_BUS_IDS)]
    return f"{'0' * width}:{base}".upper() if width == 8 else f"0000:{base}"


def driver_pci(index: int) -> str:
    """The PCI address the driver prints in Xid lines ("0000:53:00")."""
    return f"0000:{P5_BUS_IDS[index % len(P5_BUS_IDS)][:5]}"


def _uuid(index: int) -> str:
    return f"GPU-5f0c{index:04x}-9a1e-4c2b-8d7e-{0x3A1B2C3D4E00 + index:012x}"


def gpu_list(count: int = 8, missing: Iterable[int] = ()) -> str:
    """`nvidia-smi -L`: one line per visible GPU; a missing GPU adds the handle error."""
    gone = set(missing)
    lines = [
        f"GPU {shown}: {GPU_NAME} (UUID: {_uuid(index)})"
        for shown, index in enumerate(i for i in range(count) if i not in gone)
    ]
    lines += [
        f"Unable to determine the device handle for GPU{bus_id(index, 4).upper()}: Unknown Error"
        for index in sorted(gone)
    ]
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class GpuQuerySpec:
    """The node `gpu_query` prints: `gpus` GPUs (those in `missing` gone), their ECC
    counts, throttle reasons ("hw_slowdown", "hw_thermal", "sw_thermal" per GPU index),
    temperatures (default 32-39 °C) and the driver."""

    gpus: int = 8
    ecc_volatile: Mapping[int, int] | None = None
    ecc_aggregate: Mapping[int, int] | None = None
    throttled: Mapping[int, Iterable[str]] | None = None
    temps: Mapping[int, int] | None = None
    missing: Iterable[int] = ()
    driver: str = DRIVER


def gpu_query(spec: GpuQuerySpec | None = None) -> str:
    """`nvidia-smi --query-gpu=... --format=csv,noheader,nounits` of the `spec` node."""
    spec = spec or GpuQuerySpec()
    gpus, driver = spec.gpus, spec.driver
    volatile = spec.ecc_volatile or {}
    aggregate = spec.ecc_aggregate or {}
    reasons = {i: set(r) for i, r in (spec.throttled or {}).items()}
    heat = spec.temps or {}
    gone = set(spec.missing)
    rows: list[str] = []
    for shown, index in enumerate(i for i in range(gpus) if i not in gone):
        active = reasons.get(index, set())

        def flag(name: str, active: set[str] = active) -> str:
            return "Active" if name in active else "Not Active"

        cells = [
            str(shown),
            bus_id(index),
            GPU_NAME,
            driver,
            str(heat.get(index, 32 + index)),
            str(volatile.get(index, 0)),
            str(aggregate.get(index, volatile.get(index, 0))),
            flag("hw_slowdown"),
            flag("hw_thermal"),
            flag("sw_thermal"),
        ]
        rows.append(", ".join(cells))
    rows += [
        f"Unable to determine the device handle for GPU{bus_id(index, 4).upper()}: Unknown Error"
        for index in sorted(gone)
    ]
    return "\n".join(rows) + "\n"


def _histogram(low: bool, correctable: int, uncorrectable: int) -> list[str]:
    used = correctable + uncorrectable
    if low:
        buckets = {"Max": 40, "High": 60, "Partial": 100, "Low": 300, "None": 140}
    else:
        buckets = {"Max": BANKS - min(used, BANKS), "High": min(used, BANKS)}
        buckets.update({"Partial": 0, "Low": 0, "None": 0})
    return [f"            {name:<30}: {count} bank(s)" for name, count in buckets.items()]


@dataclass(frozen=True)
class RowRemapSpec:
    """The node `row_remap` prints: `gpus` GPUs (those in `missing` gone), the GPU indexes
    with a pending remap, a remapping failure or a low bank histogram, uncorrectable counts
    per GPU (1 for a pending or failed one unless given), and the driver and CUDA."""

    gpus: int = 8
    pending: Iterable[int] = ()
    failure: Iterable[int] = ()
    driver: str = DRIVER
    cuda: str = CUDA
    histogram_low: Iterable[int] = ()
    uncorrectable: Mapping[int, int] | None = None
    missing: Iterable[int] = ()


def row_remap(spec: RowRemapSpec | None = None) -> str:
    """`nvidia-smi -q -d ROW_REMAPPER`: header with driver / CUDA, one block per GPU."""
    spec = spec or RowRemapSpec()
    gpus, driver, cuda = spec.gpus, spec.driver, spec.cuda
    waiting, failed, low = set(spec.pending), set(spec.failure), set(spec.histogram_low)
    counts = dict(spec.uncorrectable or {})
    for index in waiting | failed:
        counts.setdefault(index, 1)
    gone = set(spec.missing)
    lines = [
        "",
        "==============NVSMI LOG==============",
        "",
        "Timestamp                                 : Tue Oct  8 03:22:07 2024",
        f"Driver Version                            : {driver}",
        f"CUDA Version                              : {cuda}",
        "",
        f"Attached GPUs                             : {gpus - len(gone)}",
    ]
    for index in range(gpus):
        if index in gone:
            continue
        bad = counts.get(index, 0)
        lines += [
            f"GPU {bus_id(index)}",
            "    Remapped Rows",
            "        Correctable Error                 : 0",
            f"        Uncorrectable Error               : {bad}",
            f"        Pending                           : {'Yes' if index in waiting else 'No'}",
            f"        Remapping Failure Occurred        : {'Yes' if index in failed else 'No'}",
            "        Bank Remap Availability Histogram",
            *_histogram(index in low, 0, bad),
            "",
        ]
    lines += [
        f"Unable to determine the device handle for GPU{bus_id(index, 4).upper()}: Unknown Error"
        for index in sorted(gone)
    ]
    return "\n".join(lines) + "\n"


DcgmStatus = Literal["Healthy", "Warning", "Failure"]


def dcgm_health(
    status: DcgmStatus = "Healthy",
    incidents: Mapping[int, tuple[str, DcgmStatus, str]] | None = None,
) -> str:
    """`dcgmi health -c -j`: `incidents` maps a GPU id to (system, health, message).

    With a non-healthy status and no incidents given, GPU 0 gets a memory incident.
    """
    found = dict(incidents or {})
    if status != "Healthy" and not found:
        message = (
            "A volatile double-bit ECC error has occurred on GPU 0."
            if status == "Failure"
            else "Detected more than 8 PCIe replays per minute for GPU 0: 12 replays"
        )
        system = "Memory system" if status == "Failure" else "PCIe system"
        found[0] = (system, status, message)
    body: dict[str, object] = {"Overall Health": {"value": status}}
    if found:
        children: dict[str, object] = {}
        for gpu, (system, health, message) in sorted(found.items()):
            # dcgmi splits long messages into chunks of about 54 characters.
            chunks = [message[i : i + 54].strip() for i in range(0, len(message), 54)]
            children[str(gpu)] = {
                "children": {
                    "Errors": {"children": {system: {"overflow": chunks, "value": health}}}
                },
                "value": health,
            }
        body["GPU"] = {"children": children}
    return json.dumps({"body": body, "header": ["Health Monitor Report"]}, indent=3) + "\n"


DCGM_NOT_INSTALLED = "bash: line 1: dcgmi: command not found\n"
DCGM_NO_WATCHES = "Error: Health watches not enabled. Please enable watches. \n"
DCGM_NO_HOST_ENGINE = (
    "Error: unable to establish a connection to the specified host: localhost\n"
    "Error: Unable to connect to host engine. Host engine connection invalid/disconnected.\n"
)


def nvidia_driver(version: str = DRIVER) -> str:
    """`cat /proc/driver/nvidia/version` (the open kernel module HyperPod AMIs load)."""
    return (
        f"NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  {version}  Release Build  "
        "(dvs-builder@U16-I3-B03-4-3)  Tue Oct  8 03:22:07 UTC 2024\n"
        "GCC version:  gcc version 11.4.0 (Ubuntu 11.4.0-1ubuntu1~22.04) \n"
    )


def nccl_libraries(version: str = NCCL) -> str:
    """The probe's `ls | grep '^libnccl.so.[0-9]'`: the soname link and the full file."""
    major = version.split(".", 1)[0]
    return f"libnccl.so.{major}\nlibnccl.so.{version}\n"


Style = Literal["dmesg", "journal"]


@dataclass(frozen=True)
class XidOrigin:
    """Who an Xid line names (the process id and name, unknown for a kernel-side fault)
    and the host a journal line carries."""

    pid: str = "'<unknown>'"
    process: str = "<unknown>"
    host: str = "ip-10-1-88-12"


def xid_line(
    pci: str,
    xid: int,
    text: str,
    when: datetime | None = None,
    *,
    style: Style = "dmesg",
    origin: XidOrigin | None = None,
) -> str:
    """One NVRM Xid kernel line as `dmesg -T` or `journalctl -k -o short-iso` prints it."""
    origin = origin or XidOrigin()
    pid, process, host = origin.pid, origin.process, origin.host
    moment = when or datetime(2024, 10, 8, 3, 22, 7, tzinfo=UTC)
    message = f"NVRM: Xid (PCI:{pci}): {xid}, pid={pid}, name={process}, {text}"
    if style == "journal":
        return f"{moment.strftime('%Y-%m-%dT%H:%M:%S%z')} {host} kernel: {message}\n"
    stamp = f"{moment:%a %b} {moment.day:>2} {moment:%H:%M:%S %Y}"
    return f"[{stamp}] {message}\n"


NO_PREVIOUS_BOOT = (
    "Specifying boot ID or boot offset has no effect, no persistent journal was found.\n"
)


def neuron_ls(devices: int = 16, instance_type: str = "trn1.32xlarge") -> str:
    """`neuron-ls --json-output` on a trn1.32xlarge-like node (2 cores, 32 GiB each)."""
    entries = []
    for index in range(devices):
        entries.append(
            {
                "neuron_device": index,
                "bdf": f"{0x10 + index:02x}:1e.0",
                "connected_to": [(index - 1) % 16, (index + 1) % 16, (index + 4) % 16],
                "nc_count": 2,
                "memory_size": 34359738368,
                "neuroncore_ids": [2 * index, 2 * index + 1],
                "neuron_processes": [],
                "instance_type": instance_type,
            }
        )
    return json.dumps(entries, indent=4) + "\n"


NEURON_LS_NOT_INSTALLED = "bash: line 1: neuron-ls: command not found\n"


def neuron_device_files(devices: int = 16) -> str:
    """`ls -1 /dev | grep -E '^neuron[0-9]+$'`: ls sorts the names as text."""
    return "".join(f"{name}\n" for name in sorted(f"neuron{i}" for i in range(devices)))


_LSMOD_BASE = (
    ("nvidia_uvm", 4956160, 0, ""),
    ("nvidia_drm", 122880, 0, ""),
    ("nvidia_modeset", 1355776, 1, "nvidia_drm"),
    ("nvidia", 54386688, 33, "nvidia_uvm,nvidia_modeset"),
    ("ib_uverbs", 184320, 2, "rdma_ucm,efa"),
    ("ib_core", 462848, 4, "rdma_cm,iw_cm,rdma_ucm,ib_uverbs"),
    ("ena", 167936, 0, ""),
    ("overlay", 151552, 12, ""),
)


def lsmod(efa: bool = True) -> str:
    """`lsmod`, with or without the efa module."""
    rows = list(_LSMOD_BASE)
    if efa:
        rows.insert(4, ("efa", 155648, 0, ""))
    else:
        rows = [(n, s, u, "rdma_ucm" if n == "ib_uverbs" else b) for n, s, u, b in rows]
    lines = ["Module                  Size  Used by"]
    lines += [f"{name:<23} {size:>6}  {used} {by}".rstrip() for name, size, used, by in rows]
    return "\n".join(lines) + "\n"


def infiniband(count: int = 32) -> str:
    """`ls -1 /dev/infiniband`: rdma_cm plus one uverbsN per EFA device."""
    names = ["rdma_cm", *(f"uverbs{i}" for i in range(count))]
    return "\n".join(sorted(names)) + "\n"


INFINIBAND_MISSING = "ls: cannot access '/dev/infiniband': No such file or directory\n"
FI_INFO_NO_DATA = "fi_getinfo: -61 (No data available)\n"


def fi_info(efa_count: int = 32, error: bool = False) -> str:
    """`fi_info -p efa -t FI_EP_RDM`: one RDM endpoint per EFA device, or the -61 error."""
    if error or efa_count == 0:
        return FI_INFO_NO_DATA
    blocks = []
    for index in range(efa_count):
        device = f"rdmap{16 + index * 16 % 240}s{27 + index // 15}"
        blocks.append(
            "provider: efa\n"
            f"    fabric: efa\n"
            f"    domain: {device}-rdm\n"
            "    version: 122.0\n"
            "    type: FI_EP_RDM\n"
            "    protocol: FI_PROTO_EFA\n"
        )
    return "".join(blocks)


def efa_packages(installer: str = "1.37.0", ofi_nccl: str | None = "1.13.2") -> str:
    """`cat /opt/amazon/efa_installed_packages` as the installer writes it on Ubuntu
    (`ofi_nccl=None`: an installer run with --skip-plugin or one that did not carry it)."""
    packages = [
        "ibacm_54.0-1_amd64",
        "ibverbs-providers_54.0-1_amd64",
        "ibverbs-utils_54.0-1_amd64",
        "infiniband-diags_54.0-1_amd64",
        "libibmad-dev_54.0-1_amd64",
        "libibmad5_54.0-1_amd64",
        "libibnetdisc5_54.0-1_amd64",
        "libibumad-dev_54.0-1_amd64",
        "libibumad3_54.0-1_amd64",
        "libibverbs-dev_54.0-1_amd64",
        "libibverbs1_54.0-1_amd64",
        "librdmacm-dev_54.0-1_amd64",
        "librdmacm1_54.0-1_amd64",
        "rdma-core_54.0-1_amd64",
        "rdmacm-utils_54.0-1_amd64",
        "efa-config_1.17-1_all",
        "efa-profile_1.7-1_all",
        "libfabric-aws-bin_1.22.0amzn4.0_amd64",
        "libfabric-aws-dev_1.22.0amzn4.0_amd64",
        "libfabric1-aws_1.22.0amzn4.0_amd64",
        "openmpi40-aws_4.1.7-1_amd64",
        "openmpi50-aws_5.0.5-1_amd64",
        *([f"libnccl-ofi_{ofi_nccl}-1_amd64"] if ofi_nccl else []),
        "efa_2.13.0-1_amd64",
    ]
    return (
        f"# EFA installer version: {installer}\n"
        "# Debug packages installed: no\n"
        "# Packages installed:\n"
        f"{' '.join(packages)}\n"
    )


EFA_PACKAGES_MISSING = "cat: /opt/amazon/efa_installed_packages: No such file or directory\n"


# -- page retirement (GPUs before Ampere), DCGM diagnostic logs, Neuron driver lines ----------

# The eight V100 bus ids of a p3.16xlarge, in nvidia-smi index order.
P3_BUS_IDS = (
    "00:17.0",
    "00:18.0",
    "00:19.0",
    "00:1A.0",
    "00:1B.0",
    "00:1C.0",
    "00:1D.0",
    "00:1E.0",
)


def page_retirement(
    gpus: int = 8,
    *,
    pending: Iterable[int] = (),
    double_bit: Mapping[int, int] | None = None,
    single_bit: Mapping[int, int] | None = None,
    row_remapping: bool = True,
    driver: str = DRIVER,
) -> str:
    """`nvidia-smi -q -d PAGE_RETIREMENT`: N/A on row-remapping GPUs (the default, an H100
    p5), counts and the pending flag on page-retiring ones (a V100 p3)."""
    waiting = set(pending)
    dbe, sbe = dict(double_bit or {}), dict(single_bit or {})
    lines = [
        "",
        "==============NVSMI LOG==============",
        "",
        "Timestamp                                 : Tue Oct  8 03:22:07 2024",
        f"Driver Version                            : {driver}",
        f"CUDA Version                              : {CUDA}",
        "",
        f"Attached GPUs                             : {gpus}",
    ]
    for index in range(gpus):
        if row_remapping:
            header, values = f"GPU {bus_id(index)}", ("N/A", "N/A", "N/A")
        else:
            header = f"GPU 00000000:{P3_BUS_IDS[index % len(P3_BUS_IDS)]}"
            values = (
                str(sbe.get(index, 0)),
                str(dbe.get(index, 0)),
                "Yes" if index in waiting else "No",
            )
        lines += [
            header,
            "    Retired Pages",
            f"        Single Bit ECC                    : {values[0]}",
            f"        Double Bit ECC                    : {values[1]}",
            f"        Pending Page Blacklist            : {values[2]}",
            "",
        ]
    return "\n".join(lines) + "\n"


DCGM_LOG_DIR_MISSING = (
    "ls: cannot access '/var/log/nvidia-dcgm': No such file or directory\n== newest nvvs log ==\n"
)
DCGM_LOG_DIR_DENIED = (
    "ls: cannot open directory '/var/log/nvidia-dcgm': Permission denied\n== newest nvvs log ==\n"
)


def _nvvs(moment: datetime, severity: str, message: str) -> str:
    stamp = f"{moment:%Y-%m-%d %H:%M:%S}.{moment.microsecond // 1000:03d}"
    return f"{stamp} {severity:<5} [4182:4182] {message}"


def dcgm_diag_logs(
    failed_test: str | None = None,
    *,
    remap: Literal["pending", "failure"] | None = None,
    errors: Iterable[str] = (),
    has_log: bool = True,
    unreadable: bool = False,
    when: datetime | None = None,
) -> str:
    """The `dcgm_diag_logs` probe: `ls -1t /var/log/nvidia-dcgm`, the marker, the newest
    nvvs log's name and its tail; a clean level-2 run unless a fault is asked for."""
    moment = when or datetime(2024, 10, 8, 2, 40, 11, tzinfo=UTC)
    listing = ["nvvs.log", "nv-hostengine.log"] if has_log else ["nv-hostengine.log"]
    out = [*listing, "== newest nvvs log =="]
    if not has_log:
        return "\n".join(out) + "\n"
    out.append("/var/log/nvidia-dcgm/nvvs.log")
    if unreadable:
        out.append(
            "tail: cannot open '/var/log/nvidia-dcgm/nvvs.log' for reading: Permission denied"
        )
        return "\n".join(out) + "\n"
    tests = ["software", "pcie", "memory", "diagnostic", "targeted_stress"]
    body = [_nvvs(moment, "INFO", "Running level 2 diagnostics on GPUs 0,1,2,3,4,5,6,7")]
    for test in tests:
        body.append(_nvvs(moment, "DEBUG", f"Test {test} start [TestFramework.cpp:871] [GoList]"))
        verdict = "Fail" if test == failed_test else "Pass"
        body.append(_nvvs(moment, "INFO", f"Test {test}: {verdict}"))
    if failed_test is not None:
        body.append(
            _nvvs(
                moment,
                "ERROR",
                f"Error: {failed_test} test found 3 uncorrectable memory errors on GPU 2",
            )
        )
    if remap == "pending":
        body.append(
            _nvvs(moment, "WARN", "GPU 2 has a row remap pending; reset the GPU to apply it")
        )
    if remap == "failure":
        body.append(_nvvs(moment, "ERROR", "GPU 5 had a row remapping failure"))
    body += [_nvvs(moment, "ERROR", message) for message in errors]
    body.append(_nvvs(moment, "INFO", "Diagnostic run complete"))
    return "\n".join(out + body) + "\n"


def neuron_hw_error_line(
    error: str = "HBM_UNCORRECTABLE_ERROR",
    device: int = 3,
    core: int = 1,
    action: str = "TERMINATE_INSTANCE",
    instance_id: str = "i-0b1c2d3e4f5a6b7c8",
) -> str:
    """The Neuron driver's hardware error report (the format AWS's Neuron runtime
    troubleshooting guide shows)."""
    return (
        f"NEURON_HW_ERR={error} instance-id={instance_id} hostname=ip-10-1-88-12 "
        f"nd-id={device} nc-id={core} serial-num=19fcda00f5ff6eb9 action={action}"
    )


def neuron_driver_timeout_line() -> str:
    """A Neuron driver line the driver logs before retrying a copy itself."""
    return "neuron:ndma_memcpy_wait_for_completion: DMA completion timeout for UDMA_ENG_33 q0"


def neuron_detach_line() -> str:
    """A routine Neuron driver line at process exit: not an error."""
    return "neuron:npid_detach: neuron:npid_detach: pid=90193, slot=0"


def ofi_nccl_plugin(directory: str = "/opt/amazon/ofi-nccl/lib/x86_64-linux-gnu") -> str:
    """The `ofi_nccl_plugin` probe on an Ubuntu node with the EFA installer's plugin: ls
    names every directory it could list (the plugin's parent too), grep keeps those names
    and the NCCL plugin libraries."""
    parent = directory.rsplit("/", 1)[0] if directory.endswith("-linux-gnu") else ""
    lines = [f"{parent}:", ""] if parent else []
    lines += [f"{directory}:", "libnccl-net-ofi.so", "libnccl-net.so", "libnccl-ofi-tuner.so"]
    return "\n".join(line for line in lines if line) + "\n"


# None of the plugin directories exists: ls prints nothing on stdout, grep keeps nothing.
OFI_NCCL_PLUGIN_MISSING = ""
