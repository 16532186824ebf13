"""§ G.2: NVRM Xid events in this boot's kernel log and the previous boot's journal.

Hardware Xids mean the node needs attention (reboot, then replace if they come back);
the same Xid on the same GPU in both boots means the reboot did not help, so the node goes
to replacement (§ F.4: investigate → reboot → replace). A different hardware Xid after the
reboot is a new fault of this boot, judged as such. Xid 63 (a row remap waiting for a reset)
is the normal repair path, judged with row remapping (§ G.1.a); Xid 154 carries the recovery
the driver asks for. Application Xids (13, 31, 43: NVIDIA's catalogue says restart the
application and check its code, and for 43 that the GPU stays healthy) are workload signals:
WARN P2 naming the process, with no reboot or replace advice. The advice words and the
row each finding names (evidence `remediation`) come from the remediation table
(`tools/remediation/`): a repeat after a reboot is conclusive; Xid 64 (NVIDIA's catalogue:
a row remap or page retirement that could not be recorded, immediate action a GPU reset) is
rebooted and then judged by the remapping-failure flag (row-remap check, § G.1.a); Xid 79 is
recounted after a reboot.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from tools.checks._accel import could_not_read, judged_nodes, label, none_probed, read
from tools.findings import Finding, Findings, Priority
from tools.parsers.kernel_log import parse_kernel_log
from tools.parsers.xid import (
    Recovery,
    XidEvent,
    gpus,
    no_previous_boot,
    numbers,
    of_kind,
    parse_xids,
)
from tools.registry import check
from tools.remediation import Signal, advice, tagged
from tools.text import clip
from tools.triage.data import ClusterData

CHECK_ID = "gpu-xid"
SECTION = "G.2"
FINDINGS = Findings(CHECK_ID, SECTION)
_MAX_LINES = 5


def describe(events: Iterable[XidEvent]) -> str:
    """ "Xid 79 (GPU has fallen off the bus) on 0000:53:00; Xid 48 (...) on ..."."""
    listed = list(events)
    parts = []
    for number in numbers(listed):
        same = [e for e in listed if e.xid == number]
        parts.append(f"Xid {number} ({same[0].meaning}) on {', '.join(gpus(same))}")
    return "; ".join(parts)


def _evidence(events: Iterable[XidEvent]) -> dict[str, object]:
    listed = list(events)
    return {
        "xids": numbers(listed),
        "gpus": gpus(listed),
        "lines": [clip(e.line) for e in listed[:_MAX_LINES]],  # the node's log: clipped
    }


def _same_fault(now: tuple[XidEvent, ...], before: tuple[XidEvent, ...]) -> tuple[XidEvent, ...]:
    """The events of `now` whose Xid number was also logged by the same GPU in `before`."""
    earlier = {(e.xid, e.pci) for e in before}
    return tuple(e for e in now if (e.xid, e.pci) in earlier)


XID_REMAP_FAILURE = 64  # NVIDIA's catalogue: remap / retirement recording failure, RESET_GPU
XID_OFF_THE_BUS = 79  # NVIDIA's catalogue: GPU has fallen off the bus


class HardwareState(StrEnum):
    REPEATED_AFTER_REBOOT = "repeated-after-reboot"  # same Xid, same GPU, in both boots
    THIS_BOOT = "this-boot"
    PREVIOUS_BOOT_ONLY = "previous-boot-only"  # none since the reboot


@dataclass(frozen=True, slots=True)
class HardwareXids:
    """The verdict on a node's hardware Xids across its two boots."""

    state: HardwareState
    now: tuple[XidEvent, ...]  # this boot's hardware Xids
    before: tuple[XidEvent, ...]  # the previous boot's (for a repeat: only those repeated)
    repeated: tuple[XidEvent, ...] = ()  # this boot's events that repeat a previous one
    previous_read: bool = True


@dataclass(frozen=True, slots=True)
class RecoveryAsk:
    """Xid 154: the worst recovery the driver asks for among `events`."""

    need: Recovery
    events: tuple[XidEvent, ...]


