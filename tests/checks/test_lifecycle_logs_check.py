"""§ D.2: the registered lifecycle-logs check against a world, and page budgets."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from cluster_simulator import base
from cluster_simulator.world import World
from tools.aws.session import AwsAccess
from tools.checks.lifecycle_logs import LOG_CAP, lifecycle_logs
from tools.findings import Priority, Status
from tools.target import TriageTarget
from tools.triage.data import ClusterData

from ._lifecycle_logs import line
from ._log_scans import judge_lifecycle_logs

# -- D.2, the registered check against a world -------------------------------------------


def logs_data(world: World, node_id: str | None = None) -> ClusterData:
    target = TriageTarget(cluster=world.cluster["ClusterName"], region=world.region, node=node_id)
    return ClusterData(AwsAccess(world.region, replay=world), target, now=base.RECORDED_AT)


def spy_on(world: World, wanted: str) -> list[dict[str, Any]]:
    """Record the identifying params of every `wanted` request the world answers."""
    calls: list[dict[str, Any]] = []
    respond = world.respond

    def spy(service: str, operation: str, params: dict[str, Any]) -> Any:
        if operation == wanted:
            calls.append({k: v for k, v in params.items() if k not in ("nextToken", "limit")})
        return respond(service, operation, params)

    world.respond = spy  # type: ignore[method-assign]
    return calls


def write_log(world: World, stream: str, lines: list[tuple[timedelta, str]]) -> None:
    world.log_events[stream] = [
        {"timestamp": base.ms(base.RECORDED_AT - ago), "message": text} for ago, text in lines
    ]


def stream_of(world: World, index: int) -> tuple[str, str]:
    node = world.nodes[index]
    return node["InstanceId"], f"LifecycleConfig/{node['InstanceGroupName']}/{node['InstanceId']}"


def test_registered_check_reads_the_newest_failures_past_a_capped_noisy_week() -> None:
    world = base.healthy_eks()
    failing, failing_stream = stream_of(world, 1)
    world.nodes[1]["InstanceStatus"] = {"Status": "Failure", "Message": "lcs"}
    write_log(
        world,
        failing_stream,
        [(timedelta(minutes=30), "/tmp/on_create.sh: line 2: $'\\r': command not found")],
    )
    for index in (2, 3):
        _, noisy = stream_of(world, index)
        write_log(
            world,
            noisy,
            [
                (timedelta(hours=2, seconds=n), f"download: s3://b/f{n}.sh to f{n}.sh (timeout=60)")
                for n in range(LOG_CAP)
            ],
        )
    calls = spy_on(world, "FilterLogEvents")
    findings = list(lifecycle_logs(logs_data(world)))
    [failed] = [f for f in findings if f.status is Status.FAIL]
    assert failed.resources == [failing]
    assert failed.evidence["family"] == "crlf"
    [capped] = [f for f in findings if f.status is Status.WARN]
    assert capped.priority is Priority.P2
    # newest window first; the week's rest was never reached
    windows = list(dict.fromkeys((c["startTime"], c["endTime"]) for c in calls))
    assert windows[0] == (
        base.ms(base.RECORDED_AT - timedelta(hours=1)),
        base.ms(base.RECORDED_AT),
    )
    assert windows[1][1] == windows[0][0] - 1
    assert len(windows) == 2


def test_registered_check_warns_on_a_running_nodes_failure_line() -> None:
    world = base.healthy_eks()
    instance, stream = stream_of(world, 1)
    write_log(
        world,
        stream,
        [
            (
                timedelta(minutes=30),
                "[WARN] optional setup script install_dcgm.sh failed; continuing",
            )
        ],
    )
    findings = list(lifecycle_logs(logs_data(world)))
    assert not [f for f in findings if f.status is Status.FAIL]
    [warned] = [f for f in findings if f.status is Status.WARN]
    assert (warned.priority, warned.resources) == (Priority.P2, [instance])


def test_registered_check_with_node_reads_only_that_nodes_stream() -> None:
    world = base.healthy_eks()
    focused, focused_stream = stream_of(world, 1)
    _, other_stream = stream_of(world, 2)
    write_log(world, other_stream, [(timedelta(hours=1), "KeyError: 'worker'")])
    calls = spy_on(world, "FilterLogEvents")
    findings = list(lifecycle_logs(logs_data(world, focused)))
    assert {c["logStreamNamePrefix"] for c in calls} == {focused_stream}
    assert [f.status for f in findings] == [Status.INFO, Status.PASS]
    assert findings[0].message == f"1 LifecycleConfig log streams for {focused}"


def test_registered_check_reports_a_replaced_instance_as_history() -> None:
    world = base.healthy_eks()
    gone = "i-0feedfacefeedface"
    write_log(
        world,
        f"LifecycleConfig/{base.GPU_GROUP}/{gone}",
        [(timedelta(days=2), "on_create.sh failed with exit code 1")],
    )
    findings = list(lifecycle_logs(logs_data(world)))
    assert not [f for f in findings if f.status in (Status.FAIL, Status.WARN)]
    [history] = [f for f in findings if f.evidence.get("history")]
    assert history.resources == [gone]


# -- a page budget is not an item cap ------------------------------------------------------


def test_scan_incomplete_after_pages_with_nothing_matched_is_info() -> None:
    findings = judge_lifecycle_logs([line("fine")], truncated=True, stopped_by="pages", pages=5)
    assert [f.status for f in findings] == [Status.INFO, Status.PASS]
    assert "scan incomplete after 5 pages" in findings[0].message
    assert "capped" not in findings[0].message


def test_scan_incomplete_after_pages_with_a_failure_warns_p2() -> None:
    findings = judge_lifecycle_logs(
        [line("on_create.sh failed with exit code 1")], truncated=True, stopped_by="pages"
    )
    assert sorted((f.status.value, f.priority) for f in findings) == [
        ("FAIL", Priority.P0),
        ("WARN", Priority.P2),
    ]
    [incomplete] = [f for f in findings if f.status is Status.WARN]
    assert "scan incomplete after" in incomplete.message


def test_registered_check_says_scan_incomplete_on_empty_pages() -> None:
    from tools.recorded.model import RecordedCall

    world = base.healthy_eks()
    respond = world.respond

    def scan(service: str, operation: str, params: dict[str, Any]) -> Any:
        if operation != "FilterLogEvents":
            return respond(service, operation, params)
        step = int(str(params.get("nextToken") or "0")) + 1
        page = {"events": [], "searchedLogStreams": [], "nextToken": str(step)}
        return RecordedCall(service=service, operation=operation, params={}, response=page)

    world.respond = scan  # type: ignore[method-assign]
    findings = list(lifecycle_logs(logs_data(world)))
    assert not [f for f in findings if f.status in (Status.WARN, Status.FAIL)]
    [note] = [f for f in findings if "scan incomplete" in f.message and f.status is Status.INFO]
    assert note.evidence["stopped_by"] == "pages"
