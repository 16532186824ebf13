"""§ F.2 rules of tools/checks/k8s_node_health.py over sample nodes, and the registered check."""

from __future__ import annotations

from typing import Any

import pytest

from cluster_simulator.node_samples import k8s_faults, k8s_objects
from tools.checks.k8s_node_health import CHECK, JudgedNode, judge_node_health, k8s_node_health
from tools.findings import Finding, Priority, Status
from tools.triage.data.kube_model import KubeNode

from ._kube_world import kube_data, world_and_objects

IDS = [f"i-0{n:016x}" for n in range(1, 31)]


def cluster(count: int = 3) -> Any:
    return k8s_objects.healthy_objects(
        [(i, "gpu-workers", "ml.p5.48xlarge", "us-west-2c") for i in IDS[:count]]
    )


def judged(objects: Any) -> list[JudgedNode]:
    nodes = [KubeNode.from_api(n) for n in objects.nodes]
    return [JudgedNode(n.name, n.instance_id, "gpu-workers", n) for n in nodes]


def problems(findings: list[Finding]) -> list[tuple[Status, Priority | None, str]]:
    return [
        (f.status, f.priority, f.section)
        for f in findings
        if f.status in (Status.FAIL, Status.WARN)
    ]


def test_healthy_nodes_pass() -> None:
    findings = judge_node_health(judged(cluster()))
    assert [(f.status, f.check) for f in findings] == [(Status.PASS, CHECK)]


@pytest.mark.parametrize(
    ("label", "priority", "words"),
    [
        ("UnschedulablePendingReplacement", Priority.P0, "will replace it"),
        ("UnschedulablePendingReboot", Priority.P0, "will reboot it"),
        ("Unschedulable", Priority.P1, "deep health checks"),
    ],
)
def test_health_labels_fail_and_say_what_comes_next(
    label: str, priority: Priority, words: str
) -> None:
    objects = k8s_faults.set_node_health(cluster(), IDS[1], label)
    [finding] = [
        f for f in judge_node_health(judged(objects), "Automatic") if f.status is Status.FAIL
    ]
    assert (finding.priority, finding.section, finding.resources) == (priority, "F.2", [IDS[1]])
    assert words in finding.message
    assert IDS[1] in finding.message
    assert finding.evidence["node_health_status"] == label


def test_unschedulable_while_deep_health_checks_run_is_info_not_a_fault() -> None:
    objects = k8s_faults.set_node_health(cluster(), IDS[1], "Unschedulable", deep="InProgress")
    findings = judge_node_health(judged(objects), "Automatic")
    assert problems(findings) == []
    [note] = findings
    assert (note.status, note.priority, note.section, note.resources) == (
        Status.INFO,
        None,
        "F.2",
        [IDS[1]],
    )
    assert "deep health check is running" in note.message
    assert IDS[1] in note.message
    assert note.evidence["deep_health_check_status"] == "InProgress"
    assert not k8s_node(objects, IDS[1]).unhealthy


@pytest.mark.parametrize("deep", ["Passed", None])
def test_unschedulable_without_running_deep_checks_still_fails(deep: str | None) -> None:
    objects = k8s_faults.set_node_health(cluster(), IDS[1], "Unschedulable", deep=deep)
    [finding] = problems_of(judge_node_health(judged(objects)))
    assert (finding.priority, finding.resources) == (Priority.P1, [IDS[1]])
    assert k8s_node(objects, IDS[1]).unhealthy


def test_deep_checks_running_do_not_hide_a_not_ready_node() -> None:
    objects = k8s_faults.set_node_health(cluster(), IDS[1], "Unschedulable", deep="InProgress")
    k8s_faults.set_node_not_ready(objects, IDS[1])
    findings = judge_node_health(judged(objects))
    assert [(f.status, f.priority) for f in findings if f.resources == [IDS[1]]] == [
        (Status.INFO, None),
        (Status.FAIL, Priority.P0),
    ]
    assert k8s_node(objects, IDS[1]).unhealthy


def k8s_node(objects: Any, instance_id: str) -> KubeNode:
    nodes = (KubeNode.from_api(n) for n in objects.nodes)
    return next(n for n in nodes if n.instance_id == instance_id)


def test_node_recovery_none_says_act_yourself() -> None:
    objects = k8s_faults.set_node_health(cluster(), IDS[0], "UnschedulablePendingReboot")
    [finding] = problems_of(judge_node_health(judged(objects), "None"))
    assert "NodeRecovery is None" in finding.message
    assert "§ F.4" in finding.message


def problems_of(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.status is Status.FAIL]


def test_deep_health_failed_points_to_g_then_f() -> None:
    objects = k8s_faults.set_node_health(cluster(), IDS[2], "Schedulable", deep="Failed")
    [finding] = problems_of(judge_node_health(judged(objects)))
    assert (finding.priority, finding.section) == (Priority.P0, "F.2")
    assert "§ G" in finding.message


