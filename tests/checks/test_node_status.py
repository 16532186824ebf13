"""§ F rules of tools/checks/node_status.py over literal ListClusterNodes / DescribeClusterNode
dicts."""

from __future__ import annotations

from typing import Any

import pytest

from cluster_simulator import base
from cluster_simulator.world import World
from tools.aws.session import AwsAccess
from tools.checks import node_status
from tools.checks._grouping import GROUP_ABOVE
from tools.checks.node_status import CHECK_DETAIL, CHECK_NODES, SAMPLES, cluster_nodes, node_detail
from tools.findings import Finding, Priority, Status
from tools.target import TriageTarget
from tools.triage.data import ClusterData
from tools.triage.data.sagemaker_model import ClusterNode


# The rules take parsed nodes; the cases stay literal ListClusterNodes / DescribeClusterNode
# answers.
def judge_node_counts(nodes: list[dict[str, Any]], **options: Any) -> list[Finding]:
    return node_status.judge_node_counts([ClusterNode.from_api(n) for n in nodes], **options)


def judge_node_status(nodes: list[dict[str, Any]], **options: Any) -> list[Finding]:
    return node_status.judge_node_status([ClusterNode.from_api(n) for n in nodes], **options)


def judge_node_detail(node_id: str, detail: dict[str, Any] | None) -> list[Finding]:
    parsed = ClusterNode.from_api(detail) if detail is not None else None
    return node_status.judge_node_detail(node_id, parsed)


def node(instance: str, status: Any = "Running", message: str = "", group: str = "gpu") -> Any:
    return {
        "InstanceGroupName": group,
        "InstanceId": instance,
        "InstanceType": "ml.p5.48xlarge",
        "InstanceStatus": {"Status": status, "Message": message},
    }


def world_data(world: World, node_id: str | None = None) -> ClusterData:
    target = TriageTarget(cluster=world.cluster["ClusterName"], region=world.region, node=node_id)
    return ClusterData(AwsAccess(world.region, replay=world), target, now=base.RECORDED_AT)


def test_counts_per_group_by_status() -> None:
    findings = judge_node_counts(
        [node("i-1"), node("i-2", "Failure"), node("i-3", group="cpu")], truncated=False
    )
    assert [f.status for f in findings] == [Status.INFO, Status.INFO]
    cpu, gpu = findings
    assert cpu.evidence["counts"] == {"Running": 1}
    assert gpu.evidence["counts"] == {"Failure": 1, "Running": 1}
    assert "2 nodes (1 Failure, 1 Running)" in gpu.message
    assert "1 node (1 Running)" in cpu.message


def test_cap_hit_warns_p2_and_points_to_node() -> None:
    findings = judge_node_counts([node("i-1")], truncated=True, cap=20_000)
    [capped] = [f for f in findings if f.status is Status.WARN]
    assert capped.priority is Priority.P2
    assert "20,000" in capped.message
    assert "--node" in capped.message


def test_empty_node_list_is_info() -> None:
    [finding] = judge_node_counts([])
    assert finding.status is Status.INFO


@pytest.mark.parametrize("status", ["Failure", "NotFound"])
def test_failed_nodes_fail_p0_with_message_and_id(status: str) -> None:
    [finding] = judge_node_status([node("i-0abc", status, "GPU count mismatch (7/8)")])
    assert finding.status is Status.FAIL
    assert finding.priority is Priority.P0
    assert finding.section == "F"
    assert finding.resources == ["i-0abc"]
    assert "GPU count mismatch (7/8)" in finding.message
    assert status in finding.message
    assert finding.evidence["status"] == status


@pytest.mark.parametrize(
    "status", ["Pending", "ShuttingDown", "DetachInProgress", "AttachInProgress"]
)
def test_transient_nodes_warn_p1(status: str) -> None:
    [finding] = judge_node_status([node("i-0abc", status)])
    assert finding.status is Status.WARN
    assert finding.priority is Priority.P1
    assert finding.resources == ["i-0abc"]


