"""§ G.1.b: DCGM's background health watches (`dcgmi health -c -j`)."""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum

from tools.checks._accel import each_gpu_node
from tools.findings import Finding, Findings, Priority
from tools.parsers.dcgm import DcgmHealth, parse_dcgm_health
from tools.registry import check
from tools.remediation import Signal, advice, tagged
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


class DcgmVerdict(StrEnum):
    """What one node's DCGM health report states."""

    NOT_INSTALLED = "not-installed"
    NO_WATCHES = "no-watches"
    UNREAD = "unread"  # dcgmi answered with an error or text not understood
    FAILURE = "failure"
    WARNING = "warning"
    HEALTHY = "healthy"
    UNRECOGNISED_OVERALL = "unrecognised-overall"  # read, but no known overall value


_OVERALL_VERDICTS = {
    "Failure": DcgmVerdict.FAILURE,
    "Warning": DcgmVerdict.WARNING,
    "Healthy": DcgmVerdict.HEALTHY,
}


def dcgm_verdict(health: DcgmHealth) -> DcgmVerdict:
    """The rule: what the parsed report says, from whether dcgmi answered to its overall
    health."""
    if health.state == "not-installed":
        return DcgmVerdict.NOT_INSTALLED
    if health.state == "no-watches":
        return DcgmVerdict.NO_WATCHES
    if health.state != "ok":
        return DcgmVerdict.UNREAD
    return _OVERALL_VERDICTS.get(health.overall or "", DcgmVerdict.UNRECOGNISED_OVERALL)


def _evidence(health: DcgmHealth) -> dict[str, object]:
    return {
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


def _detail(health: DcgmHealth, verdict: DcgmVerdict) -> str:
    # A Failure overall may come with only Warning incidents listed: quote those then.
    if verdict is DcgmVerdict.FAILURE:
        detail = _incidents(health, "Failure") or _incidents(health, "Warning")
    else:
        detail = _incidents(health, "Warning")
    return f": {detail}" if detail else ""


def word_dcgm(
    verdict: DcgmVerdict, instance_id: str, instance_type: str, health: DcgmHealth
) -> Finding:
    """The finding that states `verdict` for the node, with the report as evidence."""
    where = f"{instance_id} ({instance_type})" if instance_type else instance_id
    evidence = _evidence(health)
    resources = [instance_id]
    if verdict is DcgmVerdict.FAILURE:
        return FINDINGS.fail(
            Priority.P0,
            f"{where}: DCGM health Failure{_detail(health, verdict)} — "
            f"{advice(Signal.DCGM_DIAG_FAILURE)}",
            resources=resources,
            **evidence,
            **tagged(Signal.DCGM_DIAG_FAILURE),
        )
    if verdict is DcgmVerdict.WARNING:
        return FINDINGS.warn(
            Priority.P1,
            f"{where}: DCGM health Warning{_detail(health, verdict)} — watch the node; "
            "a warning alone is not a reason to replace it",
            resources=resources,
            **evidence,
        )
    if verdict is DcgmVerdict.HEALTHY:
        return FINDINGS.passed(f"{where}: DCGM health Healthy", resources=resources, **evidence)
    return FINDINGS.info(
        f"{where}: {_unread_reason(verdict, health)}", resources=resources, **evidence
    )


def _unread_reason(verdict: DcgmVerdict, health: DcgmHealth) -> str:
    if verdict is DcgmVerdict.NOT_INSTALLED:
        return "dcgmi is not installed; DCGM health not read"
    if verdict is DcgmVerdict.NO_WATCHES:
        return (
            "no DCGM health watches are set, so DCGM has nothing to report (an "
            "empty result is not a clean bill)"
        )
    if verdict is DcgmVerdict.UNREAD:
        return (
            "DCGM health not read: "
            f"{quoted(health.error, 160) if health.error else 'unrecognised output'}"
        )
    return (
        "DCGM reported overall health "
        f"{quoted(health.overall, 40) if health.overall else 'missing'}"
    )


def judge_dcgm(instance_id: str, instance_type: str, health: DcgmHealth) -> Finding:
    """FAIL P0 on Failure, WARN P1 on Warning, PASS on Healthy; INFO when DCGM cannot say."""
    return word_dcgm(dcgm_verdict(health), instance_id, instance_type, health)


@check(FINDINGS, title="DCGM health", scope="node")
def gpu_dcgm(data: ClusterData) -> Iterable[Finding]:
    """DCGM health Failure (P0) or Warning (P1) with its incidents."""
    return each_gpu_node(
        data,
        FINDINGS,
        probe="dcgm_health",
        what="DCGM health",
        parse=parse_dcgm_health,
        judge=lambda node, _, health: judge_dcgm(node.instance_id, node.instance_type, health),
    )
