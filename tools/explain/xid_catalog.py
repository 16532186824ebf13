"""Xid numbers: find them in driver logs and classify them per NVIDIA's catalogue."""

from __future__ import annotations

import re
from typing import Literal, NamedTuple

# "remap": the driver recorded a row remap / page retirement that the next GPU reset applies,
# the normal repair path rather than a fault by itself (its state is judged in § G.1.a).
# "recovery-action": Xid 154, the driver saying what it needs after another error (a GPU
# reset, a node reboot, draining peer-to-peer traffic); the text names the action.
XidKind = Literal["application", "follow-on", "hardware", "remap", "recovery-action", "unknown"]

# "NVRM: Xid (PCI:0000:53:00): 79, pid=..." · "Xid 79" · "XID error 48" · "xid=63" ·
# "Xid (43, pid: 5678)"
XID_PATTERN = re.compile(
    r"(?<![A-Za-z])xid(?:\s+errors?)?\s*(?:\(\s*PCI:[0-9A-Fa-f:.]{4,24}\s*\))?\s*[:=,#(]?\s*"
    r"(\d{1,3})(?!\d)",
    re.IGNORECASE,
)


# A NamedTuple, not a frozen dataclass: built at every start-up, where a dataclass
# costs about a millisecond to build (issue 12, item 5).
class XidInfo(NamedTuple):
    kind: XidKind
    section: str
    meaning: str


_XIDS: dict[int, XidInfo] = {
    13: XidInfo("application", "G.2", "graphics engine exception"),
    31: XidInfo("application", "G.2", "GPU memory page fault"),
    43: XidInfo("application", "G.2", "GPU stopped processing"),
    45: XidInfo("follow-on", "G.2", "preemptive cleanup after an earlier error"),
    48: XidInfo("hardware", "G.3", "double-bit (uncorrectable) ECC error"),
    63: XidInfo("remap", "G.1.a", "row remap or page retirement recorded; reset to apply"),
    64: XidInfo("hardware", "G.1.a", "row remap or page retirement failure"),
    # NVIDIA names 71 ROBUST_CHANNEL_CE4_ERROR (restart the application, contact support if it
    # persists); the seed classes it as copy-engine hardware and HyperPod's health agent
    # reboots the node for it (XidHardwareFailure), so it is judged as hardware here.
    71: XidInfo("hardware", "G.2", "copy engine (CE4) error"),
    74: XidInfo("hardware", "G.2", "NVLink error"),
    79: XidInfo("hardware", "G.2", "GPU has fallen off the bus"),
    92: XidInfo("hardware", "G.3", "high single-bit ECC error rate"),
    94: XidInfo("hardware", "G.3", "contained ECC error"),
    95: XidInfo("hardware", "G.3", "uncontained ECC error"),
    109: XidInfo("hardware", "G.2", "context-switch timeout"),
    119: XidInfo("hardware", "G.2", "GSP RPC timeout"),
    120: XidInfo("hardware", "G.2", "GSP error"),
    154: XidInfo("recovery-action", "G.2", "GPU recovery action changed"),
}
_UNKNOWN = XidInfo("unknown", "G.2", "not in this tool's table; see NVIDIA's Xid catalogue")

WEIGHTS: dict[XidKind, float] = {
    "hardware": 6.0,
    "application": 3.0,
    "follow-on": 1.5,
    "remap": 5.0,
    "recovery-action": 5.0,
    "unknown": 3.0,
}

_ADVICE: dict[XidKind, str] = {
    "hardware": "hardware: reboot once, replace the node if it returns",
    "application": "application level: check the workload before the node",
    "follow-on": "a follow-on of another error: look for the Xid before it",
    "remap": "reboot to apply the remap, then re-check; still pending after the reboot: replace",
    "recovery-action": "the driver names the recovery it needs (GPU reset, node reboot, drain)",
    "unknown": "check the catalogue before acting",
}


def classify_xid(number: int) -> XidInfo:
    return _XIDS.get(number, _UNKNOWN)


def describe_xid(number: int) -> str:
    info = classify_xid(number)
    return f"Xid {number}: {info.meaning} ({_ADVICE[info.kind]})"


def find_xids(text: str, limit: int = 1000) -> list[tuple[int, str]]:
    """Every Xid number with the text that carried it, in order of appearance."""
    found: list[tuple[int, str]] = []
    for match in XID_PATTERN.finditer(text):
        found.append((int(match.group(1)), match.group(0)))
        if len(found) >= limit:
            break
    return found