@pytest.mark.parametrize("status", ["SystemUpdating", "DeepHealthCheckInProgress"])
def test_expected_transitions_are_info(status: str) -> None:
    [finding] = judge_node_status([node("i-0abc", status)])
    assert finding.status is Status.INFO
    assert "expected" in finding.message


def test_unknown_status_warns_p2() -> None:
    [finding] = judge_node_status([node("i-0abc", "Hibernating")])
    assert finding.status is Status.WARN
    assert finding.priority is Priority.P2


def test_all_running_passes() -> None:
    [finding] = judge_node_status([node("i-1"), node("i-2")])
    assert finding.status is Status.PASS
    assert finding.check == CHECK_NODES


def test_node_recovery_none_is_named_on_failures() -> None:
    [finding] = judge_node_status([node("i-1", "Failure", "bad")], node_recovery="None")
    assert "NodeRecovery is None" in finding.message
    [finding] = judge_node_status([node("i-1", "Failure", "bad")], node_recovery="Automatic")
    assert "NodeRecovery" not in finding.message


def test_status_message_is_clipped_and_on_one_line() -> None:
    long = "line one\nline two\r " + "x" * 500
    [finding] = judge_node_status([node("i-1", "Failure", long)])
    assert "\n" not in finding.message
    assert len(finding.evidence["status_message"]) <= 200
    assert not finding.message.endswith(".")


def test_garbage_nodes_do_not_crash() -> None:
    findings = judge_node_status([{}, {"InstanceStatus": "weird"}, {"InstanceId": "i-9"}])
    assert all(f.status is Status.WARN for f in findings)
    assert judge_node_counts([{}])[0].evidence["counts"] == {"Unknown": 1}


def test_many_nodes_in_one_status_make_one_finding_per_group_and_status() -> None:
    count = GROUP_ABOVE * 50  # a rolling update of a large group
    nodes = [
        node(f"i-{n:05d}", "Pending", "Waiting for capacity" if n % 3 else "Booting")
        for n in range(count)
    ]
    nodes += [node(f"i-f{n}", "Failure", "GPU count mismatch", group="cpu") for n in range(3)]
    nodes += [node("i-ok")]
    findings = judge_node_status(nodes)
    pending = [f for f in findings if f.evidence.get("status") == "Pending"]
    failed = [f for f in findings if f.evidence.get("status") == "Failure"]
    [grouped] = pending
    assert grouped.status is Status.WARN
    assert grouped.priority is Priority.P1
    assert grouped.evidence["count"] == count
    assert grouped.evidence["group"] == "gpu"
    assert len(grouped.resources) == SAMPLES
    assert grouped.resources == sorted(grouped.resources)
    assert grouped.evidence["sample_instances"] == grouped.resources
    assert f"{count:,} nodes of instance group gpu have status Pending" in grouped.message
    top = grouped.evidence["common_messages"][0]
    waiting = sum(1 for n in range(count) if n % 3)
    assert top == {"message": "Waiting for capacity", "count": waiting}
    assert '"Waiting for capacity"' in grouped.message
    assert len(grouped.message) < 500
    # below the threshold, still one finding per node
    assert [f.resources for f in failed] == [["i-f0"], ["i-f1"], ["i-f2"]]
    assert all(f.status is Status.FAIL for f in failed)


def test_exactly_the_threshold_stays_per_node() -> None:
    nodes = [node(f"i-{n:03d}", "Failure", "bad") for n in range(GROUP_ABOVE)]
    findings = judge_node_status(nodes)
    assert len(findings) == GROUP_ABOVE
    assert all(len(f.resources) == 1 for f in findings)


def test_grouped_failures_fail_p0_and_name_node_recovery() -> None:
    nodes = [node(f"i-{n:03d}", "Failure", f"reason {n % 5}") for n in range(GROUP_ABOVE + 1)]
    [finding] = judge_node_status(nodes, node_recovery="None")
    assert (finding.status, finding.priority) == (Status.FAIL, Priority.P0)
    assert "NodeRecovery is None" in finding.message
    assert len(finding.evidence["common_messages"]) == 3


