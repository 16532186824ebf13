"""§ G.1.a: row remapping per GPU: a remap waiting for a reset, a failed remap, and banks
running out of spare rows (`nvidia-smi -q -d ROW_REMAPPER`)."""

from __future__ import annotations

from collections.abc import Iterable

from tools.checks._accel import each_gpu_node
from tools.findings import Finding, Findings, Priority
from tools.parsers.nvidia_smi import RemapGpu, RemapReport, parse_row_remap
from tools.registry import check
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


def judge_row_remap(instance_id: str, instance_type: str, report: RemapReport) -> list[Finding]:
    """FAIL P0 on a remapping failure, FAIL P1 on a pending remap, WARN P1 when most banks
    have few or no spare rows left, PASS otherwise."""
    where = f"{instance_id} ({instance_type})" if instance_type else instance_id
    states = {gpu.bus_id: _state(gpu) for gpu in report.gpus}
    failed = [gpu.bus_id for gpu in report.gpus if gpu.failure]
    pending = [gpu.bus_id for gpu in report.gpus if gpu.pending]
    exhausted = [gpu for gpu in report.gpus if gpu.histogram.mostly_exhausted]
    findings: list[Finding] = []
    if failed:
        findings.append(
            FINDINGS.fail(
                Priority.P0,
                f"{where}: row remapping failure on GPU {', '.join(failed)} (a memory bank "
                "ran out of spare rows) — isolate and replace the node",
                resources=[instance_id],
                gpus=failed,
                remapper=states,
            )
        )
    if pending:
        findings.append(
            FINDINGS.fail(
                Priority.P1,
                f"{where}: row remap pending on GPU {', '.join(pending)} — a GPU reset is "
                "needed to apply it: reboot the node and check again; still pending after "
                "the reboot → replace",
                resources=[instance_id],
                gpus=pending,
                remapper=states,
            )
        )
    if exhausted:
        listed = "; ".join(
            f"{gpu.bus_id}: {gpu.histogram.low_or_none} of {gpu.histogram.total} banks low or none"
            for gpu in exhausted
        )
        findings.append(
            FINDINGS.warn(
                Priority.P1,
                f"{where}: spare rows almost used up ({listed}) — plan a replacement",
                resources=[instance_id],
                gpus=[gpu.bus_id for gpu in exhausted],
                remapper=states,
            )
        )
    if findings:
        return findings
    if not any(gpu.supported for gpu in report.gpus):
        return [
            FINDINGS.info(
                f"{where}: the GPUs report no row-remapping state (not supported)",
                resources=[instance_id],
                remapper=states,
            )
        ]
    return [
        FINDINGS.passed(
            f"{where}: no pending or failed row remap on {len(report.gpus)} GPUs",
            resources=[instance_id],
            remapper=states,
        )
    ]


@check(FINDINGS, title="GPU row remapping", scope="node")
def gpu_row_remap(data: ClusterData) -> Iterable[Finding]:
    """Pending remaps (reboot, re-check), failed remaps (replace), spare rows running out."""
    return each_gpu_node(
        data,
        CHECK_ID,
        SECTION,
        probe="gpu_row_remap",
        what="the row remapper",
        parse=lambda text: _recognised(parse_row_remap(text)),
        judge=lambda node, _, report: judge_row_remap(node.instance_id, node.instance_type, report),
    )


def _recognised(report: RemapReport) -> RemapReport | None:
    return report if report.recognised else None
