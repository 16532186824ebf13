"""§ M / § O rules of tools/checks/k8s_pod_failures.py and the registered check."""

from __future__ import annotations

from cluster_simulator.node_samples import k8s_faults, k8s_node, k8s_objects
from tools.checks.k8s_pod_failures import judge_pods, judge_sandbox_events, k8s_pod_failures
from tools.findings import Priority, Status

from ._kube_world import kube_data, parsed_events, parsed_pods, world_and_objects


def test_image_pull_and_oom_fail_p1_in_m() -> None:
    _, objects, ids = world_and_objects()
    k8s_faults.image_pull_backoff(objects, ids[0])
    k8s_faults.oom_killed(objects, ids[1])
    nodes = {k8s_node.node_name(i): i for i in ids}
    findings = judge_pods(parsed_pods(objects.pods), dict(nodes))
    assert [(f.status, f.priority, f.section) for f in findings] == [
        (Status.FAIL, Priority.P1, "M")
    ] * 2
    pull, oom = findings
    assert "ImagePullBackOff" in pull.message
    assert pull.resources == [ids[0]]
    assert "OOMKilled" in oom.message
    assert "§ I.2" in oom.message
    assert oom.evidence["restarts"] == 3


def test_each_waiting_failure_reason_is_judged() -> None:
    _, objects, _ = world_and_objects()
    reasons = [
        "CrashLoopBackOff",
        "ErrImagePull",
        "RunContainerError",
        "CreateContainerConfigError",
    ]
    workload = [
        p for p in objects.pods if p["metadata"]["namespace"] == k8s_objects.WORKLOAD_NAMESPACE
    ]
    for pod, reason in zip(workload, reasons, strict=False):
        pod["status"]["containerStatuses"][0]["state"] = {"waiting": {"reason": reason}}
    found = sorted(f.evidence["reason"] for f in judge_pods(parsed_pods(objects.pods), {}))
    assert found == sorted(reasons)


def test_network_system_pods_are_left_to_k8s_cni() -> None:
    _, objects, ids = world_and_objects()
    k8s_faults.aws_node_crashloop(objects, ids[0])
    assert judge_pods(parsed_pods(objects.pods), {}) == []


def test_many_failures_of_one_reason_are_grouped() -> None:
    _, objects, ids = world_and_objects()
    template = next(
        p for p in objects.pods if p["metadata"]["namespace"] == k8s_objects.WORKLOAD_NAMESPACE
    )
    pods = []
    for n in range(25):
        pod = {**template, "metadata": {**template["metadata"], "name": f"w-{n}"}}
        pod["status"] = {
            "phase": "Running",
            "containerStatuses": [
                {
                    "name": "pytorch",
                    "restartCount": 9,
                    "state": {"waiting": {"reason": "CrashLoopBackOff"}},
                }
            ],
        }
        pods.append(pod)
    [grouped] = judge_pods(parsed_pods(pods), {k8s_node.node_name(ids[0]): ids[0]})
    assert grouped.evidence["count"] == 25
    assert "25 pod containers are CrashLoopBackOff" in grouped.message
    assert len(judge_pods(parsed_pods(pods), {}, group_above=None)) == 25


def test_sandbox_events_group_per_node_with_ipamd_hint() -> None:
    _, objects, ids = world_and_objects()
    k8s_faults.sandbox_failure(objects, ids[2])
    k8s_faults.sandbox_failure(objects, ids[2], message="failed to assign an IP address", count=4)
    nodes = {k8s_node.node_name(i): i for i in ids}
    [finding] = judge_sandbox_events(parsed_events(objects.events), dict(nodes), {})
    assert (finding.status, finding.priority, finding.section) == (Status.FAIL, Priority.P1, "O")
    assert finding.evidence["events"] == 27
    assert finding.resources == [ids[2]]
    events = parsed_events(objects.events)
    assert judge_sandbox_events(events, dict(nodes), {}, scope=["elsewhere"]) == []