def test_grouping_can_be_turned_off() -> None:
    nodes = [node(f"i-{n:03d}", "SystemUpdating") for n in range(GROUP_ABOVE + 5)]
    assert len(judge_node_status(nodes)) == 1
    per_node = judge_node_status(nodes, group_above=None)
    assert len(per_node) == GROUP_ABOVE + 5
    assert all(f.status is Status.INFO for f in per_node)


def test_grouped_hostile_status_and_messages_are_clipped() -> None:
    nodes = [
        node(f"i-{n:03d}", "Weird\nStatus" + "S" * 300, "line\n" + "x" * 900)
        for n in range(GROUP_ABOVE + 1)
    ]
    [finding] = judge_node_status(nodes)
    assert finding.status is Status.WARN
    assert "\n" not in finding.message
    assert len(finding.message) < 700


def test_unknown_node_detail_fails() -> None:
    [finding] = judge_node_detail("i-0deadbeefdeadbeef", None)
    assert finding.status is Status.FAIL
    assert finding.check == CHECK_DETAIL
    assert finding.priority is not None
    assert "i-0deadbeefdeadbeef is not in this cluster" in finding.message
    assert finding.resources == ["i-0deadbeefdeadbeef"]


def test_known_node_detail_is_info() -> None:
    detail = {
        **node("i-1"),
        "Placement": {"AvailabilityZone": "us-west-2c"},
        "PrivatePrimaryIp": "10.1.0.11",
        "ThreadsPerCore": 2,
    }
    [finding] = judge_node_detail("i-1", detail)
    assert finding.status is Status.INFO
    assert "us-west-2c" in finding.message
    assert "10.1.0.11" in finding.message


def test_known_node_detail_with_garbage_placement() -> None:
    [finding] = judge_node_detail("i-1", {"Placement": "nowhere"})
    assert finding.status is Status.INFO


def test_registered_check_with_an_unknown_node_fails_without_raising() -> None:
    data = world_data(base.healthy_eks(), "i-0deadbeefdeadbeef")
    [finding] = list(node_detail(data))
    assert finding.status is Status.FAIL
    # the per-node status findings are scoped to the focused node (none here)
    statuses = [f.status for f in cluster_nodes(data)]
    assert statuses == [Status.INFO, Status.INFO]


def test_registered_check_scopes_status_findings_to_the_focused_node() -> None:
    world = base.healthy_eks()
    failing, other = base.instance_id(2), base.instance_id(3)
    for summary in world.nodes:
        if summary["InstanceId"] in (failing, other):
            summary["InstanceStatus"] = {"Status": "Failure", "Message": "broken"}
    findings = list(cluster_nodes(world_data(world, failing)))
    problems = [f for f in findings if f.status is Status.FAIL]
    assert [f.resources for f in problems] == [[failing]]
    # counts stay cluster-wide
    gpu = next(f for f in findings if f.evidence.get("group") == base.GPU_GROUP)
    assert gpu.evidence["counts"] == {"Failure": 2, "Running": 2}


def test_registered_check_groups_a_rolling_update_but_not_the_focused_node() -> None:
    world = base.healthy_eks()
    extra = [
        {**world.nodes[0], "InstanceId": f"i-0{n:016x}", "InstanceStatus": {"Status": "Pending"}}
        for n in range(100, 100 + GROUP_ABOVE + 1)
    ]
    world.nodes.extend(extra)
    findings = [f for f in cluster_nodes(world_data(world)) if f.status is Status.WARN]
    [grouped] = findings
    assert grouped.evidence["count"] == GROUP_ABOVE + 1
    focused = extra[0]["InstanceId"]
    findings = [f for f in cluster_nodes(world_data(world, focused)) if f.status is Status.WARN]
    assert [f.resources for f in findings] == [[focused]]


def test_registered_check_without_node_has_no_detail() -> None:
    assert list(node_detail(world_data(base.healthy_eks()))) == []