class XidGroupKind(StrEnum):
    REMAP = "remap"  # Xid 63: a row remap waiting for a GPU reset
    APPLICATION = "application"
    NON_FATAL = "non-fatal"  # NVLink5 errors the driver reported non-fatal
    UNKNOWN = "unknown"  # not in the catalogue
    FOLLOW_ON_ONLY = "follow-on-only"  # consequences, with no primary Xid this boot
    CLEAN = "clean"  # no Xid at all this boot


@dataclass(frozen=True, slots=True)
class XidGroup:
    kind: XidGroupKind
    events: tuple[XidEvent, ...] = ()


XidVerdict = HardwareXids | RecoveryAsk | XidGroup


def hardware_verdict(
    now: tuple[XidEvent, ...], before: tuple[XidEvent, ...], previous_read: bool
) -> HardwareXids | None:
    """The rule of § F.4 over both boots' hardware Xids (None when neither has any)."""
    repeated = _same_fault(now, before)
    if repeated:
        # The same Xid on the same GPU survived a reboot: rebooting again will not help.
        state, before = HardwareState.REPEATED_AFTER_REBOOT, _same_fault(before, repeated)
    elif now:
        state = HardwareState.THIS_BOOT
    elif before:
        state = HardwareState.PREVIOUS_BOOT_ONLY
    else:
        return None
    return HardwareXids(state, now, before, repeated, previous_read)


def recovery_verdict(events: tuple[XidEvent, ...]) -> RecoveryAsk:
    """Xid 154 judged by the worst recovery asked: reboot, reset, drain, unknown, none."""
    asked = {e.recovery for e in events}
    worst: tuple[Recovery, ...] = ("reboot", "reset", "drain", "unknown")
    return RecoveryAsk(next((need for need in worst if need in asked), "none"), events)


def xid_verdicts(
    current: tuple[XidEvent, ...], previous: tuple[XidEvent, ...] | None
) -> list[XidVerdict]:
    """Every verdict on one node's Xids, in report order; `previous` is None when the
    previous boot could not be read."""
    hardware = of_kind(current, "hardware")
    verdicts: list[XidVerdict] = []
    if found := hardware_verdict(
        hardware, of_kind(previous or (), "hardware"), previous is not None
    ):
        verdicts.append(found)
    remap, recovery = of_kind(current, "remap"), of_kind(current, "recovery-action")
    application, unknown = of_kind(current, "application"), of_kind(current, "unknown")
    non_fatal = of_kind(current, "non-fatal")
    if remap:
        verdicts.append(XidGroup(XidGroupKind.REMAP, remap))
    if recovery:
        verdicts.append(recovery_verdict(recovery))
    if application:
        verdicts.append(XidGroup(XidGroupKind.APPLICATION, application))
    if non_fatal:
        verdicts.append(XidGroup(XidGroupKind.NON_FATAL, non_fatal))
    if unknown:
        verdicts.append(XidGroup(XidGroupKind.UNKNOWN, unknown))
    follow_on = of_kind(current, "follow-on")
    if follow_on and not (hardware or remap or recovery or application or non_fatal or unknown):
        verdicts.append(XidGroup(XidGroupKind.FOLLOW_ON_ONLY, follow_on))
    if not current:
        verdicts.append(XidGroup(XidGroupKind.CLEAN))
    return verdicts


def hardware_signal(verdict: HardwareXids) -> Signal:
    """The remediation row of a hardware verdict: a repeat after a reboot is conclusive; in
    this boot an Xid 64 is reset with a reboot and then judged by the remapping-failure
    flag, a GPU off the bus (Xid 79) is recounted after a reboot, and any other hardware Xid
    is rebooted and watched."""
    if verdict.state is HardwareState.REPEATED_AFTER_REBOOT:
        return Signal.HARDWARE_XID_REPEATED
    found = {e.xid for e in verdict.now}
    if XID_REMAP_FAILURE in found:
        return Signal.XID_REMAP_NOT_RECORDED
    if XID_OFF_THE_BUS in found:
        return Signal.GPU_MISSING
    return Signal.HARDWARE_XID


