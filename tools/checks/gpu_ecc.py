"""§ G.3: uncorrectable ECC errors per GPU (volatile since the driver loaded, aggregate for
the GPU's life), from `nvidia-smi --query-gpu`."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from tools.checks._accel import each_gpu_node, gpu_label, recognised_query
from tools.findings import Finding, Findings, Priority
from tools.parsers.nvidia_smi import GpuRow
from tools.registry import check
from tools.remediation import Signal, advice, tagged
from tools.triage.data import ClusterData

CHECK_ID = "gpu-ecc"
SECTION = "G.3"
FINDINGS = Findings(CHECK_ID, SECTION)


def _counts(row: GpuRow) -> str:
    volatile = row.ecc_uncorrected_volatile
    aggregate = row.ecc_uncorrected_aggregate
    shown = [
        f"{volatile if volatile is not None else 'n/a'} volatile",
        f"{aggregate if aggregate is not None else 'n/a'} aggregate",
    ]
    return f"{gpu_label(row)}: {', '.join(shown)}"


class EccState(StrEnum):
    SINCE_DRIVER_LOAD = "since-driver-load"  # a volatile uncorrectable count
    HISTORY_ONLY = "history-only"  # only the lifetime (aggregate) counter has them
    NO_COUNTERS = "no-counters"  # ECC off or not supported
    CLEAN = "clean"


@dataclass(frozen=True, slots=True)
class EccVerdict:
    state: EccState
    gpus: tuple[GpuRow, ...]  # the GPUs with errors; for CLEAN, those with counters


def ecc_verdict(rows: tuple[GpuRow, ...]) -> EccVerdict:
    """The rule over one node's uncorrectable ECC counters."""
    bad = tuple(
        row
        for row in rows
        if (row.ecc_uncorrected_volatile or 0) > 0 or (row.ecc_uncorrected_aggregate or 0) > 0
    )
    if any((row.ecc_uncorrected_volatile or 0) > 0 for row in bad):
        return EccVerdict(EccState.SINCE_DRIVER_LOAD, bad)
    if bad:
        return EccVerdict(EccState.HISTORY_ONLY, bad)
    known = tuple(
        row
        for row in rows
        if row.ecc_uncorrected_volatile is not None or row.ecc_uncorrected_aggregate is not None
    )
    return EccVerdict(EccState.CLEAN if known else EccState.NO_COUNTERS, known)


def word_ecc(
    verdict: EccVerdict, instance_id: str, instance_type: str, rows: tuple[GpuRow, ...]
) -> Finding:
    """The finding that states the verdict, with every GPU's counters as evidence."""
    where = f"{instance_id} ({instance_type})" if instance_type else instance_id
    per_gpu = {
        gpu_label(row): {
            "volatile": row.ecc_uncorrected_volatile,
            "aggregate": row.ecc_uncorrected_aggregate,
        }
        for row in rows
    }
    on = "; ".join(_counts(r) for r in verdict.gpus)
    gpus = [gpu_label(row) for row in verdict.gpus]
    if verdict.state is EccState.HISTORY_ONLY:
        return FINDINGS.warn(
            Priority.P1,
            f"{where}: uncorrectable ECC errors in the GPUs' history only (aggregate, none "
            f"since the driver last loaded) on {on} — check row remapping (§ G.1.a): "
            "remapped cleanly means the memory was repaired; pending or failed means reboot "
            "or replace",
            resources=[instance_id],
            gpus=gpus,
            counters=per_gpu,
        )
    if verdict.state is EccState.SINCE_DRIVER_LOAD:
        return FINDINGS.fail(
            Priority.P0,
            f"{where}: uncorrectable ECC errors since the driver loaded on {on} "
            f"— {advice(Signal.GPU_UNCORRECTABLE_ECC)}",
            resources=[instance_id],
            gpus=gpus,
            counters=per_gpu,
            **tagged(Signal.GPU_UNCORRECTABLE_ECC),
        )
    if verdict.state is EccState.NO_COUNTERS:
        return FINDINGS.info(
            f"{where}: no GPU reports ECC counters (ECC off or not supported)",
            resources=[instance_id],
            counters=per_gpu,
        )
    return FINDINGS.passed(
        f"{where}: no uncorrectable ECC errors on {len(verdict.gpus)} GPUs",
        resources=[instance_id],
        counters=per_gpu,
    )


def judge_ecc(instance_id: str, instance_type: str, rows: tuple[GpuRow, ...]) -> Finding:
    """FAIL P0 when a GPU reports uncorrectable ECC errors since the driver loaded
    (volatile); WARN P1 when only the lifetime (aggregate) counter has them: that counter
    never resets, so a GPU whose bad rows were remapped cleanly keeps it forever, and the
    row-remap state (§ G.1.a) says whether the memory is still at fault."""
    return word_ecc(ecc_verdict(rows), instance_id, instance_type, rows)


@check(FINDINGS, title="GPU ECC errors", scope="node")
def gpu_ecc(data: ClusterData) -> Iterable[Finding]:
    """Uncorrectable ECC errors since the driver loaded (FAIL) or only in a GPU's lifetime
    counter (WARN)."""
    return each_gpu_node(
        data,
        FINDINGS,
        probe="gpu_query",
        what="GPU ECC counters",
        parse=recognised_query,
        judge=lambda node, _, query: judge_ecc(node.instance_id, node.instance_type, query.rows),
    )
