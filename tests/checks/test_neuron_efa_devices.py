"""§ G.5 neuron-devices and § A efa-devices on the node."""

from __future__ import annotations

from cluster_simulator.node_samples import accelerators as samples
from tools.checks.efa_devices import CHECK_ID as EFA_ID
from tools.checks.efa_devices import EfaReads, judge_efa
from tools.checks.neuron_devices import CHECK_ID as NEURON_ID
from tools.checks.neuron_devices import judge_neuron_devices
from tools.findings import Finding, Priority, Status
from tools.parsers.efa import parse_fi_info, parse_infiniband, parse_lsmod
from tools.parsers.neuron import parse_neuron_ls

from ._accel_data import P5, TRN1, healthy_p5, node, run_check, without


def test_neuron_devices_missing_on_trn1_fail_p0() -> None:
    finding = judge_neuron_devices("i-t", TRN1, 16, parse_neuron_ls(samples.neuron_ls(14)))
    assert (finding.status, finding.priority, finding.section) == (Status.FAIL, Priority.P0, "G.5")
    assert "14 of 16 Neuron devices" in finding.message
    full = judge_neuron_devices("i-t", TRN1, 16, parse_neuron_ls(samples.neuron_ls(16)))
    assert full.status is Status.PASS


def test_registered_neuron_check_only_on_neuron_types() -> None:
    findings = run_check(
        NEURON_ID,
        node("i-t", TRN1, {"neuron_devices": samples.neuron_ls(15)}),
        node("i-p", P5, healthy_p5()),
    )
    assert [(f.status, f.resources) for f in findings] == [(Status.FAIL, ["i-t"])]
    [info] = run_check(
        NEURON_ID, node("i-t", TRN1, {"neuron_devices": samples.NEURON_LS_NOT_INSTALLED})
    )
    assert info.status is Status.INFO


def efa(**kwargs: str) -> list[Finding]:
    return judge_efa(
        EfaReads(
            "i-1",
            P5,
            32,
            parse_lsmod(kwargs.get("lsmod", samples.lsmod())),
            parse_infiniband(kwargs.get("ib", samples.infiniband(32))),
            parse_fi_info(kwargs.get("fi", samples.fi_info(32))),
        )
    )


def test_efa_short_by_one_fails_p0() -> None:
    [finding] = efa(ib=samples.infiniband(31))
    assert (finding.status, finding.priority, finding.section) == (Status.FAIL, Priority.P0, "A")
    assert "31 of 32 EFA devices" in finding.message
    assert "reboot" in finding.message


def test_efa_module_and_provider_missing() -> None:
    findings = efa(lsmod=samples.lsmod(efa=False), fi=samples.fi_info(error=True))
    assert [f.status for f in findings] == [Status.FAIL, Status.FAIL]
    assert "efa kernel module is not loaded" in findings[0].message
    assert "fi_getinfo: -61" in findings[1].message


def test_healthy_efa_passes_with_counts() -> None:
    [finding] = efa()
    assert finding.status is Status.PASS
    assert "32 of 32 EFA devices" in finding.message


def test_registered_efa_check_unreadable_probe_is_info_and_others_still_judged() -> None:
    outputs = without(healthy_p5(efa_devices=samples.infiniband(30)), "efa_provider")
    findings = run_check(EFA_ID, node("i-1", P5, outputs))
    assert [f.status for f in findings] == [Status.INFO, Status.FAIL]
    assert "libfabric" in findings[0].message
    assert "30 of 32" in findings[1].message
    missing_dir = run_check(
        EFA_ID, node("i-2", P5, healthy_p5(efa_devices=samples.INFINIBAND_MISSING))
    )
    assert [f.status for f in missing_dir] == [Status.FAIL]
    assert "0 of 32" in missing_dir[0].message


def test_neuron_ls_in_an_unknown_shape_falls_back_to_the_device_files() -> None:
    outputs = {
        "neuron_devices": "usage: neuron-ls [-h] [--output-format {table,json}]\n",
        "neuron_device_files": samples.neuron_device_files(15),
    }
    [finding] = run_check(NEURON_ID, node("i-t", TRN1, outputs))
    assert finding.status is Status.FAIL
    assert "15 of 16 Neuron devices visible to /dev/neuron*" in finding.message
    assert finding.evidence["source"] == "/dev/neuron*"
    outputs["neuron_device_files"] = ""  # no device file either: nothing to judge
    [unread] = run_check(NEURON_ID, node("i-t", TRN1, outputs))
    assert unread.status is Status.INFO


def test_the_newer_neuron_ls_document_is_read() -> None:
    from tools.parsers.neuron import parse_neuron_device_files

    wrapped = (
        '{"instance_type": "trn2.48xlarge", "logical_neuroncore_config": 2, '
        '"devices": [{"neuron_device": 0}, {"neuron_device": 1}]}'
    )
    assert parse_neuron_ls(wrapped).count == 2
    assert parse_neuron_device_files("neuron0\nneuron1\nneuron10\n").count == 3
    assert not parse_neuron_device_files("ls: cannot access '/dev': denied\n").parsed
