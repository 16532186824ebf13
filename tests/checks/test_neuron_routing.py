"""§ G.5: every Neuron error class routed as AWS's Neuron guide and the Neuron node problem
detector config route it (tools/remediation/), on literal driver lines and conditions.

The lines below are written in the driver's format as the Neuron Runtime Troubleshooting
guide prints it (`NEURON_HW_ERR=<TYPE> instance-id=… hostname=… nd-id=… nc-id=…
serial-num=… action=…`); the condition reasons are the NPD config's `NeuronHasError_<TYPE>`.
"""

from __future__ import annotations

from typing import Any

import pytest

from cluster_simulator.node_samples import k8s_node, system
from tools.checks.k8s_node_health import JudgedNode, judge_node_health
from tools.checks.neuron_errors import judge_neuron_errors
from tools.findings import Finding, Priority, Status
from tools.parsers.kernel_log import parse_kernel_log
from tools.remediation import (
    NEURON_TYPES,
    RULES,
    FirstAction,
    Replacement,
    Rule,
    Signal,
    advice,
    neuron_signal,
    neuron_type_signal,
    rule,
)
from tools.triage.data.kube_model import KubeNode

TRN1 = "ml.trn1.32xlarge"


def line(error: str, action: str | None = "TERMINATE_INSTANCE", device: int = 0) -> str:
    tail = f" action={action}" if action else ""
    return (
        f"NEURON_HW_ERR={error} instance-id=i-0592464924bd45322 hostname=ip-172-31-61-252 "
        f"nd-id={device} nc-id=0 serial-num=19fcda00f5ff6eb9{tail}"
    )


def judged(lines: list[str], previous: list[str] | None = None) -> list[Finding]:
    current = parse_kernel_log(system.kernel_log(lines))
    before = (
        parse_kernel_log(system.kernel_log_previous_boot(previous))
        if previous is not None
        else None
    )
    return judge_neuron_errors("i-1", TRN1, current, before)


# -- the driver's line, class by class ------------------------------------------------------------

HARDWARE = [
    ("SRAM_UNCORRECTABLE_ERROR", Signal.NEURON_SRAM_UE),
    ("NC_UNCORRECTABLE_ERROR", Signal.NEURON_NC_UE),
    ("HBM_UNCORRECTABLE_ERROR", Signal.NEURON_HBM_UE),
    ("DMA_ERROR", Signal.NEURON_DMA_ABORT),
    ("HANG_ON_COMPUTE", Signal.NEURON_HANG_ON_COMPUTE),
]


@pytest.mark.parametrize(("error", "signal"), HARDWARE)
def test_hardware_classes_replace_per_the_neuron_guide(error: str, signal: Signal) -> None:
    for action in ("TERMINATE_INSTANCE", None):
        [finding] = judged([line(error, action)])
        assert (finding.status, finding.priority, finding.section) == (
            Status.FAIL,
            Priority.P0,
            "G.5",
        )
        assert finding.evidence["remediation"] == signal
        assert finding.evidence["replace"] is True
        assert advice(signal) in finding.message
        assert rule(signal).replacement is Replacement.IMMEDIATELY


def test_a_hang_on_collectives_points_at_the_other_workers_never_at_replacing() -> None:
    for action in ("RESTART_WORKLOAD", None):
        [finding] = judged([line("HANG_ON_COLLECTIVES", action)])
        assert (finding.status, finding.priority) == (Status.WARN, Priority.P1)
        assert finding.evidence["remediation"] == Signal.NEURON_HANG_ON_COLLECTIVES
        assert finding.evidence["replace"] is False
        assert "other workers" in finding.message
        assert "restart the workload" in finding.message
        assert "replace the node" not in finding.message
        assert "the driver asks" not in finding.message


def test_a_hang_on_collectives_in_the_previous_boot_is_history_not_replacement() -> None:
    [finding] = judged([], previous=[line("HANG_ON_COLLECTIVES", "RESTART_WORKLOAD")])
    assert (finding.status, finding.priority) == (Status.WARN, Priority.P2)
    assert finding.evidence["replace"] is False


def test_a_repairable_hbm_error_is_reloaded_or_rebooted_first() -> None:
    [finding] = judged([line("REPAIRABLE_HBM_UNCORRECTABLE_ERROR", None)])
    assert finding.evidence["remediation"] == Signal.NEURON_HBM_REPAIRABLE
    assert finding.evidence["replace"] is False
    assert "reload the Neuron driver or reboot" in finding.message
    assert "the driver asks" not in finding.message


def test_action_terminate_instance_is_honoured_on_a_type_the_table_does_not_know() -> None:
    [finding] = judged([line("SOMETHING_NEW_ERROR", "TERMINATE_INSTANCE")])
    assert (finding.status, finding.priority) == (Status.FAIL, Priority.P0)
    assert finding.evidence["remediation"] == Signal.NEURON_ACTION_TERMINATE
    assert "the driver printed action=TERMINATE_INSTANCE" in finding.message


