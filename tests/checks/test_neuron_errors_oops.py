"""§ G.5 neuron-driver-errors, the Neuron NPD condition in k8s-node-health, and § N oopses."""

from __future__ import annotations

from typing import Any

from cluster_simulator.node_samples import accelerators as samples
from cluster_simulator.node_samples import k8s_node, system
from tools.checks.k8s_node_health import JudgedNode, judge_node_health
from tools.checks.neuron_errors import CHECK_ID, judge_neuron_errors
from tools.checks.node_kernel import judge_kernel
from tools.findings import Priority, Status
from tools.parsers.kernel_log import KernelEventKind, parse_kernel_log
from tools.remediation import Signal, advice
from tools.triage.data.kube_model import KubeNode

from ._accel_data import TRN1, node, run_check

HBM = samples.neuron_hw_error_line()
REPAIRABLE = samples.neuron_hw_error_line(
    "HBM_REPAIRABLE_UNCORRECTABLE_ERROR", action="RELOAD_DRIVER"
)


def log(lines: list[str]) -> Any:
    return parse_kernel_log(system.kernel_log(lines))


def journal(lines: list[str]) -> Any:
    return parse_kernel_log(system.kernel_log_previous_boot(lines))


def test_a_hardware_error_this_boot_is_p0_with_the_drivers_action() -> None:
    [finding] = judge_neuron_errors("i-1", TRN1, log([HBM]))
    assert (finding.status, finding.priority, finding.section) == (
        Status.FAIL,
        Priority.P0,
        "G.5",
    )
    assert "HBM_UNCORRECTABLE_ERROR on Neuron device(s) 3" in finding.message
    assert "replace the node" in finding.message
    assert finding.evidence["actions"] == ["TERMINATE_INSTANCE"]


def test_a_repairable_error_asks_for_a_reboot() -> None:
    [finding] = judge_neuron_errors("i-1", TRN1, log([REPAIRABLE]))
    assert finding.priority is Priority.P0
    assert "reboot the node" in finding.message
    assert finding.evidence["replace"] is False


def test_a_previous_boot_error_still_means_replace_unless_repairable() -> None:
    [before] = judge_neuron_errors("i-1", TRN1, log([]), journal([HBM]))
    assert (before.status, before.priority) == (Status.FAIL, Priority.P1)
    assert "does not move the instance to other hardware" in before.message
    [history] = judge_neuron_errors("i-1", TRN1, log([]), journal([REPAIRABLE]))
    assert (history.status, history.priority) == (Status.WARN, Priority.P2)


def test_driver_timeouts_warn_and_routine_lines_pass() -> None:
    [warned] = judge_neuron_errors("i-1", TRN1, log([samples.neuron_driver_timeout_line()]))
    assert (warned.status, warned.priority) == (Status.WARN, Priority.P1)
    assert "retries some operations itself" in warned.message
    [clean] = judge_neuron_errors("i-1", TRN1, log([samples.neuron_detach_line()]))
    assert clean.status is Status.PASS


def test_registered_check_on_a_trn1_and_unreadable_logs() -> None:
    trn = node("i-1", TRN1, {"kernel_log": system.kernel_log([HBM]), "uptime": system.uptime()})
    [finding] = run_check(CHECK_ID, trn)
    assert finding.priority is Priority.P0
    refused = node(
        "i-2", TRN1, {"kernel_log": "dmesg: read kernel buffer failed: Operation not permitted\n"}
    )
    [info] = run_check(CHECK_ID, refused)
    assert info.status is Status.INFO
    [none] = run_check(CHECK_ID, node("i-3", "ml.p5.48xlarge", {}))
    assert none.status is Status.INFO


def test_the_neuron_npd_condition_is_a_p0_replacement_finding() -> None:
    objects_node = k8s_node.node(("i-0abc", "trn", "ml.trn1.32xlarge", "us-west-2a"))
    objects_node["status"]["conditions"].append(
        k8s_node.neuron_health_condition("HBM_UNCORRECTABLE_ERROR")
    )
    judged = [JudgedNode("hyperpod-i-0abc", "i-0abc", "trn", KubeNode.from_api(objects_node))]
    [finding] = judge_node_health(judged, "Automatic")
    assert (finding.status, finding.priority, finding.section) == (
        Status.FAIL,
        Priority.P0,
        "G.5",
    )
    assert "NeuronHasError_HBM_UNCORRECTABLE_ERROR" in finding.message
    assert advice(Signal.NEURON_HBM_UE) in finding.message
    assert finding.evidence["remediation"] == Signal.NEURON_HBM_UE
    healthy = k8s_node.node(("i-0def", "trn", "ml.trn1.32xlarge", "us-west-2a"))
    healthy["status"]["conditions"].append(k8s_node.neuron_health_condition())
    [ok] = judge_node_health(
        [JudgedNode("hyperpod-i-0def", "i-0def", "trn", KubeNode.from_api(healthy))]
    )
    assert ok.status is Status.PASS


def test_a_kernel_oops_is_p1_and_a_user_trap_is_not_an_oops() -> None:
    findings = judge_kernel("i-1", log([*system.oops_lines(), system.user_trap_line()]))
    [finding] = findings
    assert (finding.status, finding.priority, finding.section) == (Status.FAIL, Priority.P1, "N")
    assert finding.evidence["signature"] == "oops"
    assert finding.evidence["count"] == 2  # the BUG line and the Oops line; the CPU line is not
    assert "drain the node and reboot it" in finding.message
    trap = log([system.user_trap_line()])
    assert not trap.of_kind(KernelEventKind.OOPS)


def test_an_oops_only_in_the_previous_boot_is_history() -> None:
    [finding] = judge_kernel("i-1", log([]), journal(system.oops_lines()[:2]), 3600.0)
    assert (finding.status, finding.priority) == (Status.WARN, Priority.P2)
    assert "kernel oops" in finding.message
