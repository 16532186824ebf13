"""`lscpu`: CPU count, threads per core, cores per socket, sockets, model name.

Newer util-linux indents nested fields ("  Model name:", "    Thread(s) per core:"), so a
key is matched after stripping; only exact keys count ("NUMA node0 CPU(s)" and
"On-line CPU(s) list" are other fields than "CPU(s)").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_FIELD = re.compile(r"^\s*(?P<key>[^:]{1,80}?)\s*:\s*(?P<value>.*?)\s*$")
_INT = re.compile(r"^\d{1,9}$")
_RANGE = re.compile(r"^(?P<start>\d{1,9})(?:-(?P<end>\d{1,9}))?$")


@dataclass(frozen=True)
class CpuInfo:
    cpus: int | None = None
    online_cpus: int | None = None  # counted from "On-line CPU(s) list"
    threads_per_core: int | None = None
    cores_per_socket: int | None = None
    sockets: int | None = None
    model_name: str | None = None

    @property
    def empty(self) -> bool:
        return self.cpus is None and self.threads_per_core is None and self.model_name is None


def count_cpu_list(text: str) -> int | None:
    """Count the CPUs of a list like "0-95,128-191"; None when it does not read as one."""
    total = 0
    for part in text.split(","):
        match = _RANGE.match(part.strip())
        if match is None:
            return None
        start = int(match["start"])
        end = int(match["end"]) if match["end"] else start
        if end < start:
            return None
        total += end - start + 1
    return total


def _int(value: str | None) -> int | None:
    return int(value) if value is not None and _INT.match(value) else None


def parse_lscpu(text: str) -> CpuInfo:
    """Never raises; missing or malformed fields are None."""
    fields: dict[str, str] = {}
    for line in text.splitlines():
        match = _FIELD.match(line)
        if match is not None:
            fields.setdefault(match["key"], match["value"])
    online = fields.get("On-line CPU(s) list")
    return CpuInfo(
        cpus=_int(fields.get("CPU(s)")),
        online_cpus=count_cpu_list(online) if online else None,
        threads_per_core=_int(fields.get("Thread(s) per core")),
        cores_per_socket=_int(fields.get("Core(s) per socket")),
        sockets=_int(fields.get("Socket(s)")),
        model_name=fields.get("Model name") or None,
    )
