"""§ G.1.b: the verdict of the last DCGM diagnostic (`dcgmi diag`) run, from its nvvs log.

`dcgmi diag` writes a debug log, nvvs.log, into DCGM's home directory, /var/log/nvidia-dcgm
on a packaged install; the EKS deep health check runs level 4 of it. A failed test in the
newest log is an active diagnostic failing on this node's hardware: FAIL P0, handled like a
DCGM health Failure (reboot, run the same level again on the idle node, replace it if it
fails again). A row remap the diagnostic saw pending is FAIL P1 (a reset applies it), a
failed one FAIL P0. Error lines without a failed verdict are WARN P1: the run may not have
tested what it meant to. No nvvs log means no diagnostic has run here that DCGM kept: INFO,
never a pass.
"""

from __future__ import annotations

from collections.abc import Iterable

from tools.checks._accel import each_gpu_node
from tools.findings import Finding, Findings, Priority
from tools.parsers.dcgm_logs import DcgmLogs, NvvsLine, NvvsLineKind, parse_dcgm_logs
from tools.probes.catalog import DCGM_LOG_DIR, DCGM_LOG_LINES
from tools.registry import check
from tools.text import clip, quoted
from tools.triage.data import ClusterData

CHECK_ID = "gpu-dcgm-logs"
SECTION = "G.1.b"
FINDINGS = Findings(CHECK_ID, SECTION)
QUOTED_LINES = 3

K = NvvsLineKind


def _evidence(logs: DcgmLogs, lines: tuple[NvvsLine, ...]) -> dict[str, object]:
    return {
        "log": clip(logs.newest_log or "", 120) or None,
        "count": len(lines),
        "lines": [clip(line.text) for line in lines[:QUOTED_LINES]],
        "first_time": lines[0].timestamp if lines else None,
        "last_time": lines[-1].timestamp if lines else None,
    }


def _shown(lines: tuple[NvvsLine, ...]) -> str:
    when = lines[-1].timestamp
    return f"{quoted(lines[-1].text, 160)}{f' at {when}' if when else ''}"


def _log_name(logs: DcgmLogs) -> str:
    return clip(logs.newest_log or "the newest nvvs log", 120)


def _not_read(where: str, instance_id: str, logs: DcgmLogs) -> Finding | None:
    """The INFO for a log that could not be judged, or None when it can be."""
    if logs.state == "unparsed":
        return FINDINGS.info(
            f"{where}: the DCGM log probe printed something unrecognised; the last "
            "diagnostic's result is unknown",
            resources=[instance_id],
            output=clip(logs.problem or ""),
        )
    if logs.state == "denied" or (logs.newest_log and logs.problem):
        return FINDINGS.info(
            f"{where}: the DCGM diagnostic log could not be read "
            f"({quoted(logs.problem or 'permission denied', 160)}); its result is unknown — "
            f"read it with sudo (§ G.1.b)",
            resources=[instance_id],
            problem=clip(logs.problem or ""),
        )
    if logs.newest_log is None:
        where_looked = (
            f"{DCGM_LOG_DIR} does not exist"
            if logs.state == "missing"
            else f"{DCGM_LOG_DIR} has no nvvs*.log"
        )
        return FINDINGS.info(
            f"{where}: {where_looked}, so no DCGM diagnostic result is kept on this node "
            "(dcgmi diag has not run, or logged elsewhere) — not a pass; run dcgmi diag on "
            "the idle node to get one (§ G.1.b)",
            resources=[instance_id],
            listing=[clip(name, 80) for name in logs.listing[:10]],
        )
    return None


def judge_dcgm_logs(instance_id: str, instance_type: str, logs: DcgmLogs) -> list[Finding]:
    """FAIL P0 for failed tests or a failed remap, FAIL P1 for a pending remap, WARN P1 for
    errors alone, PASS for a clean tail, INFO when there is no log to read."""
    where = f"{instance_id} ({instance_type})" if instance_type else instance_id
    unread = _not_read(where, instance_id, logs)
    if unread is not None:
        return [unread]
    name = _log_name(logs)
    failed = logs.of_kind(K.FAILED, K.REMAP_FAILURE)
    pending = logs.of_kind(K.REMAP_PENDING)
    errors = logs.of_kind(K.ERROR)
    findings: list[Finding] = []
    if failed:
        findings.append(
            FINDINGS.fail(
                Priority.P0,
                f"{where}: the last DCGM diagnostic in {name} failed: {_shown(failed)} — "
                "reboot, run the same dcgmi diag level again on the idle node, replace it if "
                "it fails again (§ F.4)",
                resources=[instance_id],
                **_evidence(logs, failed),
            )
        )
    if pending:
        findings.append(
            FINDINGS.fail(
                Priority.P1,
                f"{where}: the last DCGM diagnostic in {name} saw a row remap pending: "
                f"{_shown(pending)} — reboot to apply it, then check row remapping (§ G.1.a)",
                resources=[instance_id],
                **_evidence(logs, pending),
            )
        )
    if errors and not failed:
        findings.append(
            FINDINGS.warn(
                Priority.P1,
                f"{where}: the last DCGM diagnostic in {name} logged {len(errors)} error "
                f"line(s) without a failed test: {_shown(errors)} — the run may not have "
                "tested everything; read the log and run it again",
                resources=[instance_id],
                **_evidence(logs, errors),
            )
        )
    if not findings:
        findings.append(
            FINDINGS.passed(
                f"{where}: no failure, pending remap or error in the last "
                f"{DCGM_LOG_LINES} lines of {name}",
                resources=[instance_id],
                log=clip(logs.newest_log or "", 120),
            )
        )
    return findings


@check(FINDINGS, title="DCGM diagnostic logs", scope="node")
def gpu_dcgm_logs(data: ClusterData) -> Iterable[Finding]:
    """The newest nvvs log's failed tests, pending or failed remaps and errors."""
    return each_gpu_node(
        data,
        CHECK_ID,
        SECTION,
        probe="dcgm_diag_logs",
        what="the DCGM diagnostic logs",
        parse=lambda text: logs if (logs := parse_dcgm_logs(text)).state != "unparsed" else None,
        judge=lambda node, _, logs: judge_dcgm_logs(node.instance_id, node.instance_type, logs),
    )