def test_an_unknown_type_without_an_action_is_investigated_not_replaced() -> None:
    [finding] = judged([line("SOMETHING_NEW_ERROR", None)])
    assert (finding.status, finding.priority) == (Status.FAIL, Priority.P1)
    assert finding.evidence["remediation"] == Signal.NEURON_UNKNOWN
    assert finding.evidence["replace"] is False
    assert "the driver asks" not in finding.message


def test_the_drivers_action_decides_over_the_type_when_it_asks_for_less() -> None:
    # The driver is the authority on its own line: a workload restart it prints is not
    # turned into a replacement by the type alone.
    signal = neuron_signal("SRAM_UNCORRECTABLE_ERROR", "RESTART_WORKLOAD")
    assert signal is Signal.NEURON_ACTION_RESTART_WORKLOAD
    assert rule(signal).first_action is FirstAction.RESTART_WORKLOAD
    [finding] = judged([line("SRAM_UNCORRECTABLE_ERROR", "RESTART_WORKLOAD")])
    assert finding.evidence["replace"] is False
    assert "the driver asks for the workload to be restarted" in finding.message


def test_a_hardware_error_and_a_collective_hang_on_one_node_are_two_findings() -> None:
    findings = judged(
        [line("HANG_ON_COLLECTIVES", "RESTART_WORKLOAD"), line("DMA_ERROR", device=2)]
    )
    by_row = {f.evidence["remediation"]: f for f in findings}
    assert set(by_row) == {Signal.NEURON_HANG_ON_COLLECTIVES, Signal.NEURON_DMA_ABORT}
    assert by_row[Signal.NEURON_DMA_ABORT].status is Status.FAIL
    assert by_row[Signal.NEURON_HANG_ON_COLLECTIVES].status is Status.WARN


def test_a_replacement_class_in_the_previous_boot_still_fails() -> None:
    [finding] = judged([], previous=[line("NC_UNCORRECTABLE_ERROR")])
    assert (finding.status, finding.priority) == (Status.FAIL, Priority.P1)
    assert "does not move the instance to other hardware" in finding.message


# -- the Neuron node problem detector's condition ------------------------------------------------


def condition_node(reason: str, message: str) -> list[JudgedNode]:
    objects = k8s_node.node(("i-0abc", "trn", TRN1, "us-west-2a"))
    objects["status"]["conditions"].append(
        {
            "type": "NeuronHealth",
            "status": "True",
            "reason": reason,
            "message": message,
            "lastHeartbeatTime": "2026-11-30T10:00:00Z",
            "lastTransitionTime": "2026-11-30T09:58:00Z",
        }
    )
    return [JudgedNode("hyperpod-i-0abc", "i-0abc", "trn", KubeNode.from_api(objects))]


def neuron_finding(findings: list[Finding]) -> Finding:
    [finding] = [f for f in findings if f.section == "G.5"]
    return finding


@pytest.mark.parametrize(("error", "signal"), HARDWARE[:4])
def test_each_npd_hardware_reason_fails_p0_with_replacement(error: str, signal: Signal) -> None:
    finding = neuron_finding(
        judge_node_health(condition_node(f"NeuronHasError_{error}", line(error)), "Automatic")
    )
    assert (finding.status, finding.priority) == (Status.FAIL, Priority.P0)
    assert finding.evidence["remediation"] == signal
    assert advice(signal) in finding.message


def test_the_npd_hang_on_collectives_reason_warns_and_points_elsewhere() -> None:
    nodes = condition_node(
        "NeuronHasError_HANG_ON_COLLECTIVES", line("HANG_ON_COLLECTIVES", "RESTART_WORKLOAD")
    )
    finding = neuron_finding(judge_node_health(nodes, "Automatic"))
    assert (finding.status, finding.priority) == (Status.WARN, Priority.P1)
    assert finding.evidence["remediation"] == Signal.NEURON_HANG_ON_COLLECTIVES
    assert "other workers" in finding.message
    assert "replace the node" not in finding.message


def test_the_npd_condition_from_the_simulator_sample_still_routes() -> None:
    objects: Any = k8s_node.node(("i-0abc", "trn", TRN1, "us-west-2a"))
    objects["status"]["conditions"].append(k8s_node.neuron_health_condition("DMA_ERROR"))
    judged_nodes = [JudgedNode("n", "i-0abc", "trn", KubeNode.from_api(objects))]
    finding = neuron_finding(judge_node_health(judged_nodes, "None"))
    assert finding.evidence["remediation"] == Signal.NEURON_DMA_ABORT