def test_fault_labels_and_details_are_evidence_plural_or_singular() -> None:
    objects = k8s_faults.set_node_health(
        cluster(),
        IDS[0],
        "UnschedulablePendingReplacement",
        deep="Failed",
        fault=k8s_faults.NodeFault(
            type="NvidiaGpuError",
            reason="XidHardwareFailure",
            details=k8s_faults.xid_fault_details(),
            plural=True,
        ),
    )
    [finding] = problems_of(judge_node_health(judged(objects)))
    assert finding.evidence["fault_type"] == "NvidiaGpuError"
    assert finding.evidence["fault_reason"] == "XidHardwareFailure"
    assert finding.evidence["fault_details"][0]["reason"] == "XidHardwareFailure"
    assert "XidHardwareFailure" in finding.message
    assert "§ G" in finding.message  # deep failure folded into the label finding


@pytest.mark.parametrize("garbage", ["{not json", '"a string"', "[1, 2]", "x" * 50_000])
def test_garbled_fault_details_are_tolerated(garbage: str) -> None:
    objects = k8s_faults.set_node_health(
        cluster(), IDS[0], "UnschedulablePendingReboot", fault=k8s_faults.NodeFault(details=garbage)
    )
    [finding] = problems_of(judge_node_health(judged(objects)))
    assert finding.evidence.get("fault_details_problem")
    assert len(finding.message) < 600


def test_not_ready_and_pressure_conditions() -> None:
    objects = cluster()
    k8s_faults.set_node_not_ready(objects, IDS[0])
    k8s_faults.set_node_not_ready(
        objects,
        IDS[1],
        "False",
        "KubeletNotReady",
        "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady "
        "message:Network plugin returns error: cni plugin not initialized",
    )
    k8s_faults.set_node_pressure(objects, IDS[2], "DiskPressure")
    k8s_faults.set_node_pressure(objects, IDS[2], "MemoryPressure")
    found = {
        (f.resources[0], f.section): f for f in problems_of(judge_node_health(judged(objects)))
    }
    assert found[(IDS[0], "N")].priority is Priority.P0
    assert "NotReady" in found[(IDS[0], "N")].message
    assert found[(IDS[1], "O")].priority is Priority.P0
    assert found[(IDS[2], "I.1")].priority is Priority.P1
    assert found[(IDS[2], "I.2")].priority is Priority.P1


def test_healthy_node_with_fault_history_is_info() -> None:
    objects = k8s_faults.set_node_health(
        cluster(), IDS[0], "Schedulable", fault=k8s_faults.NodeFault(type="NvidiaGpuError")
    )
    findings = judge_node_health(judged(objects))
    assert [f.status for f in findings] == [Status.INFO, Status.PASS]
    assert "past fault" in findings[0].message


def test_many_nodes_with_one_problem_make_one_finding() -> None:
    objects = cluster(30)
    for instance in IDS[:25]:
        k8s_faults.set_node_health(
            objects,
            instance,
            "UnschedulablePendingReplacement",
            fault=k8s_faults.NodeFault(reason="XidHardwareFailure"),
        )
    findings = problems_of(judge_node_health(judged(objects)))
    assert len(findings) == 1
    assert findings[0].evidence["count"] == 25
    assert len(findings[0].resources) == 10
    assert "25 nodes of instance group gpu-workers" in findings[0].message
    assert "XidHardwareFailure (25x)" in findings[0].message
    assert len(problems_of(judge_node_health(judged(objects), group_above=None))) == 25


def test_registered_check_reads_replayed_objects_and_focuses_on_node() -> None:
    world, objects, ids = world_and_objects()
    k8s_faults.set_node_health(objects, ids[1], "UnschedulablePendingReplacement", deep="Failed")
    k8s_faults.set_node_not_ready(objects, ids[3])
    findings = list(k8s_node_health(kube_data(world, objects)))
    assert sorted((f.resources[0], f.priority) for f in problems_of(findings)) == [
        (ids[1], Priority.P0),
        (ids[3], Priority.P0),
    ]
    assert "Automatic" in problems_of(findings)[0].message
    focused = list(k8s_node_health(kube_data(world, objects, node=ids[0])))
    assert [f.status for f in focused] == [Status.PASS]
    data = kube_data(world, objects)
    assert data.kube_unhealthy_instance_ids() == [ids[1], ids[3]]
    assert data.failing_instance_ids()[:2] == [ids[1], ids[3]]


def test_nodes_in_deep_health_checks_are_not_picked_as_failing() -> None:
    world, objects, ids = world_and_objects()
    k8s_faults.set_node_health(objects, ids[0], "Unschedulable", deep="InProgress")
    k8s_faults.set_node_health(objects, ids[2], "Unschedulable", deep="Passed")
    data = kube_data(world, objects)
    assert data.kube_unhealthy_instance_ids() == [ids[2]]
    findings = list(k8s_node_health(data))
    assert [(f.status, f.resources) for f in findings] == [
        (Status.FAIL, [ids[2]]),
        (Status.INFO, [ids[0]]),
    ]
