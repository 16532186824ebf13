"""nvidia-smi output: the GPU list (-L), the per-GPU CSV query and the ROW_REMAPPER report.

Every parser takes the probe's raw stdout (stderr folded in) and returns a typed value;
none raises, whatever the text. Lines the driver prints instead of data ("No devices were
found", "Unable to determine the device handle for GPU ...", "couldn't communicate with the
NVIDIA driver") are kept as `errors`, because they are themselves evidence: a GPU that fell
off the bus shows up as such a line, not as a missing row.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-5f0c...)"
_LIST_LINE = re.compile(r"^GPU\s+(\d{1,3}):\s*(.*?)\s*(?:\(UUID:\s*([^)\s]*)\s*\))?\s*$")
# Bus ids as nvidia-smi prints them: 00000000:53:00.0 (query, -q) or 0000:53:00.0.
_BUS_ID = re.compile(
    r"(?<![0-9A-Fa-f:])((?:[0-9A-Fa-f]{4,8}:)?[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f])(?![0-9A-Fa-f])"
)
# Lines the driver or nvidia-smi print instead of data: evidence about the GPUs.
_ERROR_MARKERS = (
    "no devices were found",
    "unable to determine the device handle",
    "couldn't communicate with the nvidia driver",
    "nvidia-smi has failed",
    "gpu is lost",
    "unknown error",
    "failed to initialize nvml",
    "driver/library version mismatch",
    "is not a valid field",
)


def to_int(value: str) -> int | None:
    """An integer field, or None for "[N/A]", "[Not Supported]", "N/A" and anything else."""
    text = value.strip()
    if re.fullmatch(r"[+-]?\d{1,18}", text):
        return int(text)
    return None


def normalise_bus_id(value: str) -> str:
    """'00000000:53:00.0' and '0000:53:00.0' both become '0000:53:00.0' (lower case)."""
    text = value.strip().lower()
    parts = text.split(":")
    if len(parts) == 3 and len(parts[0]) > 4:
        parts[0] = parts[0][-4:]
    return ":".join(parts)


def error_lines(text: str) -> tuple[str, ...]:
    """Lines that carry a driver or tool error instead of data."""
    found: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        lowered = line.lower()
        if line and any(marker in lowered for marker in _ERROR_MARKERS):
            found.append(line)
    return tuple(found)


def bus_ids_in(lines: tuple[str, ...]) -> tuple[str, ...]:
    """Bus ids named by error lines (the GPUs the driver could not reach)."""
    ids: list[str] = []
    for line in lines:
        for match in _BUS_ID.finditer(line):
            bus = normalise_bus_id(match.group(1))
            if bus not in ids:
                ids.append(bus)
    return tuple(ids)


# -- nvidia-smi -L ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ListedGpu:
    index: int
    name: str
    uuid: str | None


@dataclass(frozen=True)
class GpuList:
    gpus: tuple[ListedGpu, ...] = ()
    errors: tuple[str, ...] = ()

    @property
    def count(self) -> int:
        return len(self.gpus)

    @property
    def unreachable_bus_ids(self) -> tuple[str, ...]:
        return bus_ids_in(self.errors)

    @property
    def recognised(self) -> bool:
        """True when the text was a GPU list or a driver error (judgeable); a missing
        nvidia-smi ("command not found") is not."""
        return bool(self.gpus or self.errors)


def parse_gpu_list(text: str) -> GpuList:
    """One entry per GPU index: a GPU listed twice (output repeated) is counted once."""
    gpus: dict[int, ListedGpu] = {}
    for raw in text.splitlines():
        match = _LIST_LINE.match(raw.strip())
        if match:
            index = int(match.group(1))
            gpus.setdefault(index, ListedGpu(index, match.group(2), match.group(3) or None))
    return GpuList(gpus=tuple(gpus.values()), errors=_unique(error_lines(text)))


def _unique(lines: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(lines))


# -- nvidia-smi --query-gpu=... --format=csv,noheader,nounits ----------------------------------

QUERY_FIELDS = (
    "index",
    "pci.bus_id",
    "name",
    "driver_version",
    "temperature.gpu",
    "ecc.errors.uncorrected.volatile.total",
    "ecc.errors.uncorrected.aggregate.total",
    "clocks_throttle_reasons.hw_slowdown",
    "clocks_throttle_reasons.hw_thermal_slowdown",
    "clocks_throttle_reasons.sw_thermal_slowdown",
)
THROTTLE_LABELS = ("HW slowdown", "HW thermal slowdown", "SW thermal slowdown")


def _active(value: str) -> bool | None:
    text = value.strip().lower()
    if text == "active":
        return True
    if text == "not active":
        return False
    return None


@dataclass(frozen=True)
class GpuRow:
    index: int | None
    bus_id: str
    name: str
    driver_version: str | None
    temperature_c: int | None
    ecc_uncorrected_volatile: int | None
    ecc_uncorrected_aggregate: int | None
    hw_slowdown: bool | None
    hw_thermal_slowdown: bool | None
    sw_thermal_slowdown: bool | None

    @property
    def label(self) -> str:
        shown = f"GPU {self.index}" if self.index is not None else "GPU ?"
        return f"{shown} ({self.bus_id})" if self.bus_id else shown

    @property
    def active_throttles(self) -> tuple[str, ...]:
        flags = (self.hw_slowdown, self.hw_thermal_slowdown, self.sw_thermal_slowdown)
        return tuple(label for label, flag in zip(THROTTLE_LABELS, flags, strict=True) if flag)


@dataclass(frozen=True)
class GpuQuery:
    rows: tuple[GpuRow, ...] = ()
    errors: tuple[str, ...] = ()

    @property
    def recognised(self) -> bool:
        return bool(self.rows)


def _row(cells: list[str]) -> GpuRow | None:
    if len(cells) != len(QUERY_FIELDS):
        return None
    index = to_int(cells[0])
    if index is None or index < 0:
        return None
    driver = _version(cells[3]) or ""
    return GpuRow(
        index=index,
        bus_id=normalise_bus_id(cells[1]) if _BUS_ID.search(cells[1]) else cells[1].strip(),
        name=cells[2].strip(),
        driver_version=driver or None,
        temperature_c=to_int(cells[4]),
        ecc_uncorrected_volatile=to_int(cells[5]),
        ecc_uncorrected_aggregate=to_int(cells[6]),
        hw_slowdown=_active(cells[7]),
        hw_thermal_slowdown=_active(cells[8]),
        sw_thermal_slowdown=_active(cells[9]),
    )


def parse_gpu_query(text: str) -> GpuQuery:
    """One row per GPU: a row whose index or bus id was already seen (the same GPUs
    printed twice) is dropped, so no GPU is counted or judged twice."""
    rows: list[GpuRow] = []
    seen: set[tuple[str, object]] = set()
    for raw in text.splitlines():
        row = _row(raw.split(","))
        if row is None:
            continue
        keys = {("index", row.index), *((("bus", row.bus_id),) if row.bus_id else ())}
        if keys & seen:
            continue
        seen |= keys
        rows.append(row)
    return GpuQuery(rows=tuple(rows), errors=_unique(error_lines(text)))


# -- nvidia-smi -q -d ROW_REMAPPER --------------------------------------------------------------

HISTOGRAM_BUCKETS = ("Max", "High", "Partial", "Low", "None")
KEY_VALUE = re.compile(r"^(\s*)([A-Za-z][A-Za-z ()/.-]*?)\s*:\s*(.*?)\s*$")
GPU_HEADER = re.compile(r"^GPU\s+([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f])\s*$")


def yes_no(value: str) -> bool | None:
    text = value.strip().lower()
    if text == "yes":
        return True
    if text == "no":
        return False
    return None


@dataclass(frozen=True)
class BankHistogram:
    """Banks per remaining-spare-rows bucket ("Max : 639 bank(s)" and so on)."""

    max: int | None = None
    high: int | None = None
    partial: int | None = None
    low: int | None = None
    none: int | None = None

    @property
    def known(self) -> bool:
        return any(v is not None for v in self.as_dict().values())

    @property
    def total(self) -> int:
        return sum(v or 0 for v in self.as_dict().values())

    @property
    def low_or_none(self) -> int:
        return (self.low or 0) + (self.none or 0)

    @property
    def mostly_exhausted(self) -> bool:
        """Most banks sit in the Low or None buckets: spare rows are almost used up."""
        return self.total > 0 and self.low_or_none * 2 > self.total

    def as_dict(self) -> dict[str, int | None]:
        return {
            "Max": self.max,
            "High": self.high,
            "Partial": self.partial,
            "Low": self.low,
            "None": self.none,
        }


@dataclass(frozen=True)
class RemapGpu:
    bus_id: str
    correctable: int | None = None
    uncorrectable: int | None = None
    pending: bool | None = None
    failure: bool | None = None
    histogram: BankHistogram = field(default_factory=BankHistogram)

    @property
    def supported(self) -> bool:
        """False when the GPU reports no row-remapping state at all (N/A)."""
        return self.pending is not None or self.failure is not None or self.histogram.known

    @property
    def judged(self) -> bool:
        """Both flags a verdict rests on (pending, failure) were read as Yes or No. A GPU in
        MIG mode answers N/A for them (issue 21: not confirmed in NVIDIA's documentation),
        so N/A means "not known", never "no remap pending"."""
        return self.pending is not None and self.failure is not None


@dataclass(frozen=True)
class RemapReport:
    driver_version: str | None = None
    cuda_version: str | None = None
    attached_gpus: int | None = None
    gpus: tuple[RemapGpu, ...] = ()
    errors: tuple[str, ...] = ()

    @property
    def recognised(self) -> bool:
        return bool(self.gpus)


def _version(value: str) -> str | None:
    """The version at the start of a value: "610.47 [Deprecated; will be removed in CUDA
    14.0. Use KMD Version instead]" is 610.47."""
    match = re.match(r"\d+(?:\.\d+)+", value.strip())
    return match.group(0) if match else None


