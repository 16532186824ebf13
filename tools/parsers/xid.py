"""NVRM Xid lines from `dmesg -T` and `journalctl -k -o short-iso` → typed Xid events.

A driver line looks like
``NVRM: Xid (PCI:0000:53:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.``
with a `[Tue Oct  8 03:22:07 2024]` prefix from `dmesg -T`, a `[12345.678901]` prefix from
plain dmesg, or `2024-10-08T03:22:07+0000 host kernel:` from journalctl's short-iso format.
On a GPU in MIG mode the address carries the GPU instance and, when the driver knows it,
the compute instance: ``NVRM: Xid (PCI:0000:01:00 GPU-I:05): 94, pid=7194, Contained: ...``
or ``(PCI:0000:3b:00 GPU-I:01 GPU-CI:02)`` (NVIDIA's open-gpu-kernel-modules prints
"PCI:%04x:%02x:%02x GPU-I:%02u GPU-CI:%02u"); the event keeps the PCI address as the GPU and
the instances beside it. Classification (application / hardware / follow-on / non-fatal /
remap / recovery-action / unknown) comes from `tools.explain.xid_catalog`, the project's
single Xid table. Xid 154 is read further: its
text names the recovery the driver asks for,
``154, GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from tools.explain.xid_catalog import XidKind, refine_kind

# What a recovery action asks of the operator, worst first.
Recovery = Literal["reboot", "reset", "drain", "none", "unknown"]

_NVRM_XID = re.compile(
    r"NVRM:\s*Xid\s*\(\s*PCI:(?P<pci>[0-9A-Fa-f:.]{4,24})"
    r"(?:\s+GPU-I:\s*(?P<gi>\d{1,4}))?(?:\s+GPU-CI:\s*(?P<ci>\d{1,4}))?\s*\)"
    r"\s*:\s*(?P<xid>\d{1,4})(?!\d)\s*,?\s*(?P<rest>.*)$",
    re.IGNORECASE,
)
_PID = re.compile(r"^pid\s*=\s*('?<?[\w-]*>?'?)\s*,?\s*", re.IGNORECASE)
_NAME = re.compile(r"^name\s*=\s*('?<?[^,\s]*>?'?)\s*,?\s*", re.IGNORECASE)
_DMESG_T = re.compile(r"^\[\s*([A-Z][a-z]{2} [A-Z][a-z]{2}\s+\d{1,2} \d\d:\d\d:\d\d \d{4})\s*\]")
_DMESG_RAW = re.compile(r"^\[\s*(\d+\.\d+)\s*\]")
_ISO = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?)\s")
# "... changed from 0x0 (None) to 0x2 (Node Reboot Required)": the label after "to".
_RECOVERY_TO = re.compile(r"\bto\s+(?:0x[0-9a-f]{1,8}\s*)?\(\s*([^()]{1,60}?)\s*\)", re.IGNORECASE)


@dataclass(frozen=True)
class XidEvent:
    xid: int
    pci: str  # as the driver prints it, e.g. "0000:53:00"
    pid: str | None
    process: str | None
    text: str  # the driver's description after pid / name
    timestamp: str | None
    kind: XidKind
    meaning: str
    line: str
    # Xid 154 only: the driver's label of the new recovery action ("Node Reboot Required").
    recovery_action: str | None = None
    # MIG only: the GPU instance and compute instance the driver attributed the Xid to.
    gpu_instance: int | None = None
    compute_instance: int | None = None

    @property
    def recovery(self) -> Recovery:
        return recovery_needed(self.recovery_action)


def recovery_needed(label: str | None) -> Recovery:
    """What a recovery-action label asks for. A reboot outranks a reset ("Drain and Reset"
    is a reset); an unreadable or missing label is unknown, never assumed harmless."""
    if label is None:
        return "unknown"
    lowered = label.lower()
    if "reboot" in lowered:
        return "reboot"
    if "reset" in lowered or "flr" in lowered:
        return "reset"
    if "drain" in lowered:
        return "drain"
    if lowered.strip() == "none":
        return "none"
    return "unknown"


def recovery_label(text: str) -> str | None:
    """The label of the action an Xid 154 text changes to, as the driver printed it."""
    match = _RECOVERY_TO.search(text)
    return match.group(1).strip() if match else None


def _timestamp(line: str) -> str | None:
    for pattern in (_DMESG_T, _ISO, _DMESG_RAW):
        match = pattern.match(line)
        if match:
            return match.group(1)
    return None


def _strip_quotes(value: str) -> str | None:
    cleaned = value.strip().strip("'\"")
    return None if cleaned in ("", "<unknown>") else cleaned


def parse_xid_line(line: str) -> XidEvent | None:
    match = _NVRM_XID.search(line)
    if match is None:
        return None
    number = int(match["xid"])
    rest = match["rest"].strip()
    pid = process = None
    pid_match = _PID.match(rest)
    if pid_match:
        pid = _strip_quotes(pid_match.group(1))
        rest = rest[pid_match.end() :]
    name_match = _NAME.match(rest)
    if name_match:
        process = _strip_quotes(name_match.group(1))
        rest = rest[name_match.end() :]
    info = refine_kind(number, rest)
    return XidEvent(
        xid=number,
        pci=match["pci"].lower(),
        pid=pid,
        process=process,
        text=rest.strip(),
        timestamp=_timestamp(line.strip()),
        kind=info.kind,
        meaning=info.meaning,
        line=line.strip(),
        recovery_action=recovery_label(rest) if info.kind == "recovery-action" else None,
        gpu_instance=int(match["gi"]) if match["gi"] else None,
        compute_instance=int(match["ci"]) if match["ci"] else None,
    )


def parse_xids(text: str) -> tuple[XidEvent, ...]:
    """Every NVRM Xid event in a kernel log, in order."""
    events: list[XidEvent] = []
    for raw in text.splitlines():
        event = parse_xid_line(raw)
        if event is not None:
            events.append(event)
    return tuple(events)


def of_kind(events: Iterable[XidEvent], kind: XidKind) -> tuple[XidEvent, ...]:
    return tuple(e for e in events if e.kind == kind)


def numbers(events: Iterable[XidEvent]) -> list[int]:
    """The distinct Xid numbers, sorted."""
    return sorted({e.xid for e in events})


def gpus(events: Iterable[XidEvent]) -> list[str]:
    """The distinct PCI addresses, in order of first appearance."""
    seen: list[str] = []
    for event in events:
        if event.pci not in seen:
            seen.append(event.pci)
    return seen


def no_previous_boot(text: str) -> bool:
    """journalctl could not show the previous boot (no persistent journal, no such boot)."""
    lowered = text.lower()
    return any(
        marker in lowered
        for marker in (
            "no persistent journal",
            "specifying boot id",
            "no journal boot entry",
            "failed to look up boot",
            "failed to find journal entry from the specified boot",
            "data from the specified boot",
            "-- no entries --",
        )
    )
