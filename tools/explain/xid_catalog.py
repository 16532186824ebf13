"""Xid numbers: find them in driver logs and classify them per NVIDIA's catalogue.

The table follows NVIDIA's Xid catalogue for Ampere and newer GPUs
<https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html>: its "Resolution Bucket
(Immediate Action)" column says what recovers the GPU (RESTART_APP: the application;
RESET_GPU / RESTART_BM: the GPU or the node; IGNORE: nothing), and its trigger notes say
where the fault usually lies. A code the catalogue gives no action for, or one this table
has not been checked against, stays "unknown" with whatever meaning the catalogue states.
"""

from __future__ import annotations

import re
from typing import Literal, NamedTuple

from tools.remediation import Signal, rule

# "non-fatal": an NVLink5 error (Xid 144-150) the driver itself reports as non-fatal; the
# catalogue's decode table asks for no immediate action for those rows (IGNORE) or for the
# action of an Xid 154 logged with it (XID_154_EVAL), which is judged on its own.
# "remap": the driver recorded a row remap / page retirement that the next GPU reset applies,
# the normal repair path rather than a fault by itself (its state is judged in § G.1.a).
# "recovery-action": Xid 154, the driver saying what it needs after another error (a GPU
# reset, a node reboot, draining peer-to-peer traffic); the text names the action.
XidKind = Literal[
    "application", "follow-on", "hardware", "non-fatal", "remap", "recovery-action", "unknown"
]

# "NVRM: Xid (PCI:0000:53:00): 79, pid=..." · "Xid 79" · "XID error 48" · "xid=63" ·
# "Xid (43, pid: 5678)" · on a MIG GPU the driver adds the GPU instance and, when it knows
# it, the compute instance: "NVRM: Xid (PCI:0000:01:00 GPU-I:05): 94" or
# "(PCI:0000:3b:00 GPU-I:01 GPU-CI:02)" (open-gpu-kernel-modules, kernel_rc.c; NVIDIA's GPU
# memory error management guide, "Contained error with MIG enabled").
XID_PATTERN = re.compile(
    r"(?<![A-Za-z])xid(?:\s+errors?)?\s*"
    r"(?:\(\s*PCI:[0-9A-Fa-f:.]{4,24}(?:\s+GPU-C?I:\s*\d{1,4}){0,2}\s*\))?\s*[:=,#(]?\s*"
    r"(\d{1,3})(?!\d)",
    re.IGNORECASE,
)


# A NamedTuple, not a frozen dataclass: built at every start-up, where a dataclass
# costs about a millisecond to build (issue 12, item 5).
class XidInfo(NamedTuple):
    kind: XidKind
    section: str
    meaning: str


# Each entry: the catalogue's description, and in the comment its immediate action.
_XIDS: dict[int, XidInfo] = {
    13: XidInfo("application", "G.2", "graphics engine exception"),  # RESTART_APP
    31: XidInfo("application", "G.2", "GPU memory page fault"),  # RESTART_APP
    43: XidInfo("application", "G.2", "GPU stopped processing"),  # IGNORE: the GPU stays healthy
    45: XidInfo("follow-on", "G.2", "preemptive cleanup after an earlier error"),
    46: XidInfo("hardware", "G.2", "GPU stopped processing (GPU timeout)"),  # RESET_GPU
    48: XidInfo("hardware", "G.3", "double-bit (uncorrectable) ECC error"),
    62: XidInfo("hardware", "G.2", "internal micro-controller (PMU) halt"),  # RESET_GPU
    63: XidInfo("remap", "G.1.a", "row remap or page retirement recorded; reset to apply"),
    64: XidInfo("hardware", "G.1.a", "row remap or page retirement recording failure"),
    # NVIDIA names 71 ROBUST_CHANNEL_CE4_ERROR (restart the application, contact support if it
    # persists); the seed classes it as copy-engine hardware and HyperPod's health agent
    # reboots the node for it (XidHardwareFailure), so it is judged as hardware here.
    71: XidInfo("hardware", "G.2", "copy engine (CE4) error"),
    74: XidInfo("hardware", "G.2", "NVLink error"),  # WORKFLOW_NVLINK_ERR
    79: XidInfo("hardware", "G.2", "GPU has fallen off the bus"),  # RESTART_BM
    92: XidInfo("hardware", "G.3", "high single-bit ECC error rate"),
    94: XidInfo("hardware", "G.3", "contained ECC error"),
    95: XidInfo("hardware", "G.3", "uncontained ECC error"),  # RESET_GPU
    109: XidInfo("hardware", "G.2", "context-switch timeout"),  # RESET_GPU
    # SEC_FAULT_ERROR: "uncommon unless there is a hardware failure" (cold reset).
    110: XidInfo("hardware", "G.2", "security fault"),  # RESET_GPU
    119: XidInfo("hardware", "G.2", "GSP RPC timeout"),  # RESET_GPU
    120: XidInfo("hardware", "G.2", "GSP error"),  # RESET_GPU
    136: XidInfo("hardware", "G.2", "NVLink link training failed"),  # RESET_GPU
    # NVLINK_PRIV_ERR: an illegal NVLink peer-to-peer access, "typically application-level
    # bugs" (XID_137_FLOW: run the application under cuda-gdb or compute-sanitizer).
    137: XidInfo("application", "G.2", "NVLink privilege error (illegal peer access)"),  # IGNORE
    # UNRECOVERABLE_ECC_ERROR_ESCAPE: uncorrectable memory errors the driver could not mark
    # for page offlining or row remapping.
    140: XidInfo("hardware", "G.3", "unrecovered ECC error (not offlined or remapped)"),
    143: XidInfo("hardware", "G.2", "GPU initialization error"),  # RESET_GPU
    # 144-150: NVLink5 (B100, GB200) errors, WORKFLOW_NVLINK5_ERR: the action depends on
    # the sub-unit and status the line carries. Rows the driver reports Fatal or Link Fatal
    # ask for RESET_GPU; non-fatal ones for nothing or for the Xid 154 beside them, which the
    # parser reads from the line (`refine_kind`). Without the line, the fatal reading.
    144: XidInfo("hardware", "G.2", "NVLink5 SAW error"),
    145: XidInfo("hardware", "G.2", "NVLink5 RLW error"),
    146: XidInfo("hardware", "G.2", "NVLink5 TLW error"),
    147: XidInfo("hardware", "G.2", "NVLink5 TREX error"),
    148: XidInfo("hardware", "G.2", "NVLink5 NVLPW control error"),
    149: XidInfo("hardware", "G.2", "NVLink5 NETIR error (link event)"),
    150: XidInfo("hardware", "G.2", "NVLink5 MSE error"),
    154: XidInfo("recovery-action", "G.2", "GPU recovery action changed"),
    158: XidInfo("hardware", "G.2", "GPU fatal timeout"),  # RESET_GPU
    # The catalogue lists SEC2_HALT_ERROR with no resolution bucket: meaning known, action not.
    169: XidInfo("unknown", "G.2", "internal micro-controller (SEC2) halt; no action listed"),
    # 171 / 172 add detail to an Xid 48 (NVIDIA's GPU memory error management guide: "XID 171
    # indicates if it is DRAM and XID 172 indicates if it is SRAM"): judged like 48.
    171: XidInfo("hardware", "G.3", "uncorrectable DRAM ECC error (detail of an Xid 48)"),
    172: XidInfo("hardware", "G.3", "uncorrectable SRAM ECC error (detail of an Xid 48)"),
}
_UNKNOWN = XidInfo("unknown", "G.2", "not in this tool's table; see NVIDIA's Xid catalogue")

