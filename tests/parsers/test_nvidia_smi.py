"""nvidia-smi parsers over literal outputs as the tool prints them."""

# ruff: noqa: E501  (literal tool output keeps its real line lengths)

from __future__ import annotations

from tools.parsers.nvidia_smi import (
    normalise_bus_id,
    parse_gpu_list,
    parse_gpu_query,
    parse_row_remap,
    to_int,
)

LIST_7_OF_8 = """\
GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-2f6d53c1-8b7a-4f0e-9c52-7d1e0a3b4c01)
GPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-2f6d53c1-8b7a-4f0e-9c52-7d1e0a3b4c02)
GPU 2: NVIDIA H100 80GB HBM3 (UUID: GPU-2f6d53c1-8b7a-4f0e-9c52-7d1e0a3b4c03)
GPU 3: NVIDIA H100 80GB HBM3 (UUID: GPU-2f6d53c1-8b7a-4f0e-9c52-7d1e0a3b4c05)
GPU 4: NVIDIA H100 80GB HBM3 (UUID: GPU-2f6d53c1-8b7a-4f0e-9c52-7d1e0a3b4c06)
GPU 5: NVIDIA H100 80GB HBM3 (UUID: GPU-2f6d53c1-8b7a-4f0e-9c52-7d1e0a3b4c07)
GPU 6: NVIDIA H100 80GB HBM3 (UUID: GPU-2f6d53c1-8b7a-4f0e-9c52-7d1e0a3b4c08)
Unable to determine the device handle for GPU0000:86:00.0: Unknown Error
"""

QUERY = """\
0, 00000000:53:00.0, NVIDIA H100 80GB HBM3, 550.127.05, 34, 0, 0, Not Active, Not Active, Not Active
1, 00000000:64:00.0, NVIDIA H100 80GB HBM3, 550.127.05, 91, 0, 2, Not Active, Active, Active
2, 00000000:75:00.0, NVIDIA H100 80GB HBM3, 550.127.05, 36, 4, 4, Not Active, Not Active, Not Active
3, 00000000:86:00.0, NVIDIA A10G, 550.127.05, 40, [N/A], [Not Supported], [Not Supported], Not Active, Not Active
"""

REMAP = """\

==============NVSMI LOG==============

Timestamp                                 : Tue Oct  8 03:22:07 2024
Driver Version                            : 550.127.05
CUDA Version                              : 12.4

Attached GPUs                             : 2
GPU 00000000:53:00.0
    Remapped Rows
        Correctable Error                 : 1
        Uncorrectable Error               : 0
        Pending                           : Yes
        Remapping Failure Occurred        : No
        Bank Remap Availability Histogram
            Max                           : 639 bank(s)
            High                          : 1 bank(s)
            Partial                       : 0 bank(s)
            Low                           : 0 bank(s)
            None                          : 0 bank(s)

GPU 00000000:64:00.0
    Remapped Rows
        Correctable Error                 : 0
        Uncorrectable Error               : 9
        Pending                           : No
        Remapping Failure Occurred        : Yes
        Bank Remap Availability Histogram
            Max                           : 10 bank(s)
            High                          : 20 bank(s)
            Partial                       : 30 bank(s)
            Low                           : 380 bank(s)
            None                          : 200 bank(s)

"""


def test_list_counts_visible_gpus_and_keeps_the_handle_error() -> None:
    listing = parse_gpu_list(LIST_7_OF_8)
    assert listing.count == 7
    assert listing.gpus[3].uuid == "GPU-2f6d53c1-8b7a-4f0e-9c52-7d1e0a3b4c05"
    assert listing.gpus[0].name == "NVIDIA H100 80GB HBM3"
    assert listing.unreachable_bus_ids == ("0000:86:00.0",)
    assert listing.recognised


def test_list_driver_errors_are_judgeable_but_a_missing_tool_is_not() -> None:
    no_devices = parse_gpu_list("No devices were found\n")
    assert no_devices.count == 0
    assert no_devices.recognised
    no_driver = parse_gpu_list(
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
        "Make sure that the latest NVIDIA driver is installed and running.\n"
    )
    assert no_driver.recognised
    assert no_driver.count == 0
    missing = parse_gpu_list("bash: line 1: nvidia-smi: command not found\n")
    assert not missing.recognised


def test_query_rows_with_na_and_not_supported() -> None:
    query = parse_gpu_query(QUERY)
    assert [r.index for r in query.rows] == [0, 1, 2, 3]
    hot = query.rows[1]
    assert hot.bus_id == "0000:64:00.0"
    assert hot.temperature_c == 91
    assert hot.ecc_uncorrected_aggregate == 2
    assert hot.active_throttles == ("HW thermal slowdown", "SW thermal slowdown")
    assert query.rows[2].ecc_uncorrected_volatile == 4
    odd = query.rows[3]
    assert odd.ecc_uncorrected_volatile is None
    assert odd.ecc_uncorrected_aggregate is None
    assert odd.hw_slowdown is None
    assert odd.active_throttles == ()
    assert odd.label == "GPU 3 (0000:86:00.0)"


def test_query_error_instead_of_rows_is_not_recognised() -> None:
    text = 'Field "clocks_throttle_reasons.hw_slowdown" is not a valid field to query.\n'
    query = parse_gpu_query(text)
    assert not query.recognised
    assert query.errors


def test_row_remap_header_and_blocks() -> None:
    report = parse_row_remap(REMAP)
    assert (report.driver_version, report.cuda_version, report.attached_gpus) == (
        "550.127.05",
        "12.4",
        2,
    )
    first, second = report.gpus
    assert first.bus_id == "0000:53:00.0"
    assert first.pending is True
    assert first.failure is False
    assert first.correctable == 1
    assert first.uncorrectable == 0
    assert first.histogram.as_dict() == {"Max": 639, "High": 1, "Partial": 0, "Low": 0, "None": 0}
    assert not first.histogram.mostly_exhausted
    assert second.failure is True
    assert second.uncorrectable == 9
    assert second.histogram.low_or_none == 580
    assert second.histogram.total == 640
    assert second.histogram.mostly_exhausted


def test_row_remap_not_supported_gpu() -> None:
    text = "Driver Version : 535.183.01\nCUDA Version : 12.2\n\nGPU 00000000:00:1E.0\n    Remapped Rows : N/A\n"
    report = parse_row_remap(text)
    assert report.gpus[0].bus_id == "0000:00:1e.0"
    assert not report.gpus[0].supported


def test_values() -> None:
    assert to_int(" 12 ") == 12
    assert to_int("[N/A]") is None
    assert to_int("[Not Supported]") is None
    assert normalise_bus_id("00000000:A8:00.0") == "0000:a8:00.0"
