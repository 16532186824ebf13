"""`cat /proc/uptime`: seconds since boot and aggregate idle seconds."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

_UPTIME = re.compile(
    r"^\s*(?P<up>\d{1,15}(?:\.\d{1,9})?)(?:\s+(?P<idle>\d{1,18}(?:\.\d{1,9})?))?\s*$"
)


@dataclass(frozen=True)
class Uptime:
    seconds: float | None = None  # >= 0 when known
    idle_seconds: float | None = None


def parse_uptime(text: str) -> Uptime:
    """The first line that reads as /proc/uptime; Uptime() when none does. Never raises."""
    for line in text.splitlines():
        match = _UPTIME.match(line)
        if match is None:
            continue
        up = float(match["up"])
        idle = float(match["idle"]) if match["idle"] else None
        if math.isfinite(up):
            return Uptime(up, idle if idle is not None and math.isfinite(idle) else None)
    return Uptime()
