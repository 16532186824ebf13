"""§ G: every GPU of the instance type is visible to the driver (`nvidia-smi -L`)."""

from __future__ import annotations

from collections.abc import Iterable

from tools.checks._accel import each_gpu_node
from tools.findings import Finding, Findings, Priority
from tools.parsers.nvidia_smi import GpuList, parse_gpu_list
from tools.registry import check
from tools.remediation import Signal, advice, tagged
from tools.text import clip, quoted
from tools.triage.data import ClusterData

CHECK_ID = "gpu-count"
SECTION = "G"
FINDINGS = Findings(CHECK_ID, SECTION)
KEPT_ERRORS = 8  # nvidia-smi error lines kept as evidence


_MISMATCH = "version mismatch"


def judge_gpu_count(
    instance_id: str, instance_type: str, expected: int, listing: GpuList
) -> Finding:
    """FAIL P0 when fewer GPUs are visible than the type carries."""
    visible = listing.count
    unreachable = listing.unreachable_bus_ids
    where = f"{instance_id} ({instance_type})"
    evidence = {
        "instance_type": instance_type,
        "expected": expected,
        "visible": visible,
        "unreachable_bus_ids": list(unreachable),
        # nvidia-smi's error lines are the node's text: clipped and redacted.
        "errors": [clip(line) for line in listing.errors[:KEPT_ERRORS]],
    }
    if visible < expected:
        cause = f"; the driver cannot reach {', '.join(unreachable)}" if unreachable else ""
        if not unreachable and listing.errors:
            cause = f"; nvidia-smi: {quoted(listing.errors[0], 160)}"
        # nvidia-smi's "Driver/library version mismatch" means the loaded kernel driver is
        # not the installed one (a driver upgraded without a reboot): a reboot fixes it and
        # no hardware is at fault.
        mismatch = any(_MISMATCH in line.lower() for line in listing.errors)
        signal = Signal.DRIVER_LOADED_DIFFERS if mismatch else Signal.ACCELERATOR_DEVICES_MISSING
        return FINDINGS.fail(
            Priority.P0,
            f"{where}: {visible} of {expected} GPUs visible{cause} — {advice(signal)}",
            resources=[instance_id],
            **evidence,
            **tagged(signal),
        )
    if visible > expected:
        return FINDINGS.info(
            f"{where}: {visible} GPUs visible, more than the {expected} the type lists "
            "(MIG or an instance-type table out of date)",
            resources=[instance_id],
            **evidence,
        )
    return FINDINGS.passed(
        f"{where}: {visible} of {expected} GPUs visible", resources=[instance_id], **evidence
    )


@check(FINDINGS, title="Visible GPU count", scope="node")
def gpu_count(data: ClusterData) -> Iterable[Finding]:
    """GPUs visible to nvidia-smi against the instance type's count (e.g. 7 of 8 on p5)."""
    return each_gpu_node(
        data,
        FINDINGS,
        probe="gpu_list",
        what="the GPU list",
        parse=lambda text: _recognised(parse_gpu_list(text)),
        judge=lambda node, expected, listing: judge_gpu_count(
            node.instance_id, node.instance_type, expected, listing
        ),
    )


def _recognised(listing: GpuList) -> GpuList | None:
    return listing if listing.recognised else None
