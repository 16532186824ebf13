"""§ G.2: NVRM Xid events in this boot's kernel log and the previous boot's journal.

Hardware Xids mean the node needs attention (reboot, then replace if they come back);
the same class of fault in both boots means the reboot did not help, so the node goes to
replacement (§ F.4: investigate → reboot → replace). Application Xids point at the job.
"""

from __future__ import annotations

from collections.abc import Iterable

from tools.checks._accel import could_not_read, judged_nodes, none_probed, read
from tools.checks._text import clip
from tools.findings import Finding, Priority, fail, info, passed, warn
from tools.parsers.xid import XidEvent, gpus, no_previous_boot, numbers, of_kind, parse_xids
from tools.registry import check
from tools.triage.data import ClusterData

CHECK_ID = "gpu-xid"
SECTION = "G.2"
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


def judge_xids(
    instance_id: str,
    current: tuple[XidEvent, ...],
    previous: tuple[XidEvent, ...] | None,
    instance_type: str = "",
) -> list[Finding]:
    """Findings for one node; `previous` is None when the previous boot could not be read."""
    where = f"{instance_id} ({instance_type})" if instance_type else instance_id
    findings: list[Finding] = []
    hardware_now = of_kind(current, "hardware")
    hardware_before = of_kind(previous or (), "hardware")
    if hardware_now and hardware_before:
        findings.append(
            fail(
                CHECK_ID,
                Priority.P0,
                SECTION,
                f"{where}: hardware {describe(hardware_now)} repeated after a reboot (previous "
                f"boot: {describe(hardware_before)}) — replace the node",
                resources=[instance_id],
                repeated_after_reboot=True,
                previous_boot=_evidence(hardware_before),
                **_evidence(hardware_now),
            )
        )
    elif hardware_now:
        findings.append(
            fail(
                CHECK_ID,
                Priority.P0,
                SECTION,
                f"{where}: hardware {describe(hardware_now)} in this boot — isolate the node, "
                "reboot it and check again; replace it if the Xid returns",
                resources=[instance_id],
                repeated_after_reboot=False,
                previous_boot_read=previous is not None,
                **_evidence(hardware_now),
            )
        )
    elif hardware_before:
        findings.append(
            info(
                CHECK_ID,
                SECTION,
                f"{where}: the previous boot had hardware {describe(hardware_before)}; none "
                "since the reboot — watch for it to return",
                resources=[instance_id],
                **_evidence(hardware_before),
            )
        )
    application = of_kind(current, "application")
    if application:
        findings.append(
            warn(
                CHECK_ID,
                Priority.P2,
                SECTION,
                f"{where}: application {describe(application)} — check the workload (bad "
                "kernel, illegal memory access) before the node",
                resources=[instance_id],
                **_evidence(application),
            )
        )
    unknown = of_kind(current, "unknown")
    if unknown:
        findings.append(
            warn(
                CHECK_ID,
                Priority.P2,
                SECTION,
                f"{where}: {describe(unknown)} — look it up in NVIDIA's Xid catalogue for the "
                "installed driver branch",
                resources=[instance_id],
                **_evidence(unknown),
            )
        )
    follow_on = of_kind(current, "follow-on")
    if follow_on and not (hardware_now or application or unknown):
        findings.append(
            info(
                CHECK_ID,
                SECTION,
                f"{where}: {describe(follow_on)}, a consequence of an earlier error (a killed or "
                "cleaned-up job); no primary Xid in this boot's log",
                resources=[instance_id],
                **_evidence(follow_on),
            )
        )
    if not current:
        findings.append(
            passed(
                CHECK_ID,
                SECTION,
                f"{where}: no Xid in this boot's kernel log",
                resources=[instance_id],
            )
        )
    return findings


@check(CHECK_ID, section=SECTION, title="GPU Xid errors")
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
        before = read(node, "kernel_log_previous_boot")
        previous: tuple[XidEvent, ...] | None = None
        if before.text is not None and not no_previous_boot(before.text):
            previous = parse_xids(before.text)
        findings.extend(
            judge_xids(node.instance_id, parse_xids(this_boot.text), previous, node.instance_type)
        )
    return findings
