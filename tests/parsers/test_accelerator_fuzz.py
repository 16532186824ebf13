"""Property tests: the accelerator, EFA and version parsers never raise, on arbitrary text
or on any prefix of a valid output, and their results keep their invariants."""

from __future__ import annotations

from collections.abc import Callable
from typing import get_args

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cluster_simulator.node_samples import accelerators as samples
from tools.explain.xid_catalog import XidKind
from tools.parsers.dcgm import HEALTH_VALUES, parse_dcgm_health
from tools.parsers.efa import parse_fi_info, parse_infiniband, parse_lsmod
from tools.parsers.neuron import parse_neuron_ls
from tools.parsers.nvidia_smi import parse_gpu_list, parse_gpu_query, parse_row_remap
from tools.parsers.versions import parse_driver_version, parse_efa_packages, parse_nccl_versions
from tools.parsers.xid import parse_xids

from . import _real_output as real

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

VALID: dict[str, str] = {
    "gpu_list": samples.gpu_list(missing=(2,)),
    "gpu_query": samples.gpu_query(
        samples.GpuQuerySpec(ecc_volatile={1: 2}, throttled={3: ["hw_thermal"]})
    ),
    "row_remap": samples.row_remap(
        samples.RowRemapSpec(pending=(1,), failure=(2,), histogram_low=(3,))
    ),
    "dcgm": samples.dcgm_health("Failure"),
    "xid": samples.xid_line("0000:53:00", 79, "GPU has fallen off the bus.")
    + samples.xid_line("0000:64:00", 13, "Graphics exception", style="journal"),
    "neuron": samples.neuron_ls(4),
    "lsmod": samples.lsmod(),
    "infiniband": samples.infiniband(4),
    "fi_info": samples.fi_info(4),
    "driver": samples.nvidia_driver(),
    "nccl": samples.nccl_libraries(),
    "efa_packages": samples.efa_packages(),
    # Real output quoted in public sources (tests/parsers/_real_output.py).
    "real_xid": real.XID_MIG_DOC.text
    + real.XID_MIG_COMPUTE_INSTANCE.text
    + real.XID_NVLINK5.text
    + real.XID_62.text,
    "real_efa_packages": real.EFA_PACKAGES_1_5_1.text,
    "real_nvsmi_610": real.NVSMI_610_HEADER.text,
    "real_row_remap_na": real.ROW_REMAP_MIG.text,
}

# Text drawn from the alphabet these outputs are made of, so fields and separators collide.
ALPHABET = st.sampled_from(
    [
        *list("GPU 0123456789abcdefABCDEF:.,-_()[]{}\"'=\n\t /"),
        "Xid",
        "NVRM:",
        "PCI:",
        "Pending",
        "Yes",
        "No",
        "provider: efa",
        "uverbs",
        "efa",
        "Active",
        "Not Active",
        "[N/A]",
        "bank(s)",
        "Histogram",
        "value",
        "children",
    ]
)
TEXT = st.one_of(st.text(max_size=400), st.lists(ALPHABET, max_size=120).map("".join))


def _check_all(text: str) -> None:
    listing = parse_gpu_list(text)
    assert listing.count == len(listing.gpus) >= 0
    assert all(g.index >= 0 for g in listing.gpus)
    query = parse_gpu_query(text)
    assert query.recognised == bool(query.rows)
    for row in query.rows:
        assert row.index is not None
        assert row.index >= 0
        assert set(row.active_throttles) <= {
            "HW slowdown",
            "HW thermal slowdown",
            "SW thermal slowdown",
        }
    report = parse_row_remap(text)
    for gpu in report.gpus:
        assert gpu.histogram.total >= gpu.histogram.low_or_none >= 0
        assert not gpu.judged or gpu.supported  # judged needs both flags read
    health = parse_dcgm_health(text)
    assert health.state in ("ok", "not-installed", "no-watches", "error", "unparsed")
    assert health.state == "ok" or not health.incidents
    for event in parse_xids(text):
        assert event.kind in get_args(XidKind)
        assert event.gpu_instance is None or event.gpu_instance >= 0
        assert event.xid >= 0
    neuron = parse_neuron_ls(text)
    assert neuron.parsed or neuron.count == 0
    assert parse_lsmod(text).efa_loaded in (True, False)
    ib = parse_infiniband(text)
    assert ib.count == len(set(ib.uverbs))
    fi = parse_fi_info(text)
    assert len(fi.efa_devices) <= len(fi.efa_entries) <= len(fi.entries)
    driver = parse_driver_version(text)
    assert driver is None or driver[0].isdigit()
    assert list(parse_nccl_versions(text)) == sorted(
        parse_nccl_versions(text), key=lambda v: tuple(int(p) for p in v.split("."))
    )
    packages = parse_efa_packages(text)
    assert packages.installer is None or packages.installer[0].isdigit()


@FUZZ
@given(TEXT)
def test_arbitrary_text_never_raises(text: str) -> None:
    _check_all(text)


@FUZZ
@given(st.sampled_from(sorted(VALID)), st.data())
def test_prefixes_of_valid_outputs_never_raise(name: str, data: st.DataObject) -> None:
    text = VALID[name]
    cut = data.draw(st.integers(min_value=0, max_value=len(text)))
    _check_all(text[:cut])


PREFIX_COUNTS: dict[str, tuple[Callable[[str], int], int]] = {
    "gpu_list": (lambda t: parse_gpu_list(t).count, 7),
    "gpu_query": (lambda t: len(parse_gpu_query(t).rows), 8),
    "row_remap": (lambda t: len(parse_row_remap(t).gpus), 8),
    "fi_info": (lambda t: len(parse_fi_info(t).efa_entries), 4),
    "infiniband": (lambda t: parse_infiniband(t).count, 4),
}


@FUZZ
@given(st.sampled_from(sorted(PREFIX_COUNTS)), st.data())
def test_a_prefix_never_shows_more_than_the_whole(name: str, data: st.DataObject) -> None:
    text = VALID[name]
    count, whole = PREFIX_COUNTS[name]
    assert count(text) == whole
    cut = data.draw(st.integers(min_value=0, max_value=len(text)))
    assert 0 <= count(text[:cut]) <= whole


@FUZZ
@given(st.integers(min_value=0, max_value=len(VALID["dcgm"])))
def test_dcgm_prefix_is_the_whole_report_or_nothing(cut: int) -> None:
    health = parse_dcgm_health(VALID["dcgm"][:cut])
    if health.state == "ok":
        assert health.overall in HEALTH_VALUES
    else:
        assert health.incidents == ()
