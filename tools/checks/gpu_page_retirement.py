"""§ G.1.a: retired and pending-retirement pages on GPUs without row remapping.

GPUs before Ampere (the V100s of p3 instances) keep bad memory out of use by retiring whole
pages: NVIDIA's driver retires a page after one double-bit (uncorrectable) ECC error or two
single-bit errors at the same address, records it in the InfoROM, and applies it at the next
driver reload — until then nvidia-smi shows "Pending Page Blacklist: Yes". So:

- a pending retirement is FAIL P1: reboot the node to apply it, then check again;
- pages retired after double-bit errors are WARN P2: the repair worked, but the GPU's memory
  has had uncorrectable errors; a further one, or a retirement that fails (Xid 64, judged by
  gpu-xid), means replace. NVIDIA's page-retirement document gives no count at which a GPU
  must be replaced, so none is invented here;
- pages retired after single-bit errors alone are the designed early repair: evidence only.

Ampere and newer GPUs answer N/A to this query (they remap rows, § G.1.a gpu-row-remap): no
finding for them.
"""

from __future__ import annotations

from collections.abc import Iterable

from tools.checks._accel import each_gpu_node
from tools.findings import Finding, Findings, Priority
from tools.parsers.page_retirement import RetirementGpu, RetirementReport, parse_page_retirement
from tools.registry import check
from tools.remediation import Signal, advice, tagged
from tools.triage.data import ClusterData

CHECK_ID = "gpu-page-retirement"
SECTION = "G.1.a"
FINDINGS = Findings(CHECK_ID, SECTION)


def _state(gpu: RetirementGpu) -> dict[str, object]:
    return {"single_bit": gpu.single_bit, "double_bit": gpu.double_bit, "pending": gpu.pending}


def judge_page_retirement(
    instance_id: str, instance_type: str, report: RetirementReport
) -> list[Finding]:
    """FAIL P1 for a pending retirement, WARN P2 for pages retired after double-bit errors,
    PASS otherwise; nothing for GPUs that do not retire pages."""
    where = f"{instance_id} ({instance_type})" if instance_type else instance_id
    retiring = [gpu for gpu in report.gpus if gpu.supported]
    if not retiring:
        return []  # row-remapping GPUs: gpu-row-remap judges their memory
    states = {gpu.bus_id: _state(gpu) for gpu in retiring}
    pending = [gpu.bus_id for gpu in retiring if gpu.pending]
    double = {gpu.bus_id: gpu.double_bit for gpu in retiring if gpu.double_bit}
    findings: list[Finding] = []
    if pending:
        findings.append(
            FINDINGS.fail(
                Priority.P1,
                f"{where}: page retirement pending on GPU {', '.join(pending)} — "
                f"{advice(Signal.GPU_PAGE_RETIREMENT_PENDING)}",
                resources=[instance_id],
                gpus=pending,
                retirement=states,
                **tagged(Signal.GPU_PAGE_RETIREMENT_PENDING),
            )
        )
    if double:
        counts = ", ".join(f"{bus} ({count})" for bus, count in double.items())
        findings.append(
            FINDINGS.warn(
                Priority.P2,
                f"{where}: pages retired after double-bit ECC errors on GPU {counts} — the "
                "retirement kept the bad memory out of use; replace the node if uncorrectable "
                "errors continue or a retirement fails (Xid 64)",
                resources=[instance_id],
                gpus=list(double),
                retirement=states,
            )
        )
    if not findings:
        findings.append(
            FINDINGS.passed(
                f"{where}: no pending page retirement and no page retired after a double-bit "
                f"error on {len(retiring)} GPU(s)",
                resources=[instance_id],
                retirement=states,
            )
        )
    return findings


def _recognised(text: str) -> RetirementReport | None:
    report = parse_page_retirement(text)
    return report if report.recognised else None


@check(FINDINGS, title="GPU page retirement (pre-Ampere)", scope="node")
def gpu_page_retirement(data: ClusterData) -> Iterable[Finding]:
    """Pending page retirements and double-bit retired pages on GPUs that retire pages."""
    findings = each_gpu_node(
        data,
        FINDINGS,
        probe="gpu_page_retirement",
        what="page retirement",
        parse=_recognised,
        judge=lambda node, _, report: judge_page_retirement(
            node.instance_id, node.instance_type, report
        ),
    )
    if findings:
        return findings
    # Every probed GPU remaps rows instead: say so once, so the check is not silent.
    return [
        FINDINGS.info(
            "No probed GPU retires pages (row-remapping GPUs answer N/A): see gpu-row-remap"
        )
    ]
