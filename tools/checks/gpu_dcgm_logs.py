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
from dataclasses import dataclass
from enum import StrEnum

from tools.checks._accel import each_gpu_node
from tools.findings import Finding, Findings, Priority
from tools.parsers.dcgm_logs import DcgmLogs, NvvsLine, NvvsLineKind, parse_dcgm_logs
from tools.probes.catalog import DCGM_LOG_DIR, DCGM_LOG_LINES
from tools.registry import check
from tools.remediation import Signal, advice, tagged
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


class DiagKind(StrEnum):
    """What the newest nvvs log says, or why it says nothing."""

    UNPARSED = "unparsed"  # the probe printed something unrecognised
    UNREADABLE = "unreadable"  # the log exists but could not be read
    NO_LOG = "no-log"  # no nvvs log kept: not a pass
    FAILED = "failed"  # a failed test or a failed remap
    REMAP_PENDING = "remap-pending"
    ERRORS_ONLY = "errors-only"  # error lines without a failed test
    CLEAN = "clean"


@dataclass(frozen=True, slots=True)
class DiagVerdict:
    kind: DiagKind
    lines: tuple[NvvsLine, ...] = ()  # the log lines that show it


def _unread(logs: DcgmLogs) -> DiagKind | None:
    if logs.state == "unparsed":
        return DiagKind.UNPARSED
    if logs.state == "denied" or (logs.newest_log and logs.problem):
        return DiagKind.UNREADABLE
    if logs.newest_log is None:
        return DiagKind.NO_LOG
    return None


def diag_verdicts(logs: DcgmLogs) -> list[DiagVerdict]:
    """The rule of the module docstring: why the log could not be judged, else each of
    failed, pending remap and errors without a failure (in that order), else clean."""
    unread = _unread(logs)
    if unread is not None:
        return [DiagVerdict(unread)]
    failed = logs.of_kind(K.FAILED, K.REMAP_FAILURE)
    errors = () if failed else logs.of_kind(K.ERROR)
    found = [
        DiagVerdict(kind, lines)
        for kind, lines in (
            (DiagKind.FAILED, failed),
            (DiagKind.REMAP_PENDING, logs.of_kind(K.REMAP_PENDING)),
            (DiagKind.ERRORS_ONLY, errors),
        )
        if lines
    ]
    return found or [DiagVerdict(DiagKind.CLEAN)]


def _word_unread(kind: DiagKind, where: str, instance_id: str, logs: DcgmLogs) -> Finding:
    if kind is DiagKind.UNPARSED:
        return FINDINGS.info(
            f"{where}: the DCGM log probe printed something unrecognised; the last "
            "diagnostic's result is unknown",
            resources=[instance_id],
            output=clip(logs.problem or ""),
        )
    if kind is DiagKind.UNREADABLE:
        return FINDINGS.info(
            f"{where}: the DCGM diagnostic log could not be read "
            f"({quoted(logs.problem or 'permission denied', 160)}); its result is unknown — "
            f"read it with sudo (§ G.1.b)",
            resources=[instance_id],
            problem=clip(logs.problem or ""),
        )
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


def _word_found(verdict: DiagVerdict, where: str, instance_id: str, logs: DcgmLogs) -> Finding:
    lines, name = verdict.lines, _log_name(logs)
    if verdict.kind is DiagKind.FAILED:
        return FINDINGS.fail(
            Priority.P0,
            f"{where}: the last DCGM diagnostic in {name} failed: {_shown(lines)} — "
            f"{advice(Signal.DCGM_DIAG_FAILURE)} (§ F.4)",
            resources=[instance_id],
            **_evidence(logs, lines),
            **tagged(Signal.DCGM_DIAG_FAILURE),
        )
    if verdict.kind is DiagKind.REMAP_PENDING:
        return FINDINGS.fail(
            Priority.P1,
            f"{where}: the last DCGM diagnostic in {name} saw a row remap pending: "
            f"{_shown(lines)} — reboot to apply it, then check row remapping (§ G.1.a)",
            resources=[instance_id],
            **_evidence(logs, lines),
        )
    if verdict.kind is DiagKind.ERRORS_ONLY:
        return FINDINGS.warn(
            Priority.P1,
            f"{where}: the last DCGM diagnostic in {name} logged {len(lines)} error "
            f"line(s) without a failed test: {_shown(lines)} — the run may not have "
            "tested everything; read the log and run it again",
            resources=[instance_id],
            **_evidence(logs, lines),
        )
    return FINDINGS.passed(
        f"{where}: no failure, pending remap or error in the last {DCGM_LOG_LINES} lines of {name}",
        resources=[instance_id],
        log=clip(logs.newest_log or "", 120),
    )


_UNREAD = (DiagKind.UNPARSED, DiagKind.UNREADABLE, DiagKind.NO_LOG)


def word_diag(
    verdict: DiagVerdict, instance_id: str, instance_type: str, logs: DcgmLogs
) -> Finding:
    """The finding that states one verdict on the node's newest nvvs log."""
    where = f"{instance_id} ({instance_type})" if instance_type else instance_id
    if verdict.kind in _UNREAD:
        return _word_unread(verdict.kind, where, instance_id, logs)
    return _word_found(verdict, where, instance_id, logs)


def judge_dcgm_logs(instance_id: str, instance_type: str, logs: DcgmLogs) -> list[Finding]:
    """FAIL P0 for failed tests or a failed remap, FAIL P1 for a pending remap, WARN P1 for
    errors alone, PASS for a clean tail, INFO when there is no log to read."""
    return [word_diag(v, instance_id, instance_type, logs) for v in diag_verdicts(logs)]


@check(FINDINGS, title="DCGM diagnostic logs", scope="node")
def gpu_dcgm_logs(data: ClusterData) -> Iterable[Finding]:
    """The newest nvvs log's failed tests, pending or failed remaps and errors."""
    return each_gpu_node(
        data,
        FINDINGS,
        probe="dcgm_diag_logs",
        what="the DCGM diagnostic logs",
        parse=lambda text: logs if (logs := parse_dcgm_logs(text)).state != "unparsed" else None,
        judge=lambda node, _, logs: judge_dcgm_logs(node.instance_id, node.instance_type, logs),
    )
