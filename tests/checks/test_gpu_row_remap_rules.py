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
    assert kinds(unsupported) == [(RemapKind.NOT_JUDGED, ["a"])]


def test_a_gpu_answering_na_is_not_judged_and_the_node_never_clean() -> None:
    # MIG mode: the GPU's pending and failure flags answer N/A while its counters may
    # still read; one such GPU among clean ones keeps the node from being called clean.
    mig = RemapGpu("m", correctable=0, uncorrectable=0, pending=None, failure=None)
    assert kinds(gpu("a"), mig) == [(RemapKind.NOT_JUDGED, ["m"])]
    half = RemapGpu("h", pending=False, failure=None, histogram=HEALTHY)
    assert kinds(gpu("a"), half) == [(RemapKind.NOT_JUDGED, ["h"])]


def test_a_problem_is_still_reported_beside_gpus_not_judged() -> None:
    mig = RemapGpu("m")
    assert kinds(gpu("a", pending=True), mig) == [
        (RemapKind.PENDING, ["a"]),
        (RemapKind.NOT_JUDGED, ["m"]),
    ]
    # A GPU that says Pending: Yes is judged pending even when its failure flag is N/A.
    flagged = RemapGpu("p", pending=True, failure=None)
    assert kinds(flagged) == [(RemapKind.PENDING, ["p"])]
