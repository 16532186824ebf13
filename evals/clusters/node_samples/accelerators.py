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


def gpu_query(
    gpus: int = 8,
    ecc_volatile: Mapping[int, int] | None = None,
    ecc_aggregate: Mapping[int, int] | None = None,
    throttled: Mapping[int, Iterable[str]] | None = None,
    temps: Mapping[int, int] | None = None,
    missing: Iterable[int] = (),
    driver: str = DRIVER,
) -> str:
    """`nvidia-smi --query-gpu=... --format=csv,noheader,nounits`.

    `throttled` maps a GPU index to reasons among "hw_slowdown", "hw_thermal",
    "sw_thermal"; `temps` overrides the temperature (default 32-39 °C).
    """
    volatile = ecc_volatile or {}
    aggregate = ecc_aggregate or {}
    reasons = {i: set(r) for i, r in (throttled or {}).items()}
    heat = temps or {}
    gone = set(missing)
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


def row_remap(
    gpus: int = 8,
    pending: Iterable[int] = (),
    failure: Iterable[int] = (),
    driver: str = DRIVER,
    cuda: str = CUDA,
    histogram_low: Iterable[int] = (),
    uncorrectable: Mapping[int, int] | None = None,
    missing: Iterable[int] = (),
) -> str:
    """`nvidia-smi -q -d ROW_REMAPPER`: header with driver / CUDA, one block per GPU."""
    waiting, failed, low = set(pending), set(failure), set(histogram_low)
    counts = dict(uncorrectable or {})
    for index in waiting | failed:
        counts.setdefault(index, 1)
    gone = set(missing)
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


def xid_line(
    pci: str,
    xid: int,
    text: str,
    when: datetime | None = None,
    style: Style = "dmesg",
    pid: str = "'<unknown>'",
    process: str = "<unknown>",
    host: str = "ip-10-1-88-12",
) -> str:
    """One NVRM Xid kernel line as `dmesg -T` or `journalctl -k -o short-iso` prints it."""
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


def efa_packages(installer: str = "1.37.0", ofi_nccl: str = "1.13.2") -> str:
    """`cat /opt/amazon/efa_installed_packages` as the installer writes it on Ubuntu."""
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
        f"libnccl-ofi_{ofi_nccl}-1_amd64",
        "efa_2.13.0-1_amd64",
    ]
    return (
        f"# EFA installer version: {installer}\n"
        "# Debug packages installed: no\n"
        "# Packages installed:\n"
        f"{' '.join(packages)}\n"
    )


EFA_PACKAGES_MISSING = "cat: /opt/amazon/efa_installed_packages: No such file or directory\n"
