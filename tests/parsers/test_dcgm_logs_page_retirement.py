"""The DCGM diagnostic-log probe and nvidia-smi's PAGE_RETIREMENT report, on literal output."""

from __future__ import annotations

from tools.parsers.dcgm_logs import NvvsLineKind, classify_nvvs_line, parse_dcgm_logs
from tools.parsers.page_retirement import parse_page_retirement

K = NvvsLineKind

CLEAN = """nvvs.log
nv-hostengine.log
== newest nvvs log ==
/var/log/nvidia-dcgm/nvvs.log
2024-10-08 02:40:11.104 DEBUG [4182:4182] Test memory start [TestFramework.cpp:871] [GoList]
2024-10-08 02:40:52.017 INFO  [4182:4182] Test memory: Pass
2024-10-08 02:40:52.100 DEBUG [4182:4182] NVVS_RESULT_FAIL is 1 [enum dump]
2024-10-08 02:40:52.200 DEBUG [4182:4182] failed to load optional plugin config, using defaults
2024-10-08 02:40:52.300 INFO  [4182:4182] Remapping Failure Occurred : No
"""


def test_a_clean_tail_has_no_verdict_lines() -> None:
    logs = parse_dcgm_logs(CLEAN)
    assert logs.state == "ok"
    assert logs.listing == ("nvvs.log", "nv-hostengine.log")
    assert logs.newest_log == "/var/log/nvidia-dcgm/nvvs.log"
    assert logs.lines == ()


def test_verdict_lines_are_classified_without_logger_prefix() -> None:
    failed = classify_nvvs_line("2024-10-08 02:40:52.017 INFO  [4182:4182] Test memory: Fail")
    assert failed is not None
    assert failed.kind is K.FAILED
    assert failed.text == "Test memory: Fail"
    assert failed.timestamp == "2024-10-08 02:40:52.017"
    for line, kind in (
        ("FAIL: memory test found 3 errors", K.FAILED),
        ("Plugin pcie failed with 1 error(s)", K.FAILED),
        ("GPU 2 has a row remap pending; reset the GPU", K.REMAP_PENDING),
        ("GPU 5 had a row remapping failure", K.REMAP_FAILURE),
        ("2024-10-08 02:40:11.000 ERROR [1:1] [[pulse_test]] Incompatible CUDA version", K.ERROR),
        ("Error: unable to connect to the host engine", K.ERROR),
    ):
        verdict = classify_nvvs_line(line)
        assert verdict is not None, line
        assert verdict.kind is kind, line
    for chatter in ("Remapping Failure Occurred : No", "Pending: 0", "Test pcie: Pass"):
        assert classify_nvvs_line(chatter) is None, chatter


def test_no_nvvs_log_missing_directory_and_refusals() -> None:
    none = parse_dcgm_logs("nv-hostengine.log\n== newest nvvs log ==\n")
    assert (none.state, none.newest_log) == ("ok", None)
    missing = parse_dcgm_logs(
        "ls: cannot access '/var/log/nvidia-dcgm': No such file or directory\n"
        "== newest nvvs log ==\n"
    )
    assert missing.state == "missing"
    denied = parse_dcgm_logs(
        "ls: cannot open directory '/var/log/nvidia-dcgm': Permission denied\n"
        "== newest nvvs log ==\n"
    )
    assert denied.state == "denied"
    unreadable = parse_dcgm_logs(
        "nvvs.log\n== newest nvvs log ==\n/var/log/nvidia-dcgm/nvvs.log\n"
        "tail: cannot open '/var/log/nvidia-dcgm/nvvs.log' for reading: Permission denied\n"
    )
    assert unreadable.newest_log is not None
    assert unreadable.problem is not None
    assert "Permission denied" in unreadable.problem


def test_output_without_the_marker_is_unparsed() -> None:
    assert parse_dcgm_logs("").state == "unparsed"
    assert parse_dcgm_logs("sh: 1: ls: command not found\n").state == "unparsed"


V100 = """
==============NVSMI LOG==============

Driver Version                            : 535.183.01
Attached GPUs                             : 2
GPU 00000000:00:17.0
    Retired Pages
        Single Bit ECC                    : 1
        Double Bit ECC                    : 2
        Pending Page Blacklist            : Yes

GPU 00000000:00:18.0
    Retired Pages
        Single Bit ECC                    : 0
        Double Bit ECC                    : 0
        Pending Page Retirement           : No
"""

H100 = """
Attached GPUs                             : 1
GPU 00000000:53:00.0
    Retired Pages
        Single Bit ECC                    : N/A
        Double Bit ECC                    : N/A
        Pending Page Blacklist            : N/A
"""


def test_page_retirement_counts_and_pending_on_a_v100() -> None:
    report = parse_page_retirement(V100)
    first, second = report.gpus
    assert (first.bus_id, first.single_bit, first.double_bit, first.pending) == (
        "0000:00:17.0",
        1,
        2,
        True,
    )
    assert second.pending is False
    assert second.supported


def test_row_remapping_gpus_answer_na_and_are_not_supported() -> None:
    [gpu] = parse_page_retirement(H100).gpus
    assert not gpu.supported


def test_page_retirement_errors_and_empty_output() -> None:
    failed = parse_page_retirement(
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n"
    )
    assert not failed.recognised
    assert failed.errors
    assert not parse_page_retirement("bash: line 1: nvidia-smi: command not found\n").recognised
    assert not parse_page_retirement("").recognised