WEIGHTS: dict[XidKind, float] = {
    "hardware": 6.0,
    "application": 3.0,
    "follow-on": 1.5,
    "non-fatal": 1.5,
    "remap": 5.0,
    "recovery-action": 5.0,
    "unknown": 3.0,
}

_ADVICE: dict[XidKind, str] = {
    "hardware": "hardware: reboot once, replace the node if it returns",
    "application": "application level: check the workload before the node",
    "follow-on": "a follow-on of another error: look for the Xid before it",
    "non-fatal": "reported non-fatal by the driver: act on an Xid 154 logged with it, if any",
    "remap": "reboot to apply the remap, then re-check; still pending after the reboot: replace",
    "recovery-action": "the driver names the recovery it needs (GPU reset, node reboot, drain)",
    "unknown": "check the catalogue before acting",
}


def classify_xid(number: int) -> XidInfo:
    return _XIDS.get(number, _UNKNOWN)


# The NVLink5 Xids whose lines say whether the driver found them fatal: "149, NETIR_LINK_EVT
# Fatal XC0 i0 Link 00 (0x...)", "145, RLW_RXPIPE Nonfatal XC0 i0 Link 13 (0x...)".
NVLINK5_XIDS = frozenset(range(144, 151))
_NON_FATAL = re.compile(r"^\s*[A-Z0-9_/]{1,40}\s+non-?fatal\b", re.IGNORECASE)


def refine_kind(number: int, text: str) -> XidInfo:
    """The classification of one logged event: the table's, except that an NVLink5 Xid the
    driver's own line calls non-fatal is "non-fatal" (the catalogue asks for no immediate
    action for those, or for the action of the Xid 154 beside them)."""
    info = classify_xid(number)
    if number in NVLINK5_XIDS and _NON_FATAL.match(text):
        return info._replace(kind="non-fatal")
    return info


# Xids whose advice is a row of the remediation table, so explain and the checks word it
# alike. Xid 64: NVIDIA's catalogue names a GPU reset (RESET_GPU) as the immediate action;
# the remapping-failure flag read after it is what justifies a replacement.
_TABLE_ROWS: dict[int, Signal] = {64: Signal.XID_REMAP_NOT_RECORDED}


def describe_xid(number: int) -> str:
    info = classify_xid(number)
    row = _TABLE_ROWS.get(number)
    advice = rule(row).advice if row is not None else _ADVICE[info.kind]
    return f"Xid {number}: {info.meaning} ({advice})"


def find_xids(text: str, limit: int = 1000) -> list[tuple[int, str]]:
    """Every Xid number with the text that carried it, in order of appearance."""
    found: list[tuple[int, str]] = []
    for match in XID_PATTERN.finditer(text):
        found.append((int(match.group(1)), match.group(0)))
        if len(found) >= limit:
            break
    return found
