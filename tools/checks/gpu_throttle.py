"""§ G.4: GPUs whose clocks are held down by hardware slowdown or thermal protection."""

from __future__ import annotations

from collections.abc import Iterable

from tools.checks._accel import each_gpu_node, gpu_label, recognised_query
from tools.findings import Finding, Findings, Priority
from tools.parsers.nvidia_smi import GpuRow
from tools.registry import check
from tools.triage.data import ClusterData

CHECK_ID = "gpu-throttle"
SECTION = "G.4"
FINDINGS = Findings(CHECK_ID, SECTION)


def _temperature(row: GpuRow) -> str:
    return f"{row.temperature_c} °C" if row.temperature_c is not None else "temperature n/a"


def judge_throttle(instance_id: str, instance_type: str, rows: tuple[GpuRow, ...]) -> Finding:
    """FAIL P1 when HW slowdown, HW thermal or SW thermal slowdown is active on a GPU."""
    where = f"{instance_id} ({instance_type})" if instance_type else instance_id
    throttled = [row for row in rows if row.active_throttles]
    temperatures = {gpu_label(row): row.temperature_c for row in rows}
    if throttled:
        listed = "; ".join(
            f"{gpu_label(row)} at {_temperature(row)}: {', '.join(row.active_throttles)}"
            for row in throttled
        )
        return FINDINGS.fail(
            Priority.P1,
            f"{where}: clocks held down on {listed} — the slowest GPU paces the whole job; "
            "compare with the node's other GPUs, reboot, replace the node if hardware "
            "slowdown persists",
            resources=[instance_id],
            gpus={gpu_label(row): list(row.active_throttles) for row in throttled},
            temperatures=temperatures,
        )
    reported = [row for row in rows if row.hw_slowdown is not None]
    if not reported:
        return FINDINGS.info(
            f"{where}: no GPU reports its throttle reasons",
            resources=[instance_id],
            temperatures=temperatures,
        )
    hottest = max(
        (row.temperature_c for row in rows if row.temperature_c is not None), default=None
    )
    peak = f" (hottest {hottest} °C)" if hottest is not None else ""
    return FINDINGS.passed(
        f"{where}: no hardware or thermal slowdown on {len(reported)} GPUs{peak}",
        resources=[instance_id],
        temperatures=temperatures,
    )


@check(FINDINGS, title="GPU thermal and hardware throttling", scope="node")
def gpu_throttle(data: ClusterData) -> Iterable[Finding]:
    """HW slowdown, HW thermal slowdown or SW thermal slowdown active, per GPU."""
    return each_gpu_node(
        data,
        FINDINGS,
        probe="gpu_query",
        what="GPU throttle reasons",
        parse=recognised_query,
        judge=lambda node, _, query: judge_throttle(
            node.instance_id, node.instance_type, query.rows
        ),
    )
