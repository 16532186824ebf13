"""The scenario sample outputs (cluster_simulator/node_samples/accelerators.py) read back
through the parsers with the faults they were asked for."""

from __future__ import annotations

from datetime import UTC, datetime

from cluster_simulator.node_samples import accelerators as samples
from tools.parsers.dcgm import parse_dcgm_health
from tools.parsers.efa import parse_fi_info, parse_infiniband, parse_lsmod
from tools.parsers.neuron import parse_neuron_ls
from tools.parsers.nvidia_smi import parse_gpu_list, parse_gpu_query, parse_row_remap
from tools.parsers.versions import parse_driver_version, parse_efa_packages, parse_nccl_versions
from tools.parsers.xid import parse_xids


def test_gpu_list_with_a_missing_gpu() -> None:
    assert parse_gpu_list(samples.gpu_list()).count == 8
    short = parse_gpu_list(samples.gpu_list(missing=(3,)))
    assert short.count == 7
    assert short.unreachable_bus_ids == (samples.bus_id(3, 4).lower(),)


def test_gpu_query_faults() -> None:
    query = parse_gpu_query(
        samples.gpu_query(
            samples.GpuQuerySpec(
                ecc_volatile={2: 3},
                ecc_aggregate={5: 1},
                throttled={1: ["hw_slowdown", "sw_thermal"]},
                temps={1: 92},
            )
        )
    )
    rows = {row.index: row for row in query.rows}
    assert len(rows) == 8
    assert rows[2].ecc_uncorrected_volatile == 3
    assert rows[2].ecc_uncorrected_aggregate == 3
    assert rows[5].ecc_uncorrected_volatile == 0
    assert rows[5].ecc_uncorrected_aggregate == 1
    assert rows[1].active_throttles == ("HW slowdown", "SW thermal slowdown")
    assert rows[1].temperature_c == 92
    assert all(not row.active_throttles for i, row in rows.items() if i != 1)
    assert len(parse_gpu_query(samples.gpu_query(samples.GpuQuerySpec(missing=(7,)))).rows) == 7


def test_row_remap_faults_and_header() -> None:
    report = parse_row_remap(
        samples.row_remap(
            samples.RowRemapSpec(
                pending=(1,), failure=(2,), histogram_low=(4,), driver="535.183.01"
            )
        )
    )
    assert report.driver_version == "535.183.01"
    assert report.cuda_version == samples.CUDA
    assert report.attached_gpus == 8
    assert len(report.gpus) == 8
    by_bus = {gpu.bus_id: gpu for gpu in report.gpus}
    assert by_bus[samples.bus_id(1, 4).lower()].pending is True
    assert by_bus[samples.bus_id(2, 4).lower()].failure is True
    assert by_bus[samples.bus_id(4, 4).lower()].histogram.mostly_exhausted
    assert [g.bus_id for g in report.gpus if g.pending or g.failure] == [
        samples.bus_id(1, 4).lower(),
        samples.bus_id(2, 4).lower(),
    ]
    assert all(gpu.histogram.total == samples.BANKS for gpu in report.gpus)


def test_dcgm_samples() -> None:
    assert parse_dcgm_health(samples.dcgm_health()).overall == "Healthy"
    failure = parse_dcgm_health(samples.dcgm_health("Failure"))
    assert failure.overall == "Failure"
    assert failure.incidents[0].system == "Memory system"
    warning = parse_dcgm_health(
        samples.dcgm_health("Warning", {3: ("NVLINK system", "Warning", "NVLink CRC errors")})
    )
    assert [(i.entity_id, i.health, i.message) for i in warning.incidents] == [
        ("3", "Warning", "NVLink CRC errors")
    ]
    assert parse_dcgm_health(samples.DCGM_NOT_INSTALLED).state == "not-installed"
    assert parse_dcgm_health(samples.DCGM_NO_WATCHES).state == "no-watches"
    assert parse_dcgm_health(samples.DCGM_NO_HOST_ENGINE).state == "error"


def test_xid_lines_both_styles() -> None:
    when = datetime(2024, 10, 7, 22, 10, 3, tzinfo=UTC)
    text = samples.xid_line(samples.driver_pci(3), 79, "GPU has fallen off the bus.") + (
        samples.xid_line(samples.driver_pci(3), 48, "DBE detected", when, style="journal")
    )
    events = parse_xids(text)
    assert [(e.xid, e.pci, e.kind) for e in events] == [
        (79, "0000:86:00", "hardware"),
        (48, "0000:86:00", "hardware"),
    ]
    assert events[0].timestamp == "Tue Oct  8 03:22:07 2024"
    assert events[1].timestamp == "2024-10-07T22:10:03+0000"


def test_neuron_and_efa_samples() -> None:
    assert parse_neuron_ls(samples.neuron_ls()).count == 16
    assert parse_neuron_ls(samples.neuron_ls(devices=14)).count == 14
    assert not parse_neuron_ls(samples.NEURON_LS_NOT_INSTALLED).parsed
    assert parse_lsmod(samples.lsmod()).efa_loaded
    assert not parse_lsmod(samples.lsmod(efa=False)).efa_loaded
    assert parse_infiniband(samples.infiniband()).count == 32
    assert parse_infiniband(samples.infiniband(31)).count == 31
    assert parse_infiniband(samples.INFINIBAND_MISSING).missing
    full = parse_fi_info(samples.fi_info())
    assert len(full.efa_entries) == 32
    assert len(full.efa_devices) == 32
    assert parse_fi_info(samples.fi_info(error=True)).error_code == -61


def test_version_samples() -> None:
    assert parse_driver_version(samples.nvidia_driver("535.183.01")) == "535.183.01"
    assert parse_nccl_versions(samples.nccl_libraries("2.23.4")) == ("2.23.4",)
    packages = parse_efa_packages(samples.efa_packages(installer="1.38.0", ofi_nccl="1.14.0"))
    assert (packages.installer, packages.ofi_nccl) == ("1.38.0", "1.14.0")
    assert parse_efa_packages(samples.EFA_PACKAGES_MISSING).installer is None
