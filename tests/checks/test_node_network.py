"""node-imds (§ B), node-nic (§ A), efa-software (§ E), and accelerator checks reading a
probe that its timeout cut off (issue 15 item 8)."""

from __future__ import annotations

import pytest

from cluster_simulator.node_samples import accelerators as samples
from cluster_simulator.node_samples import system
from tools.checks.node_network import IMDS_CHECK, NIC_CHECK, judge_imds
from tools.checks.node_versions import SOFTWARE_CHECK
from tools.findings import Finding, Priority, Status
from tools.parsers.node_network import parse_imds
from tools.probes.model import ProbeOutput

from ._accel_data import CPU, P5, TRN1, healthy_p5, node, run_check

NODE = "i-0123456789abcdef0"
PEER = "i-0fedcba9876543210"


def _only(findings: list[Finding], status: Status) -> list[Finding]:
    return [f for f in findings if f.status == status]


# -- IMDS --------------------------------------------------------------------------------------


def test_imds_healthy_is_one_pass() -> None:
    findings = run_check(IMDS_CHECK, node(NODE, CPU, {"imds": system.imds("m5.2xlarge")}))
    assert [f.status for f in findings] == [Status.PASS]


@pytest.mark.parametrize(
    ("text", "priority", "words"),
    [
        (system.IMDS_UNREACHABLE, Priority.P1, "no answer"),
        (system.IMDS_TOKEN_REQUIRED, Priority.P1, "HTTP 401"),
        (system.imds(token=(0, "403"), read=(0, "403")), Priority.P1, "HttpEndpoint disabled"),
        (system.imds(token=(28, "000")), Priority.P2, "IMDSv1"),
    ],
)
def test_imds_faults(text: str, priority: Priority, words: str) -> None:
    findings = judge_imds(NODE, parse_imds(text))
    assert len(findings) == 1
    assert findings[0].status == Status.WARN
    assert findings[0].priority == priority
    assert words in findings[0].message
    assert findings[0].section == "B"


def test_imds_warning_says_the_hop_limit_is_a_container_matter() -> None:
    (finding,) = judge_imds(NODE, parse_imds(system.IMDS_UNREACHABLE))
    assert "hop limit" in finding.message
    assert "pods" in finding.message


@pytest.mark.parametrize(
    "output",
    [
        ProbeOutput(stdout="sh: 1: curl: not found\ntoken: curl_exit=127 http=\n", exit_code=0),
        ProbeOutput(stdout="", exit_code=0),
        ProbeOutput(stdout="token: curl_exit=0 http=200\n", exit_code=137),
    ],
)
def test_imds_unreadable_is_info_never_a_warning(output: ProbeOutput) -> None:
    findings = run_check(IMDS_CHECK, node(NODE, CPU, {"imds": output}))
    assert [f.status for f in findings] == [Status.INFO]


# -- ENA interfaces ----------------------------------------------------------------------------

TWO_NICS = [("ens5", "0000:00:05.0", "10.1.0.11/20"), ("ens6", "0000:00:06.0", "10.1.0.12/20")]


def test_nic_error_counters_warn_p2_with_the_counts() -> None:
    text = system.net_interfaces(errors={"ens5": (1843, 2)})
    findings = run_check(NIC_CHECK, node(NODE, P5, {"net_interfaces": text, "uptime": "3600 1"}))
    (warning,) = _only(findings, Status.WARN)
    assert warning.priority == Priority.P2
    assert warning.section == "A"
    assert "ens5: 1,843 RX / 2 TX errors" in warning.message
    assert "since boot (1 h 0 min ago)" in warning.message


def test_nic_without_errors_or_gaps_passes() -> None:
    findings = run_check(NIC_CHECK, node(NODE, P5, {"net_interfaces": system.net_interfaces()}))
    assert [f.status for f in findings] == [Status.PASS]


