"""§ G.1.a: row remapping per GPU: a remap waiting for a reset, a failed remap, and banks
running out of spare rows (`nvidia-smi -q -d ROW_REMAPPER`)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from tools.checks._accel import each_gpu_node
from tools.findings import Finding, Findings, Priority
from tools.parsers.nvidia_smi import RemapGpu, RemapReport, parse_row_remap
from tools.registry import check
from tools.remediation import Signal, advice, tagged
from tools.triage.data import ClusterData

CHECK_ID = "gpu-row-remap"
SECTION = "G.1.a"
FINDINGS = Findings(CHECK_ID, SECTION)


def _state(gpu: RemapGpu) -> dict[str, object]:
    return {
        "correctable": gpu.correctable,
        "uncorrectable": gpu.uncorrectable,
        "pending": gpu.pending,
        "failure": gpu.failure,
        "histogram": gpu.histogram.as_dict(),
    }


class RemapKind(StrEnum):
    """What the row remapper states about some GPUs of a node."""

    FAILED = "failed"  # a bank ran out of spare rows
    PENDING = "pending"  # a remap waits for a GPU reset
    EXHAUSTED = "exhausted"  # most banks have few or no spare rows left
    # pending or failure answered N/A (MIG mode on, or a GPU without row remapping): unknown
    NOT_JUDGED = "not-judged"
    CLEAN = "clean"


@dataclass(frozen=True, slots=True)
class RemapVerdict:
    kind: RemapKind
    gpus: tuple[RemapGpu, ...]  # the GPUs it is about; every GPU for CLEAN


def remap_verdicts(report: RemapReport) -> list[RemapVerdict]:
    """The rule: each problem found (failed, pending, exhausted, in that order); the GPUs
    whose pending or failure flag answered N/A, which are not judged; else clean. A node
    with a GPU that could not be judged is never called clean."""
    gpus = report.gpus
    problems = [
        RemapVerdict(kind, found)
        for kind, found in (
            (RemapKind.FAILED, tuple(gpu for gpu in gpus if gpu.failure)),
            (RemapKind.PENDING, tuple(gpu for gpu in gpus if gpu.pending)),
            (RemapKind.EXHAUSTED, tuple(gpu for gpu in gpus if gpu.histogram.mostly_exhausted)),
        )
        if found
    ]
    unknown = tuple(gpu for gpu in gpus if not (gpu.judged or gpu.failure or gpu.pending))
    if unknown:
        return [*problems, RemapVerdict(RemapKind.NOT_JUDGED, unknown)]
    return problems or [RemapVerdict(RemapKind.CLEAN, gpus)]


def _problem_message(verdict: RemapVerdict) -> str:
    bus_ids = ", ".join(gpu.bus_id for gpu in verdict.gpus)
    if verdict.kind is RemapKind.FAILED:
        return (
            f"row remapping failure on GPU {bus_ids} (a memory bank ran out of spare rows) "
            f"— {advice(Signal.GPU_ROW_REMAP_FAILURE)}"
        )
    if verdict.kind is RemapKind.PENDING:
        return f"row remap pending on GPU {bus_ids} — {advice(Signal.GPU_ROW_REMAP_PENDING)}"
    listed = "; ".join(
        f"{gpu.bus_id}: {gpu.histogram.low_or_none} of {gpu.histogram.total} banks low or none"
        for gpu in verdict.gpus
    )
    return f"spare rows almost used up ({listed}) — {advice(Signal.GPU_SPARE_ROWS_LOW)}"


# The remediation row of each problem verdict (tools/remediation/).
REMAP_SIGNALS: dict[RemapKind, Signal] = {
    RemapKind.FAILED: Signal.GPU_ROW_REMAP_FAILURE,
    RemapKind.PENDING: Signal.GPU_ROW_REMAP_PENDING,
    RemapKind.EXHAUSTED: Signal.GPU_SPARE_ROWS_LOW,
}


def word_remap(
    verdict: RemapVerdict, instance_id: str, instance_type: str, report: RemapReport
) -> Finding:
    """The finding that states one verdict, with every GPU's remapper state as evidence."""
    where = f"{instance_id} ({instance_type})" if instance_type else instance_id
    states = {gpu.bus_id: _state(gpu) for gpu in report.gpus}
    if verdict.kind is RemapKind.NOT_JUDGED:
        unknown = [gpu.bus_id for gpu in verdict.gpus]
        read = [g for g in report.gpus if g.judged and not (g.failure or g.pending)]
        others = f"; the {len(read)} other GPUs read show none pending or failed" if read else ""
        return FINDINGS.info(
            f"{where}: row remapping not judged on {len(unknown)} of {len(report.gpus)} GPUs "
            f"({', '.join(unknown[:8])}{', ...' if len(unknown) > 8 else ''}): nvidia-smi "
            "answers N/A for a pending or failed remap with MIG mode on, and on GPUs without "
            f"row remapping{others}",
            resources=[instance_id],
            gpus=unknown,
            remapper=states,
        )
    if verdict.kind is RemapKind.CLEAN:
        return FINDINGS.passed(
            f"{where}: no pending or failed row remap on {len(verdict.gpus)} GPUs",
            resources=[instance_id],
            remapper=states,
        )
    gpus = [gpu.bus_id for gpu in verdict.gpus]
    message = f"{where}: {_problem_message(verdict)}"
    row = tagged(REMAP_SIGNALS[verdict.kind])
    if verdict.kind is RemapKind.EXHAUSTED:
        return FINDINGS.warn(
            Priority.P1, message, resources=[instance_id], gpus=gpus, remapper=states, **row
        )
    priority = Priority.P0 if verdict.kind is RemapKind.FAILED else Priority.P1
    return FINDINGS.fail(
        priority, message, resources=[instance_id], gpus=gpus, remapper=states, **row
    )


def judge_row_remap(instance_id: str, instance_type: str, report: RemapReport) -> list[Finding]:
    """FAIL P0 on a remapping failure, FAIL P1 on a pending remap, WARN P1 when most banks
    have few or no spare rows left, INFO naming the GPUs that answered N/A (not judged),
    PASS only when every GPU was read and is clean."""
    return [
        word_remap(verdict, instance_id, instance_type, report)
        for verdict in remap_verdicts(report)
    ]


@check(FINDINGS, title="GPU row remapping", scope="node")
def gpu_row_remap(data: ClusterData) -> Iterable[Finding]:
    """Pending remaps (reboot, re-check), failed remaps (replace), spare rows running out."""
    return each_gpu_node(
        data,
        FINDINGS,
        probe="gpu_row_remap",
        what="the row remapper",
        parse=lambda text: _recognised(parse_row_remap(text)),
        judge=lambda node, _, report: judge_row_remap(node.instance_id, node.instance_type, report),
    )


def _recognised(report: RemapReport) -> RemapReport | None:
    return report if report.recognised else None
