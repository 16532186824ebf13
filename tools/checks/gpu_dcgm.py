"""§ G.1.b: DCGM's background health watches (`dcgmi health -c -j`)."""

from __future__ import annotations

from collections.abc import Iterable

from tools.checks._accel import could_not_read, judged_nodes, none_probed, read
from tools.findings import Finding, Priority, fail, info, passed, warn
from tools.parsers.dcgm import DcgmHealth, parse_dcgm_health
from tools.registry import check
from tools.triage.data import ClusterData

CHECK_ID = "gpu-dcgm"
SECTION = "G.1.b"


def _incidents(health: DcgmHealth, level: str) -> str:
    listed = [
        f"{i.label}" + (f" ({i.message})" if i.message else "")
        for i in health.incidents
        if i.health == level
    ]
    return "; ".join(listed)


def judge_dcgm(instance_id: str, instance_type: str, health: DcgmHealth) -> Finding:
    """FAIL P0 on Failure, WARN P1 on Warning, PASS on Healthy; INFO when DCGM cannot say."""
    where = f"{instance_id} ({instance_type})" if instance_type else instance_id
    evidence: dict[str, object] = {
        "state": health.state,
        "overall": health.overall,
        "incidents": [
            {
                "entity": f"{i.entity_group} {i.entity_id}",
                "system": i.system,
                "health": i.health,
                "message": i.message,
            }
            for i in health.incidents
        ],
    }
    if health.state == "not-installed":
        return info(
            CHECK_ID,
            SECTION,
            f"{where}: dcgmi is not installed; DCGM health not read",
            resources=[instance_id],
            **evidence,
        )
    if health.state == "no-watches":
        return info(
            CHECK_ID,
            SECTION,
            f"{where}: no DCGM health watches are set, so DCGM has nothing to report (an "
            "empty result is not a clean bill)",
            resources=[instance_id],
            **evidence,
        )
    if health.state != "ok":
        return info(
            CHECK_ID,
            SECTION,
            f"{where}: DCGM health not read: {health.error or 'unrecognised output'}",
            resources=[instance_id],
            **evidence,
        )
    if health.overall == "Failure":
        detail = _incidents(health, "Failure") or _incidents(health, "Warning")
        return fail(
            CHECK_ID,
            Priority.P0,
            SECTION,
            f"{where}: DCGM health Failure{': ' + detail if detail else ''} — reboot, run "
            "dcgmi diag again on the idle node, replace it if it fails again",
            resources=[instance_id],
            **evidence,
        )
    if health.overall == "Warning":
        detail = _incidents(health, "Warning")
        return warn(
            CHECK_ID,
            Priority.P1,
            SECTION,
            f"{where}: DCGM health Warning{': ' + detail if detail else ''} — watch the node; "
            "a warning alone is not a reason to replace it",
            resources=[instance_id],
            **evidence,
        )
    if health.overall == "Healthy":
        return passed(
            CHECK_ID, SECTION, f"{where}: DCGM health Healthy", resources=[instance_id], **evidence
        )
    return info(
        CHECK_ID,
        SECTION,
        f"{where}: DCGM reported overall health {health.overall or 'missing'}",
        resources=[instance_id],
        **evidence,
    )


@check(CHECK_ID, section=SECTION, title="DCGM health")
def gpu_dcgm(data: ClusterData) -> Iterable[Finding]:
    """DCGM health Failure (P0) or Warning (P1) with its incidents."""
    nodes = judged_nodes(data, lambda facts: facts.gpus)
    if not nodes:
        return [none_probed(CHECK_ID, SECTION, "NVIDIA GPUs")]
    findings: list[Finding] = []
    for node, _ in nodes:
        probe = read(node, "dcgm_health")
        if probe.text is None or probe.truncated:
            findings.append(could_not_read(CHECK_ID, SECTION, node, "DCGM health", probe))
            continue
        findings.append(
            judge_dcgm(node.instance_id, node.instance_type, parse_dcgm_health(probe.text))
        )
    return findings