# The header's version lines. nvidia-smi 610 deprecates "Driver Version" and "CUDA Version"
# in favour of "KMD Version" and "CUDA UMD Version" and prints all four, the old ones with a
# "[Deprecated; will be removed in CUDA 14.0. Use KMD Version instead]" note (nvidia-smi -q
# of driver 610.47 quoted in github.com/Jaded-Encoding-Thaumaturgy/vs-jetpack/issues/295;
# NVIDIA's nvidia-smi documentation: "deprecated Driver Version and CUDA Version in favor of
# KMD Version and CUDA UMD Version"). The new line wins when both are there, so the reading
# survives the old lines' removal.
_HEADER_VERSIONS = {
    "kmd version": ("driver", 0),
    "driver version": ("driver", 1),
    "cuda umd version": ("cuda", 0),
    "cuda version": ("cuda", 1),
}


class _RemapBuilder:
    """Collects one GPU block; kept mutable only while parsing."""

    def __init__(self, bus_id: str) -> None:
        self.bus_id = bus_id
        self.values: dict[str, str] = {}
        self.histogram: dict[str, int | None] = {}

    def build(self) -> RemapGpu:
        hist = self.histogram
        return RemapGpu(
            bus_id=self.bus_id,
            correctable=to_int(self.values.get("correctable error", "")),
            uncorrectable=to_int(self.values.get("uncorrectable error", "")),
            pending=yes_no(self.values.get("pending", "")),
            failure=yes_no(self.values.get("remapping failure occurred", "")),
            histogram=BankHistogram(
                max=hist.get("max"),
                high=hist.get("high"),
                partial=hist.get("partial"),
                low=hist.get("low"),
                none=hist.get("none"),
            ),
        )


