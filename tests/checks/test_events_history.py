"""Events are history: tools/checks/events.py tells events about what is still wrong from
those about replaced instances (INFO) and recovered instance groups (WARN P2)."""

from __future__ import annotations

from tools.findings import Priority, Status

from ._events import NOW, event, event_state, group_recovered, judge_events, problems

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
    assert event_state({"InstanceGroupName": "x"}, {}, {"x": "garbage"}) == "current"
    assert not group_recovered({"Status": "InService", "CurrentCount": "4", "TargetCount": 4})


def test_failed_launch_that_never_joined_a_short_group_stays_fail_p0() -> None:
    # The launch failed, so the instance never joined: the group is still short.
    findings = judge_events(
        [event("InsufficientInstanceCapacity", instance="i-neverjoined", group="short")],
        now=NOW,
        nodes={"i-0aaa": "Running"},
        groups=GROUPS,
    )
    [finding] = problems(findings)
    assert (finding.status, finding.priority, finding.section) == (Status.FAIL, Priority.P0, "C")
    assert finding.evidence["state"] == "current"


def test_missing_instance_of_a_group_not_in_service_is_current() -> None:
    groups = {"gpu-workers": {**GROUPS["gpu-workers"], "Status": "Updating"}}
    state = event_state({"InstanceId": "i-x", "InstanceGroupName": "gpu-workers"}, {}, groups)
    assert state == "current"


def test_missing_instance_of_a_removed_group_is_history() -> None:
    state = event_state({"InstanceId": "i-x", "InstanceGroupName": "gone-group"}, {}, GROUPS)
    assert state == "gone"


def test_cluster_level_error_of_an_in_service_cluster_warns_p2() -> None:
    cluster_level = event("Cluster creation failed: VPC misconfigured", instance=None, group="")
    del cluster_level["InstanceGroupName"]
    recovered = judge_events(
        [cluster_level], now=NOW, nodes={}, groups=GROUPS, cluster_status="InService"
    )
    [finding] = problems(recovered)
    assert (finding.status, finding.priority) == (Status.WARN, Priority.P2)
    assert "the cluster is InService" in finding.message
    failing = judge_events(
        [cluster_level], now=NOW, nodes={}, groups=GROUPS, cluster_status="Failed"
    )
    [finding] = problems(failing)
    assert (finding.status, finding.priority) == (Status.FAIL, Priority.P0)
