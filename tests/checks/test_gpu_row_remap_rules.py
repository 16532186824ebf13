"""§ G.1.a gpu-row-remap: the rule alone, on parsed reports, without its words."""

from __future__ import annotations

from tools.checks.gpu_row_remap import RemapKind, remap_verdicts
from tools.parsers.nvidia_smi import BankHistogram, RemapGpu, RemapReport

HEALTHY = BankHistogram(max=639, high=1, partial=0, low=0, none=0)


def gpu(
    bus_id: str, pending: bool = False, failure: bool = False, histogram: BankHistogram = HEALTHY
) -> RemapGpu:
    return RemapGpu(bus_id, pending=pending, failure=failure, histogram=histogram)


def kinds(*gpus: RemapGpu) -> list[tuple[RemapKind, list[str]]]:
    return [(v.kind, [g.bus_id for g in v.gpus]) for v in remap_verdicts(RemapReport(gpus=gpus))]


def test_each_problem_names_its_gpus_worst_first() -> None:
    low = BankHistogram(max=200, low=300, none=140)
    assert kinds(gpu("a", pending=True), gpu("b", failure=True), gpu("c", histogram=low)) == [
        (RemapKind.FAILED, ["b"]),
        (RemapKind.PENDING, ["a"]),
        (RemapKind.EXHAUSTED, ["c"]),
    ]


def test_without_problems_a_node_is_clean_or_cannot_say() -> None:
    assert kinds(gpu("a"), gpu("b")) == [(RemapKind.CLEAN, ["a", "b"])]
    unsupported = RemapGpu("a")  # every field N/A
    assert kinds(unsupported) == [(RemapKind.UNSUPPORTED, ["a"])]
