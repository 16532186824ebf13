"""`cat /proc/meminfo`: memory totals and huge pages, in KiB (page counts for HugePages_*)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_LINE = re.compile(r"^(?P<key>[A-Za-z0-9_()]+):\s+(?P<value>\d{1,20})(?:\s+kB)?\s*$")


@dataclass(frozen=True)
class MemInfo:
    mem_total_kib: int | None = None
    mem_free_kib: int | None = None
    mem_available_kib: int | None = None
    swap_total_kib: int | None = None
    swap_free_kib: int | None = None
    hugepages_total: int | None = None
    hugepages_free: int | None = None
    hugepage_size_kib: int | None = None
    # Every numeric field as printed (key -> value), for evidence and fields not named above.
    values: dict[str, int] = field(default_factory=dict)

    @property
    def available_pct(self) -> float | None:
        """MemAvailable as a share of MemTotal (0..100), None when either is unknown."""
        total, available = self.mem_total_kib, self.mem_available_kib
        if not total or available is None:
            return None
        return max(0.0, min(100.0, 100.0 * available / total))

    @property
    def hugepages_exhausted(self) -> bool:
        """Huge pages are configured and none is free."""
        return bool(self.hugepages_total) and self.hugepages_free == 0

    @property
    def empty(self) -> bool:
        return not self.values


def parse_meminfo(text: str) -> MemInfo:
    """Never raises; lines that are not `Key: number [kB]` are ignored."""
    values: dict[str, int] = {}
    for raw in text.splitlines():
        match = _LINE.match(raw.strip())
        if match is not None:
            values.setdefault(match["key"], int(match["value"]))
    return MemInfo(
        mem_total_kib=values.get("MemTotal"),
        mem_free_kib=values.get("MemFree"),
        mem_available_kib=values.get("MemAvailable"),
        swap_total_kib=values.get("SwapTotal"),
        swap_free_kib=values.get("SwapFree"),
        hugepages_total=values.get("HugePages_Total"),
        hugepages_free=values.get("HugePages_Free"),
        hugepage_size_kib=values.get("Hugepagesize"),
        values=values,
    )
