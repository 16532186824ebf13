"""§ N: kernel signatures in this boot's dmesg and the previous boot's journal.

Panics and hard lockups are FAIL P0 (the node stops or reboots); soft lockups, hung tasks,
kernel oopses, NMIs, machine checks and watchdog stalls are FAIL P1; I/O errors are WARN P1.
An oops is P1, not P0: the kernel documents it as a recoverable error — the node keeps
running — but it marks itself tainted (flag D) and no longer trustworthy, and the task it
killed may have held locks; so the node is drained and rebooted rather than left in service.
NVIDIA driver (NVRM) errors other than Xid are FAIL P1 pointing here and to § G; Xid lines
themselves are judged by gpu-xid, Neuron driver lines by neuron-driver-errors (§ G.5), and
OOM kills by node-memory. Only the current boot fails: a signature seen only in the previous
boot is history (WARN P2, with when it happened), the usual trace of an unexpected reboot
that the node has been clean of since. One that is back in the current boot after a reboot
points to replacement (§ F.4).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from tools.checks._node_reads import healthy_summary, read_kernel_log, read_probe
from tools.findings import Finding, Findings, Priority, fail, warn
from tools.parsers.kernel_log import KernelEvent, KernelEventKind, KernelLog
from tools.parsers.uptime import parse_uptime
from tools.registry import check
from tools.text import clip, duration
from tools.triage.data import ClusterData

CHECK_ID = "node-kernel"
FINDINGS = Findings(CHECK_ID, "N")
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
    Signature(K.OOPS, "kernel oops", Priority.P1),
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


def _evidence(events: tuple[KernelEvent, ...]) -> dict[str, object]:
    return {
        "count": len(events),
        "lines": [clip(e.message) for e in events[:QUOTED_LINES]],
        "first_time": events[0].timestamp,
        "last_time": events[-1].timestamp,
    }


def _shown(events: tuple[KernelEvent, ...]) -> str:
    details = sorted({d for e in events if (d := _detail(e))})
    return f" ({', '.join(details[:QUOTED_LINES])})" if details else ""


def _now(
    node: str, sig: Signature, events: tuple[KernelEvent, ...], before: tuple[KernelEvent, ...]
) -> Finding:
    message = f"{len(events)} {sig.label} line(s) on {node} in this boot{_shown(events)}"
    if sig.kind is K.NVRM:
        message += ": the NVIDIA driver is the likely trigger; see § G and the gpu-xid findings"
    if sig.kind is K.OOPS:
        message += (
            ": the kernel killed the task it was running and is now tainted; save the log, "
            "drain the node and reboot it"
        )
    if before:
        message += (
            f"; the previous boot had it too ({len(before)} line(s)), so a reboot did not clear "
            "it: replace the node (§ F.4)"
        )
    extra: dict[str, object] = {"previous_boot": _evidence(before)} if before else {}
    make = fail if sig.failing else warn
    return make(
        CHECK_ID,
        sig.priority,
        "N",
        message,
        resources=[node],
        boot="current",
        signature=sig.kind.value,
        **extra,
        **_evidence(events),
    )


def _history(
    node: str,
    sig: Signature,
    events: tuple[KernelEvent, ...],
    current_read: bool,
    uptime_s: float | None,
) -> Finding:
    first, last = events[0].timestamp, events[-1].timestamp
    when = f" at {first}" if first == last else f" between {first} and {last}"
    rebooted = f" {duration(uptime_s)} ago" if uptime_s is not None else ""
    since = (
        f"none in this boot since the reboot{rebooted}"
        if current_read
        else "this boot's log could not be read to tell whether it is back"
    )
    return FINDINGS.warn(
        Priority.P2,
        f"{len(events)} {sig.label} line(s) on {node} in the previous boot"
        f"{when if first else ''}{_shown(events)}; {since} — history, likely why the node "
        "rebooted; replace it if the signature returns",
        resources=[node],
        boot="previous",
        signature=sig.kind.value,
        uptime_s=uptime_s,
        **_evidence(events),
    )


def judge_kernel(
    node: str,
    current: KernelLog | None,
    previous: KernelLog | None = None,
    uptime_s: float | None = None,
) -> list[Finding]:
    """One finding per signature of one node (`node`: instance id). A signature of this boot
    fails (saying when the previous boot had it too); one only in the previous boot is a WARN
    P2 of history, saying how long ago the node rebooted when `uptime_s` is known. None:
    that boot's log could not be read."""
    findings: list[Finding] = []
    for sig in SIGNATURES:
        now = current.of_kind(sig.kind) if current is not None else ()
        before = previous.of_kind(sig.kind) if previous is not None else ()
        if now:
            findings.append(_now(node, sig, now, before))
        elif before:
            findings.append(_history(node, sig, before, current is not None, uptime_s))
    return findings


@check(FINDINGS, title="Kernel panics, lockups and hung tasks", scope="node")
def node_kernel(data: ClusterData) -> Iterable[Finding]:
    """Panic, lockup, oops, hung task, NMI, MCE and NVRM signatures in this and the previous
    boot."""
    findings: list[Finding] = []
    healthy: list[str] = []
    previous_unkept: list[str] = []
    for node in data.reachable_nodes():
        current = read_kernel_log(node, "kernel_log", CHECK_ID, "N", findings)
        previous = read_kernel_log(node, "kernel_log_previous_boot", CHECK_ID, "N", findings)
        if previous is not None and previous.previous_boot_unavailable:
            previous_unkept.append(node.instance_id)
        uptime = parse_uptime(read_probe(node, "uptime").text).seconds
        problems = judge_kernel(node.instance_id, current, previous, uptime)
        findings += problems
        if current is not None and not problems:
            healthy.append(node.instance_id)
    return findings + healthy_summary(
        CHECK_ID,
        "N",
        "No panic, lockup, oops, hung task, NMI or machine check in the kernel log",
        healthy,
        previous_boot_not_kept=previous_unkept,
    )