def _word_hardware(where: str, instance_id: str, verdict: HardwareXids) -> Finding:
    now, before = verdict.now, verdict.before
    signal = hardware_signal(verdict)
    if verdict.state is HardwareState.REPEATED_AFTER_REBOOT:
        return FINDINGS.fail(
            Priority.P0,
            f"{where}: hardware {describe(verdict.repeated)} repeated after a reboot (the same "
            f"Xid on the same GPU in the previous boot) — {advice(signal)}",
            resources=[instance_id],
            repeated_after_reboot=True,
            **tagged(signal),
            previous_boot=_evidence(before),
            **_evidence(now),
        )
    if verdict.state is HardwareState.THIS_BOOT:
        earlier = (
            f" (the previous boot had hardware {describe(before)}: not the same Xid on the "
            "same GPU)"
            if before
            else ""
        )
        return FINDINGS.fail(
            Priority.P0,
            f"{where}: hardware {describe(now)} in this boot{earlier} — {advice(signal)}",
            resources=[instance_id],
            repeated_after_reboot=False,
            **tagged(signal),
            previous_boot_read=verdict.previous_read,
            **({"previous_boot": _evidence(before)} if before else {}),
            **_evidence(now),
        )
    return FINDINGS.info(
        f"{where}: the previous boot had hardware {describe(before)}; none "
        "since the reboot — watch for it to return",
        resources=[instance_id],
        **_evidence(before),
    )


_ASKS: dict[Recovery, str] = {
    "reboot": "a node reboot",
    "reset": "a GPU reset (reboot the node to get one)",
    "drain": "draining peer-to-peer traffic (stop the jobs using the GPU)",
}


def _word_recovery(where: str, instance_id: str, verdict: RecoveryAsk) -> Finding:
    events, need = verdict.events, verdict.need
    labels = sorted({e.recovery_action or "no label" for e in events})
    evidence = {**_evidence(events), "recovery_actions": labels}
    on = f"{where}: Xid 154 on {', '.join(gpus(events))}"
    if need in ("reboot", "reset"):
        return FINDINGS.fail(
            Priority.P0,
            f"{on}: the driver asks for {_ASKS[need]} ({', '.join(labels)}) — isolate the node "
            "and do it, then check the Xid that came before it",
            resources=[instance_id],
            recovery=need,
            **evidence,
        )
    if need in ("drain", "unknown"):
        what = (
            f"asks for {_ASKS['drain']}"
            if need == "drain"
            else "changed the GPU's recovery action to one this tool does not know"
        )
        return FINDINGS.warn(
            Priority.P1,
            f"{on}: the driver {what} ({', '.join(labels)}); check the Xid that came before it",
            resources=[instance_id],
            recovery=need,
            **evidence,
        )
    return FINDINGS.info(
        f"{on}: the driver set the recovery action back to None, nothing left to do for it",
        resources=[instance_id],
        recovery="none",
        **evidence,
    )


def processes(events: Iterable[XidEvent]) -> list[str]:
    """ "python (pid 4812)" per distinct pid the driver named, in order; a pid's name is the
    first one any of its lines gave."""
    names: dict[str, str | None] = {}
    for event in events:
        if event.pid is None and event.process is None:
            continue
        key = event.pid or f"name:{event.process}"
        if names.get(key) is None:
            names[key] = event.process
    # Names and pids come from the node's log: clipped like any quoted cluster text.
    return [
        f"{clip(name or '?', 40)} (pid {clip(key, 12)})"
        if not key.startswith("name:")
        else clip(name or "?", 40)
        for key, name in names.items()
    ]


def _application(where: str, instance_id: str, events: tuple[XidEvent, ...]) -> Finding:
    """Application Xids (NVIDIA's catalogue: restart the application, check its code): a
    fact about the job that ran, so WARN P2 naming the process, never node advice."""
    named = processes(events)
    who = f" from {', '.join(named[:3])}" if named else ""
    return FINDINGS.warn(
        Priority.P2,
        f"{where}: workload signal, not a node fault: application {describe(events)}{who} — "
        "check the job's code (an out-of-range address or illegal memory access: rerun it "
        "under compute-sanitizer or cuda-gdb) and restart the job; only the same Xid on one "
        "GPU across different jobs points at the GPU (DCGM diagnostics, § G.1.b)",
        resources=[instance_id],
        workload=True,
        **tagged(Signal.APPLICATION_XID),
        processes=named[:10],
        **_evidence(events),
    )


