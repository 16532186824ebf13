"""§ G.1.b: DCGM's background health watches (`dcgmi health -c -j`)."""

from __future__ import annotations

from collections.abc import Iterable

from tools.checks._accel import each_gpu_node
from tools.findings import Finding, Findings, Priority
from tools.parsers.dcgm import DcgmHealth, parse_dcgm_health
from tools.registry import check
from tools.text import clip, quoted
from tools.triage.data import ClusterData

CHECK_ID = "gpu-dcgm"
SECTION = "G.1.b"
FINDINGS = Findings(CHECK_ID, SECTION)
SHOWN_INCIDENTS = 2  # incidents quoted in a message; the evidence keeps more
KEPT_INCIDENTS = 16


def _incidents(health: DcgmHealth, level: str) -> str:
    # Labels and messages are the node's text (dcgmi's JSON): clipped, redacted, quoted.
    listed = [
        clip(i.label, 80) + (f" {quoted(i.message, 160)}" if i.message else "")
        for i in health.incidents
        if i.health == level
    ]
    shown = "; ".join(listed[:SHOWN_INCIDENTS])
    more = len(listed) - SHOWN_INCIDENTS
    return shown + (f" and {more} more" if more > 0 else "")


def judge_dcgm(instance_id: str, instance_type: str, health: DcgmHealth) -> Finding:
    """FAIL P0 on Failure, WARN P1 on Warning, PASS on Healthy; INFO when DCGM cannot say."""
    where = f"{instance_id} ({instance_type})" if instance_type else instance_id
    evidence: dict[str, object] = {
        "state": health.state,
        "overall": clip(health.overall, 40) if health.overall else None,
        "incidents": [
            {
                "entity": clip(f"{i.entity_group} {i.entity_id}", 60),
                "system": clip(i.system, 60),
                "health": clip(i.health, 40),
                "message": clip(i.message),
            }
            for i in health.incidents[:KEPT_INCIDENTS]
        ],
        "incident_count": len(health.incidents),
    }
    if health.state == "not-installed":
        return FINDINGS.info(
            f"{where}: dcgmi is not installed; DCGM health not read",
            resources=[instance_id],
            **evidence,
        )
    if health.state == "no-watches":
        return FINDINGS.info(
            f"{where}: no DCGM health watches are set, so DCGM has nothing to report (an "
            "empty result is not a clean bill)",
            resources=[instance_id],
            **evidence,
        )
    if health.state != "ok":
        return FINDINGS.info(
            f"{where}: DCGM health not read: "
            f"{quoted(health.error, 160) if health.error else 'unrecognised output'}",
            resources=[instance_id],
            **evidence,
        )
    if health.overall == "Failure":
        detail = _incidents(health, "Failure") or _incidents(health, "Warning")
        return FINDINGS.fail(
            Priority.P0,
            f"{where}: DCGM health Failure{': ' + detail if detail else ''} — reboot, run "
            "dcgmi diag again on the idle node, replace it if it fails again",
            resources=[instance_id],
            **evidence,
        )
    if health.overall == "Warning":
        detail = _incidents(health, "Warning")
        return FINDINGS.warn(
            Priority.P1,
            f"{where}: DCGM health Warning{': ' + detail if detail else ''} — watch the node; "
            "a warning alone is not a reason to replace it",
            resources=[instance_id],
            **evidence,
        )
    if health.overall == "Healthy":
        return FINDINGS.passed(f"{where}: DCGM health Healthy", resources=[instance_id], **evidence)
    return FINDINGS.info(
        f"{where}: DCGM reported overall health "
        f"{quoted(health.overall, 40) if health.overall else 'missing'}",
        resources=[instance_id],
        **evidence,
    )


@check(FINDINGS, title="DCGM health", scope="node")
def gpu_dcgm(data: ClusterData) -> Iterable[Finding]:
    """DCGM health Failure (P0) or Warning (P1) with its incidents."""
    return each_gpu_node(
        data,
        CHECK_ID,
        SECTION,
        probe="dcgm_health",
        what="DCGM health",
        parse=parse_dcgm_health,
        judge=lambda node, _, health: judge_dcgm(node.instance_id, node.instance_type, health),
    )
