"""§ A–F event rules of tools/checks/events.py over literal ListClusterEvents dicts."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from evals.clusters import base
from evals.clusters.world import World
from tools.aws.session import AwsAccess
from tools.checks.events import (
    CHECK_ID,
    MAX_DESCRIBED,
    classify,
    cluster_events,
    event_state,
    failure_text,
    group_recovered,
    judge_events,
    needs_detail,
)
from tools.findings import Priority, Status
from tools.triage.data import ClusterData
from tools.triage.target import TriageTarget

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


def event(
    description: str,
    level: str = "Error",
    instance: str | None = "i-0aaa",
    minutes_ago: int = 30,
    event_id: str = "e-1",
    group: str = "gpu-workers",
) -> dict[str, Any]:
    data: dict[str, Any] = {
        "EventId": event_id,
        "ClusterName": "ml-cluster",
        "InstanceGroupName": group,
        "ResourceType": "Instance" if instance else "InstanceGroup",
        "EventTime": (NOW - timedelta(minutes=minutes_ago)).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "Description": description,
        "EventLevel": level,
    }
    if instance:
        data["InstanceId"] = instance
    return data


def problems(findings: list[Any]) -> list[Any]:
    return [f for f in findings if f.status in (Status.FAIL, Status.WARN)]


@pytest.mark.parametrize(
    ("text", "section"),
    [
        ("EFA health checks did not run successfully", "A"),
        ("The EFA connectivity check failed on 2 instances", "A"),
        ("Instance bootstrap failed because of a network misconfiguration", "B"),
        ("Security group sg-123 does not allow traffic from itself", "B"),
        ("Subnet subnet-1 has no free IP addresses", "B"),
        ("Lifecycle script on_create.sh failed on the instance", "D"),
        ("LifeCycleConfig execution timed out after 60 minutes", "D"),
        ("The on_create script returned an error", "D"),
        ("Insufficient capacity for ml.p5.48xlarge", "C"),
        ("InsufficientInstanceCapacity: try another Availability Zone", "C"),
        ("We currently do not have sufficient capacity to launch new ml.p5.48xlarge", "C"),
        ("No subnet in the Availability Zone with capacity", "C"),
        ("Node marked UnschedulablePendingReplacement after hardware fault", "F"),
        ("Instance failed deep health check and will be replaced", "F"),
        ("Instance reboot initiated by health monitoring", "F"),
    ],
)
def test_classify_families(text: str, section: str) -> None:
    family = classify(text)
    assert family is not None
    assert family.section == section


def test_classify_ignores_the_events_own_names() -> None:
    # "gpu-workers" must not look like a GPU fault, "vpc-test" not like a VPC problem
    generic = event("Instance creation in Cluster vpc-test and InstanceGroup gpu-workers failed")
    generic["ClusterName"] = "vpc-test"
    assert classify(str(generic["Description"]), generic) is None


def test_unavailable_is_one_info_and_nothing_else() -> None:
    [finding] = judge_events([], available=False)
    assert finding.status is Status.INFO
    assert "events unavailable" in finding.message.lower()
    assert "Continuous" in finding.message


def test_error_event_fails_p0_in_its_section_with_count_latest_and_instances() -> None:
    findings = judge_events(
        [
            event("Lifecycle script failed (old)", instance="i-0b", minutes_ago=90, event_id="1"),
            event("Lifecycle script failed (new)", instance="i-0a", minutes_ago=10, event_id="2"),
        ],
        now=NOW,
    )
    [finding] = problems(findings)
    assert finding.status is Status.FAIL
    assert finding.priority is Priority.P0
    assert finding.section == "D"
    assert finding.resources == ["i-0a", "i-0b"]
    assert finding.evidence["count"] == 2
    assert "(new)" in finding.message
    assert "2 Error events" in finding.message


def test_warn_event_warns_p1() -> None:
    [finding] = problems(judge_events([event("Insufficient capacity", level="Warn")], now=NOW))
    assert finding.status is Status.WARN
    assert finding.priority is Priority.P1
    assert finding.section == "C"


def test_network_events_point_to_b_and_mention_a() -> None:
    [finding] = problems(judge_events([event("Bootstrap failed: VPC misconfigured")], now=NOW))
    assert finding.section == "B"
    assert "§ A" in finding.message


def test_efa_events_point_to_a() -> None:
    [finding] = problems(
        judge_events([event("EFA health checks did not run successfully")], now=NOW)
    )
    assert (finding.status, finding.section) == (Status.FAIL, "A")


def test_unmapped_error_warns_p1_in_f_with_the_description() -> None:
    [finding] = problems(judge_events([event("Something odd happened")], now=NOW))
    assert finding.status is Status.WARN
    assert finding.priority is Priority.P1
    assert finding.section == "F"
    assert "Something odd happened" in finding.message


def test_info_events_are_not_judged() -> None:
    findings = judge_events([event("Lifecycle scripts completed", level="Info")], now=NOW)
    assert problems(findings) == []
    assert findings[-1].status is Status.PASS


def test_one_finding_per_family_and_level() -> None:
    findings = problems(
        judge_events(
            [
                event("Lifecycle script failed", event_id="1"),
                event("Lifecycle script failed again", event_id="2", instance="i-0b"),
                event("Insufficient capacity", event_id="3"),
                event("Lifecycle script slow", level="Warn", event_id="4"),
            ],
            now=NOW,
        )
    )
    assert sorted((f.section, f.status.value) for f in findings) == [
        ("C", "FAIL"),
        ("D", "FAIL"),
        ("D", "WARN"),
    ]


def test_described_failure_message_classifies_a_generic_description() -> None:
    generic = event("Instance creation in Cluster ml-cluster and InstanceGroup gpu-workers failed")
    detail = {
        "EventDetails": {
            "EventMetadata": {
                "Instance": {"FailureMessage": "We currently do not have sufficient capacity"}
            }
        }
    }
    [finding] = problems(judge_events([generic], details={"e-1": detail}, now=NOW))
    assert (finding.status, finding.section) == (Status.FAIL, "C")
    assert "sufficient capacity" in finding.message


def test_needs_detail_only_for_unexplained_errors_and_bounded() -> None:
    events = [event("Lifecycle script failed", event_id="mapped")]
    events += [event("Instance creation failed", event_id=f"u{i}", minutes_ago=i) for i in range(9)]
    events.append(event("Instance creation failed", level="Warn", event_id="warn"))
    wanted = needs_detail(events)
    assert len(wanted) == MAX_DESCRIBED
    assert wanted[0] == "u0"  # newest first
    assert "mapped" not in wanted
    assert "warn" not in wanted


def test_failure_text_is_lenient() -> None:
    assert failure_text({}) == ""
    assert failure_text({"EventDetails": {"EventMetadata": {"Instance": "garbage"}}}) == ""
    text = failure_text(
        {
            "EventDetails": {
                "EventMetadata": {
                    "Instance": {"FailureMessage": "boom", "LcsExecutionState": "Failed"}
                }
            }
        }
    )
    assert "boom" in text
    assert "Failed" in text


def test_truncated_event_list_warns_p2() -> None:
    findings = judge_events([], truncated=True, now=NOW)
    [capped] = problems(findings)
    assert (capped.status, capped.priority) == (Status.WARN, Priority.P2)
    assert "500" in capped.message
    assert "--node" in capped.message


def test_complete_event_list_has_no_cap_warning() -> None:
    assert problems(judge_events([], truncated=False, now=NOW)) == []


GROUPS = {
    "gpu-workers": {
        "InstanceGroupName": "gpu-workers",
        "Status": "InService",
        "CurrentCount": 4,
        "TargetCount": 4,
    },
    "short": {
        "InstanceGroupName": "short",
        "Status": "InService",
        "CurrentCount": 3,
        "TargetCount": 4,
    },
}


def test_error_on_an_instance_no_longer_in_the_cluster_is_history_info() -> None:
    findings = judge_events(
        [event("Lifecycle script failed", instance="i-gone")],
        now=NOW,
        nodes={"i-0aaa": "Running"},
        groups=GROUPS,
    )
    assert problems(findings) == []
    [history] = [f for f in findings if f.evidence.get("state") == "gone"]
    assert history.status is Status.INFO
    assert history.resources == ["i-gone"]
    assert "no longer in the cluster" in history.message
    assert history.message.startswith("History:")


def test_error_whose_group_recovered_and_instance_runs_warns_p2() -> None:
    findings = judge_events(
        [event("Lifecycle script failed", instance="i-0aaa")],
        now=NOW,
        nodes={"i-0aaa": "Running"},
        groups=GROUPS,
    )
    [finding] = problems(findings)
    assert (finding.status, finding.priority) == (Status.WARN, Priority.P2)
    assert finding.section == "D"
    assert "since recovered" in finding.message
    assert finding.evidence["state"] == "recovered"


def test_error_on_an_instance_still_failing_stays_fail_p0() -> None:
    findings = judge_events(
        [event("Lifecycle script failed", instance="i-0aaa")],
        now=NOW,
        nodes={"i-0aaa": "Failure"},
        groups=GROUPS,
    )
    [finding] = problems(findings)
    assert (finding.status, finding.priority) == (Status.FAIL, Priority.P0)
    assert finding.evidence["state"] == "current"


def test_error_in_a_group_below_target_stays_fail_p0() -> None:
    findings = judge_events(
        [event("Insufficient capacity", instance=None, group="short")],
        now=NOW,
        nodes={},
        groups=GROUPS,
    )
    [finding] = problems(findings)
    assert (finding.status, finding.section) == (Status.FAIL, "C")


def test_group_level_error_of_a_recovered_group_warns_p2() -> None:
    findings = judge_events(
        [event("Insufficient capacity", instance=None)], now=NOW, nodes={}, groups=GROUPS
    )
    [finding] = problems(findings)
    assert (finding.status, finding.priority) == (Status.WARN, Priority.P2)


def test_without_a_node_list_only_the_group_decides() -> None:
    # The node list is capped or unreadable: absence proves nothing, so nothing is "gone".
    findings = judge_events(
        [event("Lifecycle script failed", instance="i-gone", group="short")],
        now=NOW,
        nodes=None,
        groups=GROUPS,
    )
    [finding] = problems(findings)
    assert finding.status is Status.FAIL


def test_states_split_one_family_into_separate_findings() -> None:
    findings = judge_events(
        [
            event("Lifecycle script failed", instance="i-0aaa", event_id="1"),
            event("Lifecycle script failed", instance="i-gone", event_id="2"),
        ],
        now=NOW,
        nodes={"i-0aaa": "Failure"},
        groups=GROUPS,
    )
    assert sorted((f.status.value, f.evidence.get("state")) for f in findings) == [
        ("FAIL", "current"),
        ("INFO", "gone"),
    ]


def test_event_state_is_lenient() -> None:
    assert event_state({}, None, None) == "current"
    assert event_state({"InstanceGroupName": "x"}, {}, {"x": "garbage"}) == "current"  # type: ignore[dict-item]
    assert not group_recovered({"Status": "InService", "CurrentCount": "4", "TargetCount": 4})


def test_focus_node_keeps_its_events_and_group_level_ones() -> None:
    findings = judge_events(
        [
            event("Lifecycle script failed", instance="i-other", event_id="1"),
            event("Insufficient capacity", instance=None, event_id="2"),
        ],
        node="i-focus",
        now=NOW,
    )
    assert [f.section for f in problems(findings)] == ["C"]


def test_old_events_are_reported_not_judged() -> None:
    findings = judge_events([event("Lifecycle script failed", minutes_ago=60 * 24 * 30)], now=NOW)
    assert problems(findings) == []
    assert any(f.status is Status.INFO and "older" in f.message for f in findings)


def test_garbage_events_do_not_crash() -> None:
    findings = judge_events(
        [{"EventLevel": "Error"}, {"EventLevel": "Warn", "EventTime": "not a time"}, "x"],  # type: ignore[list-item]
        now=NOW,
    )
    assert all(f.section == "F" for f in problems(findings))


def test_description_is_clipped_data() -> None:
    [finding] = problems(judge_events([event("Lifecycle failed\n" + "A" * 1000)], now=NOW))
    assert "\n" not in finding.message
    assert len(finding.message) < 500


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
    assert not any(f.status is Status.WARN for f in focused)
