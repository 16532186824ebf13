"""§ G.3 gpu-ecc: the rule alone, on literal nvidia-smi rows, without its words."""

from __future__ import annotations

from tools.checks.gpu_ecc import EccState, ecc_verdict
from tools.parsers.nvidia_smi import GpuRow


def gpu(index: int, volatile: int | None, aggregate: int | None) -> GpuRow:
    return GpuRow(
        index, f"0000:{index:02}:00.0", "H100", "550", 40, volatile, aggregate, *(None,) * 3
    )


def test_errors_since_the_driver_loaded_outrank_history() -> None:
    old, new = gpu(0, 0, 3), gpu(1, 2, 2)
    verdict = ecc_verdict((old, new, gpu(2, 0, 0)))
    assert (verdict.state, verdict.gpus) == (EccState.SINCE_DRIVER_LOAD, (old, new))


def test_lifetime_errors_alone_are_history() -> None:
    old = gpu(0, 0, 3)
    assert ecc_verdict((old, gpu(1, 0, 0))).gpus == (old,)
    assert ecc_verdict((old,)).state is EccState.HISTORY_ONLY


def test_clean_counts_the_gpus_with_counters_and_none_means_no_counters() -> None:
    counted = gpu(0, 0, 0)
    verdict = ecc_verdict((counted, gpu(1, None, None)))
    assert (verdict.state, verdict.gpus) == (EccState.CLEAN, (counted,))
    assert ecc_verdict((gpu(0, None, None),)).state is EccState.NO_COUNTERS