def test_registered_check_scopes_to_the_focused_node() -> None:
    world, objects, ids = world_and_objects()
    assert [f.status for f in k8s_pod_failures(kube_data(world, objects))] == [Status.PASS]
    k8s_faults.image_pull_backoff(objects, ids[0])
    k8s_faults.sandbox_failure(objects, ids[2])
    everywhere = list(k8s_pod_failures(kube_data(world, objects)))
    assert sorted(f.section for f in everywhere) == ["M", "O"]
    focused = list(k8s_pod_failures(kube_data(world, objects, node=ids[2])))
    assert [(f.section, f.resources) for f in focused] == [("O", [ids[2]])]
    assert [f.status for f in k8s_pod_failures(kube_data(world, objects, node=ids[1]))] == [
        Status.PASS
    ]


def test_oom_kill_at_the_containers_own_limit_is_a_workload_warning() -> None:
    _, objects, ids = world_and_objects()
    k8s_faults.oom_killed(objects, ids[1], memory_limit="64Gi")
    nodes = {k8s_node.node_name(i): i for i in ids}
    [finding] = judge_pods(parsed_pods(objects.pods), dict(nodes))
    assert (finding.status, finding.priority, finding.section) == (Status.WARN, Priority.P2, "M")
    assert finding.message.startswith("Workload signal, not a node fault: pod training/")
    assert "at its own memory limit (limits.memory 64Gi; exit code 137, 3 restarts)" in (
        finding.message
    )
    assert not any(word in finding.message for word in ("reboot", "replace", "§ I.2"))
    assert finding.evidence["memory_limit"] == "64Gi"
    assert finding.evidence["workload"] is True
    assert finding.resources == [ids[1]]


def test_crash_loop_of_oom_kills_at_the_limit_is_still_the_workload() -> None:
    _, objects, ids = world_and_objects()
    k8s_faults.oom_killed(objects, ids[1], memory_limit="8Gi")
    pod = k8s_objects.find_workload(objects, ids[1])
    pod["status"]["containerStatuses"][0]["state"] = {
        "waiting": {"reason": "CrashLoopBackOff", "message": "back-off 5m0s restarting"}
    }
    [finding] = judge_pods(parsed_pods(objects.pods), {})
    assert (finding.status, finding.priority) == (Status.WARN, Priority.P2)
    assert "now in CrashLoopBackOff" in finding.message
    # Without a limit of its own, the same crash loop stays a failure.
    del pod["spec"]["containers"][0]["resources"]["limits"]
    [failure] = judge_pods(parsed_pods(objects.pods), {})
    assert (failure.status, failure.evidence["reason"]) == (Status.FAIL, "CrashLoopBackOff")


def test_the_memory_limit_survives_slimming() -> None:
    from tools.kube.slim import slim

    _, objects, ids = world_and_objects()
    k8s_faults.oom_killed(objects, ids[0], memory_limit="16Gi")
    slimmed = [slim("pods", p) for p in objects.pods]
    [finding] = judge_pods(parsed_pods(slimmed), {})
    assert finding.evidence["memory_limit"] == "16Gi"


def test_many_oom_kills_at_their_limits_group_as_one_warning() -> None:
    _, objects, ids = world_and_objects()
    k8s_faults.oom_killed(objects, ids[0], memory_limit="8Gi")
    template = k8s_objects.find_workload(objects, ids[0])
    pods = [{**template, "metadata": {**template["metadata"], "name": f"w-{n}"}} for n in range(25)]
    [grouped] = judge_pods(parsed_pods(pods), {k8s_node.node_name(ids[0]): ids[0]})
    assert (grouped.status, grouped.priority) == (Status.WARN, Priority.P2)
    assert "25 pod containers were OOMKilled at their own memory limits" in grouped.message
    assert grouped.evidence["workload"] is True
