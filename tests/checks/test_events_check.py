"""The registered cluster-events check of tools/checks/events.py against a world:
Continuous mode, DescribeClusterEvent for unexplained errors, history and --node."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from cluster_simulator import base
from cluster_simulator.world import World
from tools.aws.session import AwsAccess
from tools.checks.events import CHECK_ID, cluster_events
from tools.findings import Priority, Status
from tools.target import TriageTarget
from tools.triage.data import ClusterData

from ._events import problems


def world_data(world: World, node_id: str | None = None) -> ClusterData:
    target = TriageTarget(cluster=world.cluster["ClusterName"], region=world.region, node=node_id)
    return ClusterData(AwsAccess(world.region, replay=world), target, now=base.RECORDED_AT)


def test_registered_check_without_continuous_mode_makes_no_call() -> None:
    world = base.healthy_slurm()
    del world.cluster["NodeProvisioningMode"]
    [finding] = list(cluster_events(world_data(world)))
    assert finding.status is Status.INFO
    assert finding.check == CHECK_ID


def test_registered_check_describes_unexplained_errors() -> None:
    world = base.healthy_eks()
    instance = base.instance_id(2)
    world.events.insert(
        0,
        {
            "EventId": "evt-x",
            "InstanceGroupName": base.GPU_GROUP,
            "InstanceId": instance,
            "ResourceType": "Instance",
            "EventTime": base.iso(base.RECORDED_AT - timedelta(hours=1)),
            "Description": "Instance creation in Cluster ml-cluster-eks failed",
            "EventLevel": "Error",
        },
    )
    world.event_metadata["evt-x"] = {
        "Instance": {"FailureMessage": "InsufficientInstanceCapacity in us-west-2c"}
    }
    [finding] = problems(list(cluster_events(world_data(world))))
    assert (finding.section, finding.resources) == ("C", [instance])
    # the instance is still there and Running, its group InService at target: recovered
    assert (finding.status, finding.priority) == (Status.WARN, Priority.P2)


def lifecycle_error(world: World, event_id: str, instance: str, hours_ago: int = 1) -> None:
    world.events.insert(
        0,
        {
            "EventId": event_id,
            "InstanceGroupName": base.GPU_GROUP,
            "InstanceId": instance,
            "ResourceType": "Instance",
            "EventTime": base.iso(base.RECORDED_AT - timedelta(hours=hours_ago)),
            "Description": "Lifecycle script on_create.sh failed",
            "EventLevel": "Error",
        },
    )


def test_registered_check_fails_on_a_node_still_in_failure() -> None:
    world = base.healthy_eks()
    instance = base.instance_id(2)
    world.nodes[1]["InstanceStatus"] = {"Status": "Failure", "Message": "lcs"}
    lifecycle_error(world, "evt-f", instance)
    [finding] = problems(list(cluster_events(world_data(world))))
    assert (finding.status, finding.resources) == (Status.FAIL, [instance])


def test_registered_check_reports_a_replaced_instance_as_history() -> None:
    world = base.healthy_eks()
    lifecycle_error(world, "evt-g", "i-0replacedreplaced")
    findings = list(cluster_events(world_data(world)))
    assert problems(findings) == []
    assert any(f.evidence.get("state") == "gone" for f in findings)


def test_registered_check_asks_for_the_focused_nodes_events() -> None:
    """With --node, the node's events are read with the NodeId filter even when the
    cluster-wide list is capped before them."""
    world = base.healthy_eks()
    instance = base.instance_id(2)
    world.nodes[1]["InstanceStatus"] = {"Status": "Failure", "Message": "lcs"}
    lifecycle_error(world, "evt-old", instance, hours_ago=30)
    for n in range(600):  # newer noise from other nodes pushes it past the cap
        lifecycle_error(world, f"evt-n{n}", base.instance_id(3), hours_ago=1)
        world.events[0]["EventLevel"] = "Info"
    calls: list[dict[str, Any]] = []
    respond = world.respond

    def spy(service: str, operation: str, params: dict[str, Any]) -> Any:
        if operation == "ListClusterEvents":
            calls.append({k: v for k, v in params.items() if k != "NextToken"})
        return respond(service, operation, params)

    world.respond = spy  # type: ignore[method-assign]
    cluster_wide = list(cluster_events(world_data(world)))
    assert not any(f.status is Status.FAIL for f in cluster_wide)
    capped = [f for f in cluster_wide if f.status is Status.WARN]
    assert [f.priority for f in capped] == [Priority.P2]
    calls.clear()
    focused = list(cluster_events(world_data(world, instance)))
    [finding] = [f for f in focused if f.status is Status.FAIL]
    assert finding.resources == [instance]
    assert any(c.get("NodeId") == instance for c in calls)
    # The cluster-wide list (cluster- and group-level events are in scope) is still capped.
    [cap_warning] = [f for f in focused if f.status is Status.WARN]
    assert cap_warning.priority is Priority.P2
    assert "500 cluster-wide events and 2 more of" in cap_warning.message
    assert cap_warning.evidence["node_read"] == 2  # its Info and Error events


def test_focused_node_whose_own_list_is_refused_falls_back_to_the_cluster_list() -> None:
    """A replaced instance may be refused by the NodeId filter (ValidationException)."""
    world = base.healthy_eks()
    instance = base.instance_id(2)
    world.nodes[1]["InstanceStatus"] = {"Status": "Failure", "Message": "lcs"}
    lifecycle_error(world, "evt-f", instance)
    respond = world.respond

    def refuse(service: str, operation: str, params: dict[str, Any]) -> Any:
        if operation == "ListClusterEvents" and params.get("NodeId"):
            from tools.recorded.model import RecordedCall, RecordedError

            error = RecordedError(code="ValidationException", message="bad node", http_status=400)
            return RecordedCall(service=service, operation=operation, params={}, error=error)
        return respond(service, operation, params)

    world.respond = refuse  # type: ignore[method-assign]
    findings = list(cluster_events(world_data(world, instance)))
    [failure] = [f for f in findings if f.status is Status.FAIL]
    assert failure.resources == [instance]
    [note] = [f for f in findings if f.evidence.get("node_error")]
    assert note.status is Status.INFO
    assert "judged from the cluster-wide list" in note.message
