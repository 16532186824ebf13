"""§ G.5: Neuron hardware errors and Neuron driver errors in the kernel log.

The Neuron driver reports a hardware error as one kernel line, ``NEURON_HW_ERR=<type>
instance-id=... nd-id=<device> nc-id=<core> ... action=<what to do>``. AWS's Neuron runtime
troubleshooting guide pairs the types with their recovery: an uncorrectable SRAM, NeuronCore
or HBM error and a DMA abort mean the instance should be replaced (the driver says
``action=TERMINATE_INSTANCE``); a repairable HBM error is cleared by reloading the driver or
rebooting. The Neuron node problem detector raises its `NeuronHealth` condition on the same
lines (see k8s-node-health). Such a line in this boot is a FAIL P0 with the action; one only
in the previous boot is still a FAIL P1 when the action was a replacement, because a reboot
keeps the instance on the same hardware.

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
from tools.text import clip
from tools.triage.data import ClusterData

CHECK_ID = "neuron-driver-errors"
SECTION = "G.5"
FINDINGS = Findings(CHECK_ID, SECTION)
QUOTED_LINES = 3

_ACTION = re.compile(r"\baction=(?P<action>[A-Za-z_]{1,40})")
_DEVICE = re.compile(r"\bnd-id=(?P<nd>\d{1,3})")


def action_of(event: KernelEvent) -> str | None:
    """The action the driver printed with a NEURON_HW_ERR line, upper case."""
    match = _ACTION.search(event.message)
    return match["action"].upper() if match else None


def needs_replacement(event: KernelEvent) -> bool:
    """True unless the driver (or the error type) says a reload or reboot repairs it."""
    action = action_of(event) or ""
    if "TERMINATE" in action or "REPLACE" in action:
        return True
    if any(word in action for word in ("REBOOT", "RELOAD", "RESET")):
        return False
    return "REPAIRABLE" not in (event.detail or "")


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


def _hardware(
    where: str, instance_id: str, now: tuple[KernelEvent, ...], before: tuple[KernelEvent, ...]
) -> list[Finding]:
    if now:
        replace = any(needs_replacement(e) for e in now)
        advice = (
            "the driver asks for the instance to be replaced: replace the node (§ F.4)"
            if replace
            else "a driver reload or reboot clears this one: reboot the node, replace it if "
            "the error returns"
        )
        again = " (the previous boot had one too)" if before else ""
        return [
            FINDINGS.fail(
                Priority.P0,
                f"{where}: {_what(now)} in this boot{again} — {advice}",
                resources=[instance_id],
                boot="current",
                replace=replace,
                **({"previous_boot": _evidence(before)} if before else {}),
                **_evidence(now),
            )
        ]
    if before and any(needs_replacement(e) for e in before):
        # A reboot keeps the instance on the same host: the hardware is still the same.
        return [
            FINDINGS.fail(
                Priority.P1,
                f"{where}: {_what(before)} before the last reboot; none since, but a reboot "
                "does not move the instance to other hardware — replace the node (§ F.4)",
                resources=[instance_id],
                boot="previous",
                replace=True,
                **_evidence(before),
            )
        ]
    if before:
        return [
            FINDINGS.warn(
                Priority.P2,
                f"{where}: {_what(before)} before the last reboot, of a kind a reboot "
                "repairs; none since — history, replace the node if it returns",
                resources=[instance_id],
                boot="previous",
                replace=False,
                **_evidence(before),
            )
        ]
    return []


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