def test_an_interface_unaddressed_where_a_peer_has_it_is_flagged() -> None:
    lacking = system.net_interfaces([TWO_NICS[0], ("ens6", "0000:00:06.0", None)])
    findings = run_check(
        NIC_CHECK,
        node(NODE, P5, {"net_interfaces": lacking}),
        node(PEER, P5, {"net_interfaces": system.net_interfaces(TWO_NICS)}),
    )
    (warning,) = _only(findings, Status.WARN)
    assert warning.resources == [NODE]
    assert "ens6 (no IPv4 address" in warning.message
    assert PEER in warning.message


def test_an_interface_down_where_a_peer_has_it_up_is_flagged() -> None:
    down = system.net_interfaces(TWO_NICS, down=["ens6"])
    findings = run_check(
        NIC_CHECK,
        node(NODE, P5, {"net_interfaces": down}),
        node(PEER, P5, {"net_interfaces": system.net_interfaces(TWO_NICS)}),
    )
    (warning,) = _only(findings, Status.WARN)
    assert "ens6 (link down" in warning.message


def test_interfaces_unaddressed_on_every_peer_are_the_images_design() -> None:
    same = system.net_interfaces([TWO_NICS[0], ("ens6", "0000:00:06.0", None)])
    findings = run_check(
        NIC_CHECK,
        node(NODE, P5, {"net_interfaces": same}),
        node(PEER, P5, {"net_interfaces": same}),
    )
    assert not _only(findings, Status.WARN)
    assert [f.status for f in findings] == [Status.PASS]


def test_a_lone_node_with_an_unaddressed_interface_gets_an_info() -> None:
    lacking = system.net_interfaces([TWO_NICS[0], ("ens6", "0000:00:06.0", None)])
    findings = run_check(NIC_CHECK, node(NODE, P5, {"net_interfaces": lacking}))
    statuses = sorted(f.status for f in findings)
    assert statuses == [Status.INFO, Status.PASS]


def test_efa_only_interfaces_have_no_network_device_and_are_never_flagged() -> None:
    """A p5 whose 31 secondary EFA interfaces are EFA-only: one ENA device, 32 EFA
    devices; the interface count is the efa-devices check's business, not this one's."""
    outputs = healthy_p5(net_interfaces=system.net_interfaces())
    findings = run_check(NIC_CHECK, node(NODE, P5, outputs))
    assert [f.status for f in findings] == [Status.PASS]


@pytest.mark.parametrize(
    "output",
    [
        ProbeOutput(stdout="", exit_code=2),
        ProbeOutput(
            stdout="grep: /sys/bus/pci/drivers/ena/*/net/*/operstate: No such file or directory\n",
            exit_code=2,
        ),
        ProbeOutput(stdout=system.net_interfaces(errors={"ens5": (5, 0)}), exit_code=137),
    ],
)
def test_unreadable_interfaces_are_info(output: ProbeOutput) -> None:
    findings = run_check(NIC_CHECK, node(NODE, P5, {"net_interfaces": output}))
    assert [f.status for f in findings] == [Status.INFO]


# -- EFA installer and aws-ofi-nccl ------------------------------------------------------------


def test_healthy_efa_node_passes() -> None:
    findings = run_check(SOFTWARE_CHECK, node(NODE, P5, healthy_p5()), orchestrator="slurm")
    assert [f.status for f in findings] == [Status.PASS]


def test_missing_plugin_on_slurm_is_a_p1_warning() -> None:
    outputs = healthy_p5(
        efa_packages=samples.efa_packages(ofi_nccl=None),
        ofi_nccl_plugin=ProbeOutput(stdout=samples.OFI_NCCL_PLUGIN_MISSING, exit_code=1),
    )
    findings = run_check(SOFTWARE_CHECK, node(NODE, P5, outputs), orchestrator="slurm")
    (warning,) = findings
    assert warning.status == Status.WARN
    assert warning.priority == Priority.P1
    assert warning.section == "E"
    assert "Using network Socket" in warning.message


def test_missing_plugin_on_eks_is_info_because_images_bring_their_own() -> None:
    outputs = healthy_p5(
        efa_packages=samples.efa_packages(ofi_nccl=None),
        ofi_nccl_plugin=ProbeOutput(stdout="", exit_code=1),
    )
    findings = run_check(SOFTWARE_CHECK, node(NODE, P5, outputs), orchestrator="eks")
    assert [f.status for f in findings] == [Status.INFO]


