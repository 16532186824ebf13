"""§ G.3: uncorrectable ECC errors per GPU (volatile since the driver loaded, aggregate for
the GPU's life), from `nvidia-smi --query-gpu`."""

from __future__ import annotations

from collections.abc import Iterable

from tools.checks._accel import each_gpu_node, gpu_label, recognised_query
from tools.findings import Finding, Findings, Priority
from tools.parsers.nvidia_smi import GpuRow
from tools.registry import check
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


def judge_ecc(instance_id: str, instance_type: str, rows: tuple[GpuRow, ...]) -> Finding:
    """FAIL P0 when a GPU reports uncorrectable ECC errors since the driver loaded
    (volatile); WARN P1 when only the lifetime (aggregate) counter has them: that counter
    never resets, so a GPU whose bad rows were remapped cleanly keeps it forever, and the
    row-remap state (§ G.1.a) says whether the memory is still at fault."""
    where = f"{instance_id} ({instance_type})" if instance_type else instance_id
    per_gpu = {
        gpu_label(row): {
            "volatile": row.ecc_uncorrected_volatile,
            "aggregate": row.ecc_uncorrected_aggregate,
        }
        for row in rows
    }
    bad = [
        row
        for row in rows
        if (row.ecc_uncorrected_volatile or 0) > 0 or (row.ecc_uncorrected_aggregate or 0) > 0
    ]
    since_boot = [row for row in bad if (row.ecc_uncorrected_volatile or 0) > 0]
    if bad and not since_boot:
        return FINDINGS.warn(
            Priority.P1,
            f"{where}: uncorrectable ECC errors in the GPUs' history only (aggregate, none "
            f"since the driver last loaded) on {'; '.join(_counts(r) for r in bad)} — check "
            "row remapping (§ G.1.a): remapped cleanly means the memory was repaired; pending "
            "or failed means reboot or replace",
            resources=[instance_id],
            gpus=[gpu_label(row) for row in bad],
            counters=per_gpu,
        )
    if bad:
        return FINDINGS.fail(
            Priority.P0,
            f"{where}: uncorrectable ECC errors since the driver loaded on "
            f"{'; '.join(_counts(r) for r in bad)} "
            "— isolate the node, reboot it to reset the GPUs and re-check row remapping; "
            "replace it if a remap failed, stays pending or the errors return",
            resources=[instance_id],
            gpus=[gpu_label(row) for row in bad],
            counters=per_gpu,
        )
    known = [
        row
        for row in rows
        if row.ecc_uncorrected_volatile is not None or row.ecc_uncorrected_aggregate is not None
    ]
    if not known:
        return FINDINGS.info(
            f"{where}: no GPU reports ECC counters (ECC off or not supported)",
            resources=[instance_id],
            counters=per_gpu,
        )
    return FINDINGS.passed(
        f"{where}: no uncorrectable ECC errors on {len(known)} GPUs",
        resources=[instance_id],
        counters=per_gpu,
    )


@check(FINDINGS, title="GPU ECC errors", scope="node")
def gpu_ecc(data: ClusterData) -> Iterable[Finding]:
    """Uncorrectable ECC errors since the driver loaded (FAIL) or only in a GPU's lifetime
    counter (WARN)."""
    return each_gpu_node(
        data,
        CHECK_ID,
        SECTION,
        probe="gpu_query",
        what="GPU ECC counters",
        parse=recognised_query,
        judge=lambda node, _, query: judge_ecc(node.instance_id, node.instance_type, query.rows),
    )
