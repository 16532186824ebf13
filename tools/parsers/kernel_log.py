"""Kernel log lines (`dmesg -T`, `dmesg`, `journalctl -k -o short-iso`) classified by signature.

The probes already keep only lines that match the signatures worth judging; this module
strips each line's timestamp and names what the line reports: an OOM kill (of the node, or
of a memory cgroup: a container or job at its own memory limit), a panic, a
soft or hard lockup, a hung task, a kernel oops, an NMI, a machine check, an I/O error, an
NVIDIA driver (NVRM) error, a Neuron hardware error report or Neuron driver error. Xid lines
are recognised as such and nothing more: tools/parsers/xid.py reads them. Benign lines the
same grep lets through (watchdog and NMI-watchdog start-up, "NVRM: loading ...", "mce: ...
Thermal monitoring enabled", "neuron:npid_detach: ...", a user-space "traps: ... general
protection fault") are OTHER, never a fault.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from enum import StrEnum


class KernelEventKind(StrEnum):
    OOM_KILL = "oom-kill"  # a process the OOM killer ended: the node ran out of memory
    CGROUP_OOM_KILL = "cgroup-oom-kill"  # ended because its memory cgroup hit its limit
    OOM = "oom"  # OOM killer context lines (invoked, constraint, reaper)
    PANIC = "panic"
    HARD_LOCKUP = "hard-lockup"
    SOFT_LOCKUP = "soft-lockup"
    HUNG_TASK = "hung-task"
    WATCHDOG = "watchdog"  # other stalls the watchdogs report (workqueue lockup)
    OOPS = "oops"  # the kernel hit a bug or a bad access and killed the task it was running
    NMI = "nmi"
    MCE = "mce"
    IO_ERROR = "io-error"
    NVRM = "nvrm"  # NVIDIA driver errors other than Xid
    NEURON_HW = "neuron-hw"  # the Neuron driver's NEURON_HW_ERR=<type> hardware error report
    NEURON = "neuron"  # other Neuron driver lines that report an error or a timeout
    XID = "xid"  # left to tools/parsers/xid.py
    OTHER = "other"


@dataclass(frozen=True)
class KernelEvent:
    kind: KernelEventKind
    message: str  # the line without its timestamp (and host / "kernel:" for journal lines)
    timestamp: str | None = None  # as printed, when the line had one
    process: str | None = None  # the killed, locked-up or blocked task
    pid: int | None = None
    cpu: int | None = None
    seconds: int | None = None  # stuck / blocked duration
    detail: str | None = None  # the Neuron hardware error type (SRAM_UNCORRECTABLE_ERROR, ...)


@dataclass(frozen=True)
class KernelLog:
    events: tuple[KernelEvent, ...] = ()
    # journalctl said there is no earlier boot to read (no persistent journal, no boot -1).
    previous_boot_unavailable: bool = False
    # dmesg or journalctl refused to read the log (dmesg_restrict, no journal permission):
    # the log is unknown, not clean.
    refused: str | None = None

    def of_kind(self, *kinds: KernelEventKind) -> tuple[KernelEvent, ...]:
        return tuple(e for e in self.events if e.kind in kinds)


# What dmesg / journalctl print when they may not read the log (a line of their own, not a
# kernel message: those carry a timestamp). journalctl run without privileges shows only
# the caller's own messages and says so in a hint: for the kernel journal that is nothing.
_REFUSED = re.compile(
    r"^(?:dmesg: )?read kernel buffer failed|^dmesg: .*operation not permitted|"
    r"insufficient permissions|"
    r"^hint: you are currently not seeing messages from other users and the system",
    re.IGNORECASE,
)
_DMESG_T = re.compile(r"^\[(?P<ts>[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]?\d \d\d:\d\d:\d\d \d{4})\]\s?")
_DMESG_RAW = re.compile(r"^\[\s*(?P<ts>\d{1,12}\.\d{1,9})\]\s?")
_JOURNAL = re.compile(
    r"^(?P<ts>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[.,]\d{1,9})?(?:Z|[+-]\d\d:?\d\d)?)"
    r"\s+\S+\s+[^\s:\[]+(?:\[\d{1,10}\])?:\s?"
)
# journalctl's own answers when there is no previous boot to show (a first boot, a journal
# kept in memory only): the previous boot is unknown, not clean.
_JOURNAL_NOTE = re.compile(
    r"no persistent journal|specifying boot id|no such boot id|"
    r"data from the specified boot .* is not available|no journal boot entry found|"
    r"failed to look up boot|failed to find journal entry from the specified boot|"
    r"^-- no entries --$",
    re.IGNORECASE,
)

_XID = re.compile(r"(?<![A-Za-z])xid(?![A-Za-z])", re.IGNORECASE)
# "Killed process 4503 ((sd-pam)) total-vm:..." (the name is the task's comm, which may hold
# parentheses, spaces and colons: "(sd-pam)", "kworker/0:1"), "Killed process 817194 (node),
# UID 1000, total-vm:..." and RHEL 6's "Killed process 11726, UID 498, (mysqld) total-vm:...".
# The name runs to the last ")" before "total-vm" when the line has it; otherwise to the
# first ")" followed by a space, a comma or the end.
_KILLED_PREFIX = r"killed process (?P<pid>\d{1,10})(?:, UID \d{1,10},)? \("
_KILLED = re.compile(
    _KILLED_PREFIX + r"(?P<name>.{0,64})\)(?:,? UID \d{1,10},)?\s+total-vm:", re.IGNORECASE
)
_KILLED_BARE = re.compile(_KILLED_PREFIX + r"(?P<name>.{0,64}?)\)(?=[\s,]|$)", re.IGNORECASE)
# A memory cgroup's kill: on one line ("Memory cgroup out of memory: Killed process 7 (x)"),
# or announced before a separate "Killed process 7 (x)" line by older kernels ("Memory cgroup
# out of memory: Kill process 7 (x) score ...") and by the constraint line of newer ones
# ("oom-kill:constraint=CONSTRAINT_MEMCG,...,pid=7,...").
_CGROUP_OOM = re.compile(r"memory cgroup out of memory", re.IGNORECASE)
_CGROUP_ANNOUNCED = re.compile(
    r"memory cgroup out of memory: kill process (?P<pid>\d{1,10})\b|"
    r"constraint=constraint_memcg\b.*?\bpid=(?P<memcg_pid>\d{1,10})\b",
    re.IGNORECASE,
)
_OOM_CONTEXT = re.compile(
    r"invoked oom-killer|oom-kill:|out of memory|oom_reaper|oom killer", re.IGNORECASE
)
_PANIC = re.compile(r"kernel panic|panic - not syncing|\bpanic occurred\b", re.IGNORECASE)
_HARD_LOCKUP = re.compile(r"hard lockup", re.IGNORECASE)
# "... stuck for 23s! [kworker/2:1:25629]": the kernel prints "[%s:%d]" (comm, pid), and a
# comm may itself hold colons (every kworker/N:M), so the pid is the number after the last
# colon inside the brackets.
_SOFT_LOCKUP = re.compile(
    r"soft lockup - CPU#(?P<cpu>\d{1,6}) stuck for (?P<seconds>\d{1,9})s!"
    r"(?: \[(?P<name>[^\]]{0,64}):(?P<pid>\d{1,10})\])?",
    re.IGNORECASE,
)
_SOFT_LOCKUP_ANY = re.compile(r"soft lockup", re.IGNORECASE)
# "INFO: task kworker/12:1:1234 blocked for more than 120 seconds." ("task %s:%d blocked"):
# the comm may hold colons and spaces, so the pid is the number right before " blocked".
_HUNG = re.compile(
    r"\btask (?P<name>.{1,64}?):(?P<pid>\d{1,10}) blocked for more than (?P<seconds>\d{1,9}) "
    r"seconds",
    re.IGNORECASE,
)
_HUNG_ANY = re.compile(r"blocked for more than \d{1,9} seconds|hung_task: blocked", re.IGNORECASE)
_WATCHDOG = re.compile(r"workqueue lockup|watchdog: BUG:|watchdog timeout", re.IGNORECASE)
_NMI = re.compile(
    r"NMI received for unknown reason|uhhuh\. nmi|dazed and confused|"
    r"NMI: (?:PCI )?(?:system error|IOCK error|SERR)",
    re.IGNORECASE,
)
_MCE = re.compile(r"\[hardware error\]|machine check (?:event|error|exception)", re.IGNORECASE)
_IO_ERROR = re.compile(r"i/o error", re.IGNORECASE)
_NVRM = re.compile(r"\bNVRM\b", re.IGNORECASE)
_NVRM_ERROR = re.compile(
    r"crash|assert|failed|failure|error|fallen off|timeout|timed out|rminitadapter|"
    r"not responding|lost|unable",
    re.IGNORECASE,
)
# A kernel oops and its kin: "BUG: unable to handle page fault for address ...", "BUG:
# kernel NULL pointer dereference, address: ...", "Oops: 0002 [#1] SMP PTI", "general
# protection fault, probably for non-canonical address ...: 0000 [#1]", "kernel BUG at
# mm/slub.c:305!". A user process's fault ("traps: python[42] general protection fault ip:...")
# is that process's crash, not the kernel's.
_OOPS = re.compile(
    r"BUG: unable to handle|BUG: kernel NULL pointer|kernel BUG at|\bOops:|"
    r"general protection fault",
    re.IGNORECASE,
)
_USER_TRAP = re.compile(r"\btraps:", re.IGNORECASE)
# "NEURON_HW_ERR=SRAM_UNCORRECTABLE_ERROR instance-id=i-... nd-id=0 nc-id=0 ...
# action=TERMINATE_INSTANCE": the driver's report of a Neuron hardware error.
_NEURON_HW = re.compile(r"NEURON_HW_ERR=(?P<type>[A-Z0-9_]{1,60})", re.IGNORECASE)
# The Neuron driver prefixes its lines with its module name and function ("neuron:ndma_...:")
# or a device ("neuron3: ..."); only those that report a failure are kept as errors.
_NEURON = re.compile(r"(?<![\w-])neuron\d{0,3}:", re.IGNORECASE)
_NEURON_ERROR = re.compile(
    r"error|fail|timeout|timed out|hang|abort|uncorrectable|not responding|unable",
    re.IGNORECASE,
)
_CPU = re.compile(r"\bcpu#?\s?(?P<cpu>\d{1,6})\b", re.IGNORECASE)


def strip_timestamp(line: str) -> tuple[str | None, str]:
    """(timestamp or None, the rest of the line) for dmesg -T, raw dmesg and journal lines."""
    for pattern in (_DMESG_T, _DMESG_RAW, _JOURNAL):
        match = pattern.match(line)
        if match is not None:
            return match["ts"], line[match.end() :]
    return None, line


def _int(text: str | None) -> int | None:
    return int(text) if text else None


def _cpu(message: str) -> int | None:
    match = _CPU.search(message)
    return int(match["cpu"]) if match else None


def classify(message: str, timestamp: str | None = None) -> KernelEvent:
    """The kind of one timestamp-free kernel message. Order matters: a panic caused by a
    hard lockup is a panic; an Xid line is an Xid even when it mentions other words."""
    kind = KernelEventKind
    if _XID.search(message) and _NVRM.search(message):
        return KernelEvent(kind.XID, message, timestamp)
    neuron_hw = _NEURON_HW.search(message)
    if neuron_hw is not None:
        return KernelEvent(kind.NEURON_HW, message, timestamp, detail=neuron_hw["type"].upper())
    if _PANIC.search(message):
        return KernelEvent(kind.PANIC, message, timestamp)
    killed = _KILLED.search(message) or _KILLED_BARE.search(message)
    if killed is not None:
        which = kind.CGROUP_OOM_KILL if _CGROUP_OOM.search(message) else kind.OOM_KILL
        return KernelEvent(
            which, message, timestamp, process=killed["name"], pid=int(killed["pid"])
        )
    if _OOM_CONTEXT.search(message):
        return KernelEvent(kind.OOM, message, timestamp)
    if _HARD_LOCKUP.search(message):
        return KernelEvent(kind.HARD_LOCKUP, message, timestamp, cpu=_cpu(message))
    soft = _SOFT_LOCKUP.search(message)
    if soft is not None:
        return KernelEvent(
            kind.SOFT_LOCKUP,
            message,
            timestamp,
            process=soft["name"] or None,
            pid=_int(soft["pid"]),
            cpu=int(soft["cpu"]),
            seconds=int(soft["seconds"]),
        )
    if _SOFT_LOCKUP_ANY.search(message):
        return KernelEvent(kind.SOFT_LOCKUP, message, timestamp, cpu=_cpu(message))
    hung = _HUNG.search(message)
    if hung is not None:
        return KernelEvent(
            kind.HUNG_TASK,
            message,
            timestamp,
            process=hung["name"],
            pid=int(hung["pid"]),
            seconds=int(hung["seconds"]),
        )
    if _HUNG_ANY.search(message):
        return KernelEvent(kind.HUNG_TASK, message, timestamp)
    if _WATCHDOG.search(message):
        return KernelEvent(kind.WATCHDOG, message, timestamp, cpu=_cpu(message))
    if _OOPS.search(message) and not _USER_TRAP.search(message):
        return KernelEvent(kind.OOPS, message, timestamp, cpu=_cpu(message))
    if _NMI.search(message):
        return KernelEvent(kind.NMI, message, timestamp, cpu=_cpu(message))
    if _MCE.search(message):
        return KernelEvent(kind.MCE, message, timestamp, cpu=_cpu(message))
    if _IO_ERROR.search(message):
        return KernelEvent(kind.IO_ERROR, message, timestamp)
    if _NVRM.search(message) and _NVRM_ERROR.search(message):
        return KernelEvent(kind.NVRM, message, timestamp)
    if _NEURON.search(message) and _NEURON_ERROR.search(message):
        return KernelEvent(kind.NEURON, message, timestamp)
    if _XID.search(message):
        return KernelEvent(kind.XID, message, timestamp)
    return KernelEvent(kind.OTHER, message, timestamp)


def parse_kernel_log(text: str) -> KernelLog:
    """Every non-empty line, classified. Journal notes about a missing previous boot set
    `previous_boot_unavailable` instead of producing events. Never raises."""
    events: list[KernelEvent] = []
    unavailable = False
    refused: str | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("-- Boot ") or line.startswith("-- Logs begin"):
            continue
        if _JOURNAL_NOTE.search(line):
            unavailable = True
            continue
        if _REFUSED.search(line) and not _DMESG_T.match(line):
            refused = refused or line[:200]
            continue
        timestamp, message = strip_timestamp(line)
        events.append(classify(message.strip(), timestamp))
    return KernelLog(_cgroup_kills(events), unavailable, refused)


def _cgroup_kills(events: list[KernelEvent]) -> tuple[KernelEvent, ...]:
    """Kills announced as a memory cgroup's (by an earlier line naming the pid) are cgroup
    kills even when their own "Killed process" line does not say so."""
    announced: set[int] = set()
    tagged: list[KernelEvent] = []
    for event in events:
        if event.kind is KernelEventKind.OOM:
            match = _CGROUP_ANNOUNCED.search(event.message)
            if match is not None:
                announced.add(int(match["pid"] or match["memcg_pid"]))
        elif event.kind is KernelEventKind.OOM_KILL and event.pid in announced:
            tagged.append(replace(event, kind=KernelEventKind.CGROUP_OOM_KILL))
            continue
        tagged.append(event)
    return tuple(tagged)
