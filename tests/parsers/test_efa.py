"""lsmod, ls /dev/infiniband and fi_info -p efa."""

from __future__ import annotations

from tools.parsers.efa import parse_fi_info, parse_infiniband, parse_lsmod

LSMOD = """\
Module                  Size  Used by
efa                   155648  0
ib_uverbs             184320  2 rdma_ucm,efa
ib_core               462848  4 rdma_cm,iw_cm,rdma_ucm,ib_uverbs
nvidia              54386688  33 nvidia_uvm,nvidia_modeset
"""

FI_INFO = """\
provider: efa
    fabric: efa
    domain: rdmap16s27-rdm
    version: 122.0
    type: FI_EP_RDM
    protocol: FI_PROTO_EFA
provider: efa
    fabric: efa-direct
    domain: rdmap16s27-rdm
    version: 122.0
    type: FI_EP_RDM
    protocol: FI_PROTO_EFA
provider: efa
    fabric: efa
    domain: rdmap32s27-rdm
    version: 122.0
    type: FI_EP_RDM
    protocol: FI_PROTO_EFA
"""


def test_lsmod() -> None:
    modules = parse_lsmod(LSMOD)
    assert modules.parsed
    assert modules.efa_loaded
    without = parse_lsmod(LSMOD.replace("efa                   155648  0\n", ""))
    assert without.parsed
    assert not without.efa_loaded
    assert not parse_lsmod("bash: lsmod: command not found").parsed


def test_infiniband_listing() -> None:
    listing = parse_infiniband("rdma_cm\nuverbs0\nuverbs1\nuverbs2\n")
    assert listing.count == 3
    assert listing.others == ("rdma_cm",)
    missing = parse_infiniband("ls: cannot access '/dev/infiniband': No such file or directory\n")
    assert missing.missing
    assert missing.count == 0
    assert missing.recognised
    assert not parse_infiniband("").recognised


def test_fi_info_entries_and_devices() -> None:
    info = parse_fi_info(FI_INFO)
    assert len(info.efa_entries) == 3
    assert info.efa_devices == ("rdmap16s27", "rdmap32s27")
    assert info.entries[1].fabric == "efa-direct"
    assert info.error is None


def test_fi_info_no_data() -> None:
    info = parse_fi_info("fi_getinfo: -61 (No data available)\n")
    assert info.entries == ()
    assert info.error_code == -61
    assert info.error == "fi_getinfo: -61 (No data available)"
    assert parse_fi_info("bash: fi_info: command not found\n").not_installed