@pytest.mark.parametrize(
    ("reason", "signal"),
    [
        ("NeuronHasError_SRAM_UNCORRECTABLE_ERROR", Signal.NEURON_SRAM_UE),
        ("NeuronHasError_HANG_ON_COLLECTIVES", Signal.NEURON_HANG_ON_COLLECTIVES),
        ("HBM_REPAIRABLE_UNCORRECTABLE_ERROR", Signal.NEURON_HBM_REPAIRABLE),
        ("NeuronHasError_DMA_ERROR", Signal.NEURON_DMA_ABORT),
        ("NeuronHasError_<script>", Signal.NEURON_UNKNOWN),
        (None, Signal.NEURON_UNKNOWN),
    ],
)
def test_type_names_map_to_rows(reason: str | None, signal: Signal) -> None:
    assert neuron_type_signal(reason) is signal


# -- the type of a hang on collectives wins over any action= ---------------------------------


@pytest.mark.parametrize("action", ["TERMINATE_INSTANCE", "RESET", "REBOOT", "RELOAD_DRIVER"])
def test_no_action_turns_a_hang_on_collectives_into_this_nodes_fault(action: str) -> None:
    # The Neuron guide puts the fault on another worker: replacing or rebooting this node
    # does not help, whatever the driver prints as its remedy for the job.
    assert neuron_signal("HANG_ON_COLLECTIVES", action) is Signal.NEURON_HANG_ON_COLLECTIVES
    [finding] = judged([line("HANG_ON_COLLECTIVES", action)])
    assert (finding.status, finding.priority) == (Status.WARN, Priority.P1)
    assert finding.evidence["replace"] is False
    assert "other workers" in finding.message
    nodes = condition_node(
        "NeuronHasError_HANG_ON_COLLECTIVES", line("HANG_ON_COLLECTIVES", action)
    )
    npd = neuron_finding(judge_node_health(nodes, "Automatic"))
    assert npd.evidence["remediation"] == Signal.NEURON_HANG_ON_COLLECTIVES
    assert npd.status is Status.WARN


NEVER_ROWS = [r for r in RULES if r.replacement is Replacement.NEVER]


@pytest.mark.parametrize(
    ("error_type", "row"),
    [(t, r) for r in NEVER_ROWS for t, s in NEURON_TYPES.items() if s is r.signal],
)
def test_every_type_whose_row_never_replaces_wins_over_any_action(
    error_type: str, row: Rule
) -> None:
    for action in ("TERMINATE_INSTANCE", "RESET", "REBOOT", "RESTART_WORKLOAD"):
        assert neuron_signal(error_type, action) is row.signal


# -- the EKS path reads action= from the condition message, as the kernel-log check does ---------

ACTIONS = ["TERMINATE_INSTANCE", "RESTART_WORKLOAD", "RESET", None]
TYPES = [
    "SRAM_UNCORRECTABLE_ERROR",
    "HBM_UNCORRECTABLE_ERROR",
    "HANG_ON_COLLECTIVES",
    "REPAIRABLE_HBM_UNCORRECTABLE_ERROR",
    "SOMETHING_NEW_ERROR",
]


@pytest.mark.parametrize("action", ACTIONS)
@pytest.mark.parametrize("error", TYPES)
def test_the_npd_condition_and_the_kernel_line_route_alike(error: str, action: str | None) -> None:
    [kernel] = judged([line(error, action)])
    nodes = condition_node(f"NeuronHasError_{error}", f"kernel: {line(error, action)}")
    npd = neuron_finding(judge_node_health(nodes, "Automatic"))
    assert npd.evidence["remediation"] == kernel.evidence["remediation"]
    assert npd.status is kernel.status


def test_the_npd_condition_honours_a_workload_restart_the_driver_asks_for() -> None:
    nodes = condition_node(
        "NeuronHasError_SRAM_UNCORRECTABLE_ERROR",
        line("SRAM_UNCORRECTABLE_ERROR", "RESTART_WORKLOAD"),
    )
    finding = neuron_finding(judge_node_health(nodes, "Automatic"))
    assert finding.evidence["remediation"] == Signal.NEURON_ACTION_RESTART_WORKLOAD
    assert "replace the node" not in finding.message


# -- "not repairable" is not "repairable" ---------------------------------------------------------


@pytest.mark.parametrize(
    "error",
    [
        "NON_REPAIRABLE_HBM_UNCORRECTABLE_ERROR",
        "HBM_NONREPAIRABLE_UNCORRECTABLE_ERROR",
        "HBM_IRREPAIRABLE_ERROR",
        "UNREPAIRABLE_HBM_ERROR",
        "HBM_NOT_REPAIRABLE",
        "NeuronHasError_NON_REPAIRABLE_HBM",
    ],
)
def test_an_unrepairable_hbm_error_in_any_spelling_is_the_replace_row(error: str) -> None:
    assert neuron_type_signal(error) is Signal.NEURON_HBM_UE
    assert rule(neuron_type_signal(error)).replacement is Replacement.IMMEDIATELY


def test_a_not_repairable_type_that_names_no_hbm_is_not_taken_for_the_repairable_row() -> None:
    assert neuron_type_signal("NON_REPAIRABLE_SOMETHING") is Signal.NEURON_UNKNOWN