def _bank_count(value: str) -> int | None:
    match = re.match(r"\s*(\d{1,9})\s*(?:bank\(s\)|banks?)?\s*$", value)
    return int(match.group(1)) if match else None


def parse_row_remap(text: str) -> RemapReport:
    # (rank, version) per field: the lowest rank read wins (see _HEADER_VERSIONS).
    versions: dict[str, tuple[int, str]] = {}
    attached: int | None = None
    gpus: list[RemapGpu] = []
    current: _RemapBuilder | None = None
    in_histogram = False
    for raw in text.splitlines():
        header = GPU_HEADER.match(raw.strip())
        if header:
            if current is not None:
                gpus.append(current.build())
            current = _RemapBuilder(normalise_bus_id(header.group(1)))
            in_histogram = False
            continue
        if raw.strip().lower() == "bank remap availability histogram":
            in_histogram = current is not None
            continue
        match = KEY_VALUE.match(raw)
        if not match:
            continue
        key, value = match.group(2).strip().lower(), match.group(3)
        if current is None:
            if key in _HEADER_VERSIONS:
                field_name, rank = _HEADER_VERSIONS[key]
                version = _version(value)
                if version is not None and rank < versions.get(field_name, (9, ""))[0]:
                    versions[field_name] = (rank, version)
            elif key == "attached gpus":
                attached = to_int(value)
            continue
        if in_histogram and key in ("max", "high", "partial", "low", "none"):
            current.histogram[key] = _bank_count(value)
            continue
        in_histogram = False
        current.values.setdefault(key, value)
    if current is not None:
        gpus.append(current.build())
    # A GPU reported twice (the report repeated) is kept once: its first block.
    once = {gpu.bus_id: gpu for gpu in reversed(gpus)}
    return RemapReport(
        driver_version=versions["driver"][1] if "driver" in versions else None,
        cuda_version=versions["cuda"][1] if "cuda" in versions else None,
        attached_gpus=attached,
        gpus=tuple(gpu for gpu in gpus if once[gpu.bus_id] is gpu),
        errors=error_lines(text),
    )


# -- nvidia-smi -q -d PAGE_RETIREMENT -----------------------------------------------------------
#
