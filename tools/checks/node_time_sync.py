"""§ I.4: clock synchronisation (timedatectl NTPSynchronized and chrony's tracking).

Not synchronised by either source is a FAIL P1 (munge, TLS and signed AWS requests break
on a drifting clock). An offset above one second while synchronised is a WARN P1: the
clock is being steered but is not there yet, or chrony slews a large step slowly.
"""

from __future__ import annotations

from collections.abc import Iterable

from tools.checks._node_reads import healthy_summary, read_probe, unreadable
from tools.findings import Finding, Findings, Priority
from tools.parsers.time_sync import TimeSync, parse_time_sync
from tools.registry import check
from tools.text import clip
from tools.triage.data import ClusterData

CHECK_ID = "node-time-sync"
FINDINGS = Findings(CHECK_ID, "I.4")
MAX_OFFSET_S = 1.0


def judge_time_sync(node: str, sync: TimeSync) -> list[Finding]:
    # chronyc's words are the node's text: clipped and redacted.
    evidence = {
        "ntp_synchronized": sync.ntp_synchronized,
        "leap_status": clip(sync.leap_status, 60) if sync.leap_status else None,
        "offset_s": sync.offset_s,
        "reference": clip(sync.reference, 80) if sync.reference else None,
        "notes": [clip(note, 120) for note in sync.notes],
    }
    unsynced = []
    if sync.ntp_synchronized is False:
        unsynced.append("timedatectl NTPSynchronized=no")
    if sync.chrony_synchronised is False:
        unsynced.append(f"chrony Leap status: {clip(sync.leap_status, 60)}")
    if unsynced:
        return [
            FINDINGS.fail(
                Priority.P1,
                f"Clock of {node} is not synchronised ({'; '.join(unsynced)}): munge, TLS "
                "and signed AWS requests fail on a drifting clock",
                resources=[node],
                **evidence,
            )
        ]
    if sync.offset_s is not None and abs(sync.offset_s) > MAX_OFFSET_S:
        direction = "ahead of" if sync.offset_s > 0 else "behind"
        return [
            FINDINGS.warn(
                Priority.P1,
                f"Clock of {node} is {abs(sync.offset_s):.3f} s {direction} NTP time (more "
                f"than {MAX_OFFSET_S:g} s)",
                resources=[node],
                **evidence,
            )
        ]
    return []


@check(FINDINGS, title="Clock synchronisation", scope="node")
def node_time_sync(data: ClusterData) -> Iterable[Finding]:
    """NTPSynchronized, chrony's leap status and the system clock offset of each node."""
    findings: list[Finding] = []
    healthy: list[str] = []
    for node in data.reachable_nodes():
        read = read_probe(node, "time_sync")
        sync = parse_time_sync(read.text)
        if sync.empty:
            # chronyc's exit status is the probe's: a reason from the output says more.
            problem = "; ".join(sync.notes) or read.problem
            findings.append(unreadable(FINDINGS, "the clock state", node, problem, "time_sync"))
            continue
        problems = judge_time_sync(node.instance_id, sync)
        findings += problems
        if not problems:
            healthy.append(node.instance_id)
    return findings + healthy_summary(CHECK_ID, "I.4", "Clock synchronised", healthy)
