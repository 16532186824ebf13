"""§ G.5: Neuron hardware errors and Neuron driver errors in the kernel log.

The Neuron driver reports a hardware error as one kernel line, ``NEURON_HW_ERR=<type>
instance-id=... nd-id=<device> nc-id=<core> ... action=<what to do>``. Each line is routed
through the remediation table (`tools.remediation.neuron_report_signal`, the same routing
k8s-node-health gives the node problem detector's condition), which follows AWS's Neuron
Runtime Troubleshooting guide ("Hardware Errors"): an SRAM, NeuronCore or unrepairable HBM
uncorrectable error, a DMA abort and a hang on compute → replace the instance; a repairable
HBM error → reload the driver or reboot; a hang on collectives → "possibly caused by a
hardware error on another worker": look at the other workers and restart the workload, never
replace or reboot this node for it, whatever its ``action=``. For the other types the
driver's own ``action=`` decides when it names one the table knows (TERMINATE_INSTANCE, a
workload restart, a reload or reboot); only then does a finding say that the driver asks for
something.

Per node and per row, in this boot: FAIL P0 for a row that replaces or reboots, FAIL P1 for a
type the table does not know, WARN P1 for a row that never replaces (the hang points
elsewhere). Only in the previous boot: FAIL P1 when the row replaces immediately (a reboot
keeps the instance on the same hardware), else WARN P2 history. The Neuron node problem
detector raises its `NeuronHealth` condition on the same lines (see k8s-node-health).

Other Neuron driver lines that mention an error or a timeout are a WARN P1: the driver
retries some operations itself (it logs a DMA completion timeout during a NeuronCore reset,
then retries the copy), so such a line alone is not a hardware verdict.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from tools.checks._accel import judged_nodes
from tools.checks._node_reads import read_kernel_log
from tools.findings import Finding, Findings, Priority
from tools.parsers.kernel_log import KernelEvent, KernelEventKind, KernelLog
from tools.registry import check
from tools.remediation import (
    FirstAction,
    Replacement,
    Signal,
    neuron_action_in,
    neuron_report_signal,
    rule,
    tagged,
)
from tools.text import clip
from tools.triage.data import ClusterData

CHECK_ID = "neuron-driver-errors"
SECTION = "G.5"
FINDINGS = Findings(CHECK_ID, SECTION)
QUOTED_LINES = 3

_DEVICE = re.compile(r"\bnd-id=(?P<nd>\d{1,3})")


def action_of(event: KernelEvent) -> str | None:
    """The action the driver printed with a NEURON_HW_ERR line, upper case."""
    return neuron_action_in(event.message)


def signal_of(event: KernelEvent) -> Signal:
    """The remediation row of one NEURON_HW_ERR line: its type, and the driver's action
    (the same routing as the node problem detector's condition in k8s-node-health)."""
    return neuron_report_signal(event.detail, event.message)


def needs_replacement(event: KernelEvent) -> bool:
    """True when the line's row replaces the instance first (conclusive evidence)."""
    return rule(signal_of(event)).replacement is Replacement.IMMEDIATELY


def by_signal(events: tuple[KernelEvent, ...]) -> dict[Signal, tuple[KernelEvent, ...]]:
    """The events grouped by their row, rows in the table's order (conclusive first is not
    needed: each row is its own finding)."""
    grouped: dict[Signal, list[KernelEvent]] = {}
    for event in events:
        grouped.setdefault(signal_of(event), []).append(event)
    return {signal: tuple(found) for signal, found in grouped.items()}


def _devices(events: tuple[KernelEvent, ...]) -> list[str]:
    found = {m["nd"] for e in events if (m := _DEVICE.search(e.message))}
    return sorted(found, key=int)


def _evidence(events: tuple[KernelEvent, ...]) -> dict[str, object]:
    return {
        "count": len(events),
        "error_types": sorted({e.detail for e in events if e.detail}),
        "actions": sorted({a for e in events if (a := action_of(e))}),
        "devices": _devices(events),
        "lines": [clip(e.message) for e in events[:QUOTED_LINES]],
        "first_time": events[0].timestamp,
        "last_time": events[-1].timestamp,
    }


def _what(events: tuple[KernelEvent, ...]) -> str:
    types = ", ".join(sorted({clip(e.detail, 60) for e in events if e.detail}))
    devices = _devices(events)
    on = f" on Neuron device(s) {', '.join(devices)}" if devices else ""
    return f"Neuron hardware error {types}{on}"


def _this_boot(
    where: str, instance_id: str, signal: Signal, now: tuple[KernelEvent, ...], again: str
) -> Finding:
    row = rule(signal)
    message = f"{where}: {_what(now)} in this boot{again} — {row.advice}"
    evidence = {
        "boot": "current",
        "replace": row.first_action is FirstAction.REPLACE,
        **tagged(signal),
        **_evidence(now),
    }
    if row.replacement is Replacement.NEVER:
        # A hang on collectives (or a workload restart the driver asks for) is not this
        # node's fault by itself: a warning, so the node is not taken for the culprit.
        return FINDINGS.warn(Priority.P1, message, resources=[instance_id], **evidence)
    priority = Priority.P1 if signal is Signal.NEURON_UNKNOWN else Priority.P0
    return FINDINGS.fail(priority, message, resources=[instance_id], **evidence)


def _previous_boot(
    where: str, instance_id: str, signal: Signal, before: tuple[KernelEvent, ...]
) -> Finding:
    row = rule(signal)
    evidence = {"boot": "previous", **tagged(signal), **_evidence(before)}
    if row.replacement is Replacement.IMMEDIATELY:
        # A reboot keeps the instance on the same host: the hardware is still the same.
        return FINDINGS.fail(
            Priority.P1,
            f"{where}: {_what(before)} before the last reboot; none since, but a reboot "
            f"does not move the instance to other hardware — {row.advice}",
            resources=[instance_id],
            replace=True,
            **evidence,
        )
    return FINDINGS.warn(
        Priority.P2,
        f"{where}: {_what(before)} before the last reboot, none since — history; if it "
        f"returns: {row.advice}",
        resources=[instance_id],
        replace=False,
        **evidence,
    )


def _hardware(
    where: str, instance_id: str, now: tuple[KernelEvent, ...], before: tuple[KernelEvent, ...]
) -> list[Finding]:
    """One finding per row of the table the lines fall under; this boot's lines judged,
    the previous boot's only when this one has none."""
    if now:
        again = " (the previous boot had one too)" if before else ""
        return [
            _this_boot(where, instance_id, signal, events, again)
            for signal, events in by_signal(now).items()
        ]
    return [
        _previous_boot(where, instance_id, signal, events)
        for signal, events in by_signal(before).items()
    ]


def _driver(where: str, instance_id: str, now: tuple[KernelEvent, ...]) -> list[Finding]:
    if not now:
        return []
    return [
        FINDINGS.warn(
            Priority.P1,
            f"{where}: {len(now)} Neuron driver line(s) reporting an error or timeout in this "
            "boot — the driver retries some operations itself, so check neuron-ls and "
            "neuron-monitor for the devices and the job's runtime log for NRT errors before "
            "acting on the node",
            resources=[instance_id],
            boot="current",
            count=len(now),
            lines=[clip(e.message) for e in now[:QUOTED_LINES]],
            first_time=now[0].timestamp,
            last_time=now[-1].timestamp,
        )
    ]


def judge_neuron_errors(
    instance_id: str,
    instance_type: str,
    current: KernelLog,
    previous: KernelLog | None = None,
) -> list[Finding]:
    """Findings for one Neuron node; `previous` is None when that boot could not be read."""
    where = f"{instance_id} ({instance_type})" if instance_type else instance_id
    hw = KernelEventKind.NEURON_HW
    before = previous.of_kind(hw) if previous is not None else ()
    findings = _hardware(where, instance_id, current.of_kind(hw), before)
    findings += _driver(where, instance_id, current.of_kind(KernelEventKind.NEURON))
    if not findings:
        findings.append(
            FINDINGS.passed(
                f"{where}: no Neuron hardware or driver error in the kernel log",
                resources=[instance_id],
            )
        )
    return findings


@check(FINDINGS, title="Neuron hardware and driver errors", scope="node")
def neuron_driver_errors(data: ClusterData) -> Iterable[Finding]:
    """NEURON_HW_ERR reports (FAIL, with the driver's action) and Neuron driver errors."""
    nodes = judged_nodes(data, lambda facts: facts.neuron_devices)
    if not nodes:
        # Worded apart from neuron-devices' note, which a GPU cluster prints next to this one.
        return [FINDINGS.info("No probed node is a Neuron node: no Neuron driver log to read")]
    findings: list[Finding] = []
    for node, _ in nodes:
        current = read_kernel_log(node, "kernel_log", CHECK_ID, SECTION, findings)
        if current is None:
            continue
        previous = read_kernel_log(node, "kernel_log_previous_boot", CHECK_ID, SECTION, None)
        if previous is not None and previous.previous_boot_unavailable:
            previous = None
        findings += judge_neuron_errors(node.instance_id, node.instance_type, current, previous)
    return findings
