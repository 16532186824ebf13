"""§ N: kernel signatures in this boot's dmesg and the previous boot's journal.

Panics and hard lockups are FAIL P0 (the node stops or reboots); soft lockups, hung tasks,
NMIs, machine checks and watchdog stalls are FAIL P1; I/O errors are WARN P1. NVIDIA driver
(NVRM) errors other than Xid are FAIL P1 pointing here and to § G; Xid lines themselves are
judged by gpu-xid, and OOM kills by node-memory. A signature of the previous boot is judged
the same way and says so: it is the usual trace of an unexpected reboot, and one that is
back in the current boot after a reboot points to replacement (§ F.4).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from tools.checks._node_reads import healthy_summary, read_kernel_log
from tools.checks._text import clip
from tools.findings import Finding, Priority, fail, warn
from tools.parsers.kernel_log import KernelEvent, KernelEventKind, KernelLog
from tools.registry import check
from tools.triage.data import ClusterData

CHECK_ID = "node-kernel"
QUOTED_LINES = 3  # lines quoted in evidence per signature (the count covers all)

K = KernelEventKind


@dataclass(frozen=True)
class Signature:
    kind: KernelEventKind
    label: str
    priority: Priority
    failing: bool = True  # FAIL, else WARN


SIGNATURES: tuple[Signature, ...] = (
    Signature(K.PANIC, "kernel panic", Priority.P0),
    Signature(K.HARD_LOCKUP, "hard lockup", Priority.P0),
    Signature(K.SOFT_LOCKUP, "soft lockup", Priority.P1),
    Signature(K.HUNG_TASK, "hung task", Priority.P1),
    Signature(K.NMI, "NMI", Priority.P1),
    Signature(K.MCE, "machine check", Priority.P1),
    Signature(K.WATCHDOG, "watchdog stall", Priority.P1),
    Signature(K.NVRM, "NVIDIA driver error", Priority.P1),
    Signature(K.IO_ERROR, "I/O error", Priority.P1, failing=False),
)


def _detail(event: KernelEvent) -> str:
    """A short description of one event: CPU, task and duration when the line gave them."""
    parts = []
    if event.cpu is not None:
        parts.append(f"CPU#{event.cpu}")
    if event.process is not None:
        name = clip(event.process, 40)  # text from the node's log
        parts.append(f"{name}:{event.pid}" if event.pid is not None else name)
    if event.seconds is not None:
        parts.append(f"{event.seconds} s")
    return " ".join(parts)


def _one(node: str, sig: Signature, events: tuple[KernelEvent, ...], boot: str) -> Finding:
    when = "in this boot" if boot == "current" else "in the previous boot"
    details = sorted({d for e in events if (d := _detail(e))})
    shown = f" ({', '.join(details[:QUOTED_LINES])})" if details else ""
    message = f"{len(events)} {sig.label} line(s) on {node} {when}{shown}"
    if sig.kind is K.NVRM:
        message += ": the NVIDIA driver is the likely trigger; see § G and the gpu-xid findings"
    elif boot == "previous":
        message += "; a signature that returns after the reboot means replacement"
    evidence = {
        "boot": boot,
        "signature": sig.kind.value,
        "count": len(events),
        "lines": [clip(e.message) for e in events[:QUOTED_LINES]],
        "first_time": events[0].timestamp,
        "last_time": events[-1].timestamp,
    }
    make = fail if sig.failing else warn
    return make(CHECK_ID, sig.priority, "N", message, resources=[node], **evidence)


def judge_kernel(node: str, log: KernelLog, boot: str = "current") -> list[Finding]:
    """One finding per signature found in one boot's log of one node (`node`: instance id;
    `boot`: "current" or "previous")."""
    findings: list[Finding] = []
    for sig in SIGNATURES:
        events = log.of_kind(sig.kind)
        if events:
            findings.append(_one(node, sig, events, boot))
    return findings


@check(CHECK_ID, section="N", title="Kernel panics, lockups and hung tasks")
def node_kernel(data: ClusterData) -> Iterable[Finding]:
    """Panic, lockup, hung task, NMI, MCE and NVRM signatures in this and the previous boot."""
    findings: list[Finding] = []
    healthy: list[str] = []
    previous_unkept: list[str] = []
    for node in data.reachable_nodes():
        current = read_kernel_log(node, "kernel_log", CHECK_ID, "N", findings)
        previous = read_kernel_log(node, "kernel_log_previous_boot", CHECK_ID, "N", findings)
        problems: list[Finding] = []
        if current is not None:
            problems += judge_kernel(node.instance_id, current, "current")
        if previous is not None:
            problems += judge_kernel(node.instance_id, previous, "previous")
            if previous.previous_boot_unavailable:
                previous_unkept.append(node.instance_id)
        findings += problems
        if current is not None and not problems:
            healthy.append(node.instance_id)
    return findings + healthy_summary(
        CHECK_ID,
        "N",
        "No panic, lockup, hung task, NMI or machine check in the kernel log",
        healthy,
        previous_boot_not_kept=previous_unkept,
    )