def test_a_plugin_listed_by_the_installer_counts_even_when_the_directory_moved() -> None:
    outputs = healthy_p5(ofi_nccl_plugin=ProbeOutput(stdout="", exit_code=1))
    findings = run_check(SOFTWARE_CHECK, node(NODE, P5, outputs), orchestrator="slurm")
    assert [f.status for f in findings] == [Status.PASS]


@pytest.mark.parametrize(
    ("orchestrator", "priority"), [("slurm", Priority.P1), ("eks", Priority.P2)]
)
def test_missing_installer_marker(orchestrator: str, priority: Priority) -> None:
    outputs = healthy_p5(
        efa_packages=ProbeOutput(stdout=samples.EFA_PACKAGES_MISSING, exit_code=1),
        ofi_nccl_plugin=samples.ofi_nccl_plugin("/opt/aws-ofi-nccl/lib"),
    )
    findings = run_check(SOFTWARE_CHECK, node(NODE, P5, outputs), orchestrator=orchestrator)
    (warning,) = findings
    assert warning.status == Status.WARN
    assert warning.priority == priority
    assert "/opt/amazon/efa_installed_packages" in warning.message


@pytest.mark.parametrize(
    "packages",
    [
        ProbeOutput(
            stdout="cat: /opt/amazon/efa_installed_packages: Permission denied\n", exit_code=1
        ),
        ProbeOutput(stdout="# EFA installer version: 1.3", exit_code=137),
        ProbeOutput(stdout="", exit_code=None, truncated=True),
    ],
)
def test_an_unreadable_marker_is_never_called_missing(packages: ProbeOutput) -> None:
    outputs = healthy_p5(efa_packages=packages)
    findings = run_check(SOFTWARE_CHECK, node(NODE, P5, outputs), orchestrator="slurm")
    assert not _only(findings, Status.WARN)
    assert Status.INFO in {f.status for f in findings}


def test_neuron_nodes_need_the_installer_but_not_the_nccl_plugin() -> None:
    outputs = {"efa_packages": samples.efa_packages(ofi_nccl=None)}
    findings = run_check(SOFTWARE_CHECK, node(NODE, TRN1, outputs), orchestrator="slurm")
    assert [f.status for f in findings] == [Status.PASS]


# -- item 8: a probe its timeout cut off is never judged as complete ---------------------------


def test_a_row_remap_cut_after_four_of_eight_gpus_is_not_a_pass() -> None:
    report = samples.row_remap(samples.RowRemapSpec(8))
    cut = report[: report.index(f"GPU {samples.bus_id(4)}")]
    outputs = healthy_p5(gpu_row_remap=ProbeOutput(stdout=cut, exit_code=137))
    findings = run_check("gpu-row-remap", node(NODE, P5, outputs))
    assert [f.status for f in findings] == [Status.INFO]
    assert "timed out (exit 137)" in findings[0].message


def test_a_cut_off_gpu_list_is_not_a_missing_gpu() -> None:
    listing = "".join(samples.gpu_list(8).splitlines(True)[:5])
    outputs = healthy_p5(gpu_list=ProbeOutput(stdout=listing, exit_code=137))
    findings = run_check("gpu-count", node(NODE, P5, outputs))
    assert [f.status for f in findings] == [Status.INFO]
    assert findings[0].evidence["timed_out"] is True


def test_a_cut_off_gpu_query_is_not_judged_for_ecc() -> None:
    rows = "".join(samples.gpu_query(samples.GpuQuerySpec(8)).splitlines(True)[:3])
    outputs = healthy_p5(gpu_query=ProbeOutput(stdout=rows, exit_code=124))
    findings = run_check("gpu-ecc", node(NODE, P5, outputs))
    assert [f.status for f in findings] == [Status.INFO]


def test_a_timed_out_efa_probe_is_not_a_missing_module() -> None:
    outputs = healthy_p5(efa_module=ProbeOutput(stdout="Module   Size  Used by\n", exit_code=137))
    findings = run_check("efa-devices", node(NODE, P5, outputs))
    assert not [f for f in findings if f.status == Status.FAIL]