def _word_group(where: str, instance_id: str, verdict: XidGroup) -> Finding:
    events, resources = verdict.events, [instance_id]
    if verdict.kind is XidGroupKind.REMAP:
        return FINDINGS.at("G.1.a").warn(
            Priority.P1,
            f"{where}: {describe(events)} — {advice(Signal.GPU_ROW_REMAP_PENDING)}",
            resources=resources,
            **tagged(Signal.GPU_ROW_REMAP_PENDING),
            **_evidence(events),
        )
    if verdict.kind is XidGroupKind.APPLICATION:
        return _application(where, instance_id, events)
    if verdict.kind is XidGroupKind.NON_FATAL:
        # NVIDIA's catalogue (Xid 144-150 decode): non-fatal rows need no immediate action,
        # or the action of the Xid 154 logged with them, which has its own finding.
        return FINDINGS.info(
            f"{where}: {describe(events)}, reported non-fatal by the driver; no action of its "
            "own (an Xid 154 beside it names any recovery needed)",
            resources=resources,
            **_evidence(events),
        )
    if verdict.kind is XidGroupKind.UNKNOWN:
        return FINDINGS.warn(
            Priority.P2,
            f"{where}: {describe(events)} — look it up in NVIDIA's Xid catalogue for the "
            "installed driver branch",
            resources=resources,
            **_evidence(events),
        )
    if verdict.kind is XidGroupKind.FOLLOW_ON_ONLY:
        return FINDINGS.info(
            f"{where}: {describe(events)}, a consequence of an earlier error (a killed or "
            "cleaned-up job); no primary Xid in this boot's log",
            resources=resources,
            **_evidence(events),
        )
    return FINDINGS.passed(f"{where}: no Xid in this boot's kernel log", resources=resources)


def word_xid(verdict: XidVerdict, instance_id: str, instance_type: str = "") -> Finding:
    """The finding that states one verdict on a node's Xids."""
    where = f"{instance_id} ({instance_type})" if instance_type else instance_id
    if isinstance(verdict, HardwareXids):
        return _word_hardware(where, instance_id, verdict)
    if isinstance(verdict, RecoveryAsk):
        return _word_recovery(where, instance_id, verdict)
    return _word_group(where, instance_id, verdict)


def judge_xids(
    instance_id: str,
    current: tuple[XidEvent, ...],
    previous: tuple[XidEvent, ...] | None,
    instance_type: str = "",
) -> list[Finding]:
    """Findings for one node; `previous` is None when the previous boot could not be read."""
    return [
        word_xid(verdict, instance_id, instance_type) for verdict in xid_verdicts(current, previous)
    ]


def _previous_boot_kept(text: str) -> bool:
    """The journal showed the previous boot: it had one, and we were allowed to read it."""
    log = parse_kernel_log(text)
    return not (no_previous_boot(text) or log.previous_boot_unavailable or log.refused)


@check(FINDINGS, title="GPU Xid errors", scope="node")
def gpu_xid(data: ClusterData) -> Iterable[Finding]:
    """Hardware, application and follow-on Xids; a hardware Xid seen again after a reboot."""
    nodes = judged_nodes(data, lambda facts: facts.gpus)
    if not nodes:
        return [none_probed(CHECK_ID, SECTION, "NVIDIA GPUs")]
    findings: list[Finding] = []
    for node, _ in nodes:
        this_boot = read(node, "kernel_log")
        if this_boot.text is None:
            findings.append(could_not_read(CHECK_ID, SECTION, node, "the kernel log", this_boot))
            continue
        if refused := parse_kernel_log(this_boot.text).refused:
            # dmesg would not read the log: no Xid in it is unknown, not clean.
            findings.append(
                FINDINGS.info(
                    f"Could not read the kernel log on {label(node)}: {clip(refused, 200)}",
                    resources=[node.instance_id],
                    probe="kernel_log",
                    problem=clip(refused, 200),
                )
            )
            continue
        before = read(node, "kernel_log_previous_boot")
        previous: tuple[XidEvent, ...] | None = None
        if before.text is not None and _previous_boot_kept(before.text):
            previous = parse_xids(before.text)
        findings.extend(
            judge_xids(node.instance_id, parse_xids(this_boot.text), previous, node.instance_type)
        )
    return findings
