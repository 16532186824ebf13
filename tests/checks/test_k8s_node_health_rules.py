"""§ F.2 k8s-node-health: the per-node rules and the grouping rule alone, without words."""

from __future__ import annotations

from tools.checks.k8s_node_health import (
    AllHealthy,
    GroupProblem,
    JudgedNode,
    LabelState,
    NodeProblem,
    PastFault,
    health_verdicts,
    label_problem,
    node_problems,
    ready_problem,
)
from tools.findings import Priority, Status
from tools.triage.data.kube_model import Condition, KubeNode


def kube_node(
    name: str = "n-1",
    health: str | None = "Schedulable",
    deep: str | None = None,
    conditions: tuple[Condition, ...] = (Condition("Ready", "True", "", ""),),
    fault_reason: str | None = None,
) -> KubeNode:
    return KubeNode(name, "i-1", health, deep, "gpu", None, fault_reason, (), None, conditions)


def test_health_labels_decide_state_and_severity() -> None:
    reboot = label_problem(kube_node(health="UnschedulablePendingReboot"), "Automatic")
    assert reboot is not None
    assert (reboot.key, reboot.state) == (
        "health:UnschedulablePendingReboot",
        LabelState.PENDING_REBOOT,
    )
    assert (reboot.severity.status, reboot.severity.priority) == (Status.FAIL, Priority.P0)
    running = label_problem(kube_node(health="Unschedulable", deep="InProgress"), None)
    assert running is not None
    assert (running.state, running.severity.status) == (LabelState.DEEP_CHECK_RUNNING, Status.INFO)


def test_a_failed_deep_check_counts_only_without_a_problem_label() -> None:
    failed = label_problem(kube_node(deep="Failed"), None)
    assert failed is not None
    assert (failed.key, failed.state) == ("deep:Failed", LabelState.DEEP_CHECK_FAILED)
    assert label_problem(kube_node(), None) is None


def test_not_ready_points_to_the_network_or_the_runtime() -> None:
    cni = Condition("Ready", "False", "KubeletNotReady", "network plugin not ready: cni")
    runtime = Condition("Ready", "False", "KubeletNotReady", "container runtime is down")
    unknown = Condition("Ready", "Unknown", "NodeStatusUnknown", "")
    sections = [ready_problem(kube_node(conditions=(c,))) for c in (cni, runtime, unknown)]
    assert [(p.key, p.severity.section) for p in sections if p] == [
        ("ready:False", "O"),
        ("ready:False", "M"),
        ("ready:Unknown", "N"),
    ]


def test_problems_come_labels_ready_pressure_then_neuron() -> None:
    conditions = (
        Condition("NeuronHealth", "True", "NeuronHasError_SRAM", ""),
        Condition("MemoryPressure", "True", "", ""),
        Condition("Ready", "Unknown", "", ""),
    )
    node = kube_node(health="Unschedulable", conditions=conditions)
    assert [p.key for p in node_problems(node, None)] == [
        "health:Unschedulable",
        "ready:Unknown",
        "pressure:MemoryPressure",
        "neuron:NeuronHasError_SRAM",
    ]


def test_grouping_past_faults_and_the_all_healthy_verdict() -> None:
    sick = [
        JudgedNode(f"n-{i}", f"i-{i}", "gpu", kube_node(f"n-{i}", "Unschedulable")) for i in (2, 1)
    ]
    old = JudgedNode("n-3", "i-3", "gpu", kube_node("n-3", fault_reason="NvidiaGpuXidError"))
    apart = health_verdicts([*sick, old], None, group_above=2)
    assert [type(v) for v in apart] == [NodeProblem, NodeProblem, PastFault]
    assert [v.judged.name for v in apart if isinstance(v, NodeProblem)] == ["n-1", "n-2"]
    [grouped, past] = health_verdicts([*sick, old], None, group_above=1)
    assert isinstance(grouped, GroupProblem)
    assert [j.name for j, _ in grouped.members] == ["n-2", "n-1"]
    assert past == PastFault(old)
    # A past fault is no problem: the nodes still pass.
    assert health_verdicts([old], None, group_above=None) == [PastFault(old), AllHealthy(1)]
