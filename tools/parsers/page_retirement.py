"""nvidia-smi -q -d PAGE_RETIREMENT: dynamic page retirement on GPUs that do not remap rows.

Read with the same block grammar as the ROW_REMAPPER report (one header per GPU, then
"key : value" lines); never raises, whatever the text.
"""

from __future__ import annotations

from dataclasses import dataclass

from tools.parsers.nvidia_smi import (
    GPU_HEADER,
    KEY_VALUE,
    error_lines,
    normalise_bus_id,
    to_int,
    yes_no,
)

# Per GPU, under "Retired Pages": "Single Bit ECC : 0", "Double Bit ECC : 2" (pages retired
# for each cause) and "Pending Page Blacklist : Yes" (a retirement the next driver reload
# applies). Drivers have also called that field "Pending Page Blocklist" and "Pending Page
# Retirement": any "Pending Page ..." key is read. GPUs that remap rows instead (Ampere and
# newer) print N/A for all three.


@dataclass(frozen=True)
class RetirementGpu:
    bus_id: str
    single_bit: int | None = None  # pages retired after repeated single-bit errors
    double_bit: int | None = None  # pages retired after a double-bit (uncorrectable) error
    pending: bool | None = None

    @property
    def supported(self) -> bool:
        """False when the GPU does not retire pages (N/A: it remaps rows instead)."""
        return (
            self.pending is not None or self.single_bit is not None or (self.double_bit is not None)
        )


@dataclass(frozen=True)
class RetirementReport:
    gpus: tuple[RetirementGpu, ...] = ()
    errors: tuple[str, ...] = ()

    @property
    def recognised(self) -> bool:
        return bool(self.gpus)


def _retirement_gpu(bus_id: str, values: dict[str, str]) -> RetirementGpu:
    pending = next((v for k, v in values.items() if k.startswith("pending page")), "")
    return RetirementGpu(
        bus_id=bus_id,
        single_bit=to_int(values.get("single bit ecc", "")),
        double_bit=to_int(values.get("double bit ecc", "")),
        pending=yes_no(pending),
    )


def parse_page_retirement(text: str) -> RetirementReport:
    gpus: list[RetirementGpu] = []
    bus_id: str | None = None
    values: dict[str, str] = {}
    for raw in text.splitlines():
        header = GPU_HEADER.match(raw.strip())
        if header:
            if bus_id is not None:
                gpus.append(_retirement_gpu(bus_id, values))
            bus_id, values = normalise_bus_id(header.group(1)), {}
            continue
        match = KEY_VALUE.match(raw)
        if bus_id is not None and match:
            values.setdefault(match.group(2).strip().lower(), match.group(3))
    if bus_id is not None:
        gpus.append(_retirement_gpu(bus_id, values))
    return RetirementReport(gpus=tuple(gpus), errors=error_lines(text))
