"""Checks run side by side: the memo is single-flight, outputs keep registry order, the
node listing of a large cluster is read one instance group at a time, and replay can wait
a simulated round trip before each answer."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from tools.aws.errors import AccessDenied, CredentialsMissing
from tools.aws.session import AwsAccess
from tools.findings import Finding
from tools.recorded.model import Paging, RecordedCall, RecordedCluster
from tools.recorded.recorder import Recorder
from tools.recorded.replay import ReplayStore
from tools.registry import CheckSpec
from tools.target import TriageTarget
from tools.triage.data import NODE_PAGE, ClusterData
from tools.triage.runner import run_checks

CLUSTER = "c"
REGION = "us-west-2"


def _recording(*calls: RecordedCall) -> RecordedCluster:
    return RecordedCluster(
        recorded_at="2026-11-20T12:00:00Z", cluster=CLUSTER, region=REGION, aws=list(calls)
    )


def _describe(groups: dict[str, int]) -> RecordedCall:
    return RecordedCall(
        service="sagemaker",
        operation="DescribeCluster",
        params={"ClusterName": CLUSTER},
        response={
            "ClusterName": CLUSTER,
            "ClusterArn": f"arn:aws:sagemaker:{REGION}:111122223333:cluster/abc123",
            "InstanceGroups": [
                {"InstanceGroupName": name, "CurrentCount": count} for name, count in groups.items()
            ],
        },
    )


def _node_list(groups: dict[str, int]) -> RecordedCall:
    names = [name for name, count in groups.items() for _ in range(count)]
    nodes = [
        {"InstanceId": f"i-{index:017x}", "InstanceGroupName": name}
        for index, name in enumerate(names)
    ]
    return RecordedCall(
        service="sagemaker",
        operation="ListClusterNodes",
        params={"ClusterName": CLUSTER},
        response={"ClusterNodeSummaries": nodes},
        paging=Paging(result_key="ClusterNodeSummaries"),
    )


class _Counting:
    """A responder that records every request it answers (operation, parameters)."""

    def __init__(self, recording: RecordedCluster) -> None:
        self._store = ReplayStore(recording)
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self._lock = threading.Lock()

    def respond(self, service: str, operation: str, params: dict[str, Any]) -> RecordedCall:
        with self._lock:
            self.requests.append((operation, dict(params)))
        return self._store.respond(service, operation, params)


def _data(access: AwsAccess) -> ClusterData:
    return ClusterData(access, TriageTarget(cluster=CLUSTER, region=REGION))


# -- the memo ---------------------------------------------------------------------------------


def test_a_read_asked_for_by_many_threads_at_once_is_made_once() -> None:
    data = _data(AwsAccess(REGION, replay=_recording()))
    calls: list[int] = []
    started = threading.Event()

    def slow_fetch() -> str:
        calls.append(1)
        started.set()
        time.sleep(0.05)
        return "answer"

    results: list[str] = []
    threads = [
        threading.Thread(target=lambda: results.append(data._once(("k",), slow_fetch)))
        for _ in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert calls == [1]
    assert results == ["answer"] * 8


def test_a_remembered_error_reaches_every_waiting_thread_and_is_not_fetched_again() -> None:
    data = _data(AwsAccess(REGION, replay=_recording()))
    calls: list[int] = []

    def denied() -> str:
        calls.append(1)
        time.sleep(0.02)
        raise AccessDenied("ec2", "DescribeSubnets", "AccessDenied")

    errors: list[BaseException] = []

    def ask() -> None:
        try:
            data._once(("subnets",), denied)
        except AccessDenied as exc:
            errors.append(exc)

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert calls == [1]
    assert len(errors) == 4


def test_an_error_the_memo_does_not_keep_lets_the_next_caller_try_again() -> None:
    data = _data(AwsAccess(REGION, replay=_recording()))
    attempts: list[int] = []

    def flaky() -> str:
        attempts.append(1)
        if len(attempts) == 1:
            raise RuntimeError("a defect, not an AWS answer")
        return "second time"

    with pytest.raises(RuntimeError):
        data._once(("x",), flaky)
    assert data._once(("x",), flaky) == "second time"


def test_a_read_that_depends_on_itself_fails_instead_of_waiting_forever() -> None:
    data = _data(AwsAccess(REGION, replay=_recording()))

    def itself() -> str:
        return data._once(("loop",), itself)

    with pytest.raises(RuntimeError, match="depends on itself"):
        data._once(("loop",), itself)


# -- running checks side by side -------------------------------------------------------------


def _spec(check_id: str, run: Any) -> CheckSpec:
    return CheckSpec(id=check_id, section="A", title=check_id, description="", run=run)


def test_outputs_keep_registry_order_whatever_order_checks_finish_in(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tools.findings import passed
    from tools.triage import runner

    def sleeper(check_id: str, delay: float) -> Any:
        def run(_: ClusterData) -> list[Finding]:
            time.sleep(delay)
            return [passed(check_id, "A", f"{check_id} ok")]

        return run

    specs = [_spec(f"check-{n}", sleeper(f"check-{n}", 0.05 - n * 0.01)) for n in range(5)]
    monkeypatch.setattr(runner, "all_checks", lambda: specs)
    data = _data(AwsAccess(REGION, replay=_recording(_describe({"g": 1}))))
    seen: list[int] = []
    outputs = run_checks(data, progress=lambda _title, index, _total: seen.append(index))
    assert [o.check for o in outputs] == [s.id for s in specs]
    assert sorted(seen) == [1, 2, 3, 4, 5]


def test_missing_credentials_in_one_check_stop_the_whole_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tools.triage import runner

    def expired(_: ClusterData) -> list[Finding]:
        raise CredentialsMissing("ExpiredToken")

    def fine(_: ClusterData) -> list[Finding]:
        return []

    monkeypatch.setattr(
        runner, "all_checks", lambda: [_spec("fine", fine), _spec("expired", expired)]
    )
    data = _data(AwsAccess(REGION, replay=_recording(_describe({"g": 1}))))
    with pytest.raises(CredentialsMissing):
        run_checks(data)


# -- the node listing, one instance group at a time ------------------------------------------


def test_a_large_cluster_is_listed_group_by_group_from_an_unsplit_recording() -> None:
    # "workers" is a substring of "workers-2": the API's filter finds both, the join keeps
    # each group's own nodes once.
    groups = {"controller": 1, "workers": 150, "workers-2": 120}
    responder = _Counting(_recording(_describe(groups), _node_list(groups)))
    data = _data(AwsAccess(REGION, replay=responder))
    listing = data.nodes()
    ids = [n.instance_id for n in listing.items]
    assert len(ids) == len(set(ids)) == sum(groups.values())
    assert listing.truncated is False
    filters = {
        p.get("InstanceGroupNameContains")
        for op, p in responder.requests
        if op == "ListClusterNodes"
    }
    assert filters == set(groups)
    # In DescribeCluster's group order.
    assert [n.instance_group for n in listing.items] == [
        name for name, count in groups.items() for _ in range(count)
    ]


def test_a_cluster_of_one_page_is_listed_in_one_call() -> None:
    groups = {"a": 10, "b": NODE_PAGE - 10}
    responder = _Counting(_recording(_describe(groups), _node_list(groups)))
    data = _data(AwsAccess(REGION, replay=responder))
    assert len(data.nodes().items) == NODE_PAGE
    listing_calls = [p for op, p in responder.requests if op == "ListClusterNodes"]
    assert all("InstanceGroupNameContains" not in p for p in listing_calls)


def test_a_split_listing_records_and_replays_the_same_nodes() -> None:
    groups = {"workers": 130, "cpu": 40}
    recorder = Recorder()
    live = AwsAccess(
        REGION, replay=_recording(_describe(groups), _node_list(groups)), recorder=recorder
    )
    first = [n.instance_id for n in _data(live).nodes().items]
    again = recorder.build(cluster=CLUSTER, region=REGION)
    filtered = [c for c in again.aws if c.operation == "ListClusterNodes"]
    assert {c.params.get("InstanceGroupNameContains") for c in filtered} == set(groups)
    replayed = [n.instance_id for n in _data(AwsAccess(REGION, replay=again)).nodes().items]
    assert replayed == first


def test_replay_narrows_a_recorded_list_only_for_filters_it_knows() -> None:
    store = ReplayStore(_recording(_node_list({"gpu": 3, "gpu-b": 2, "cpu": 1})))
    narrowed = store.respond(
        "sagemaker",
        "ListClusterNodes",
        {"ClusterName": CLUSTER, "InstanceGroupNameContains": "gpu"},
    )
    assert narrowed.response is not None
    assert len(narrowed.response["ClusterNodeSummaries"]) == 5  # a substring, as the API does
    from tools.aws.errors import NotRecorded

    with pytest.raises(NotRecorded):
        store.respond("sagemaker", "ListClusterNodes", {"ClusterName": CLUSTER, "Other": "x"})


# -- simulated latency -------------------------------------------------------------------------


def test_replay_waits_the_simulated_latency_before_each_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    waits: list[float] = []
    monkeypatch.setattr("tools.aws.session.time.sleep", waits.append)
    access = AwsAccess(REGION, replay=_recording(_describe({"g": 1})))
    access.pace_replay(0.05)
    access.call("sagemaker", "DescribeCluster", ClusterName=CLUSTER)
    assert waits == [0.05]
    quiet = AwsAccess(REGION, replay=_recording(_describe({"g": 1})))
    quiet.call("sagemaker", "DescribeCluster", ClusterName=CLUSTER)
    assert waits == [0.05]


def test_independent_reads_are_in_flight_at_the_same_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Four checks that each make a different call: every call waits at a barrier for the
    other three, so the run only completes if all four are in flight at once (run one
    after another, the first would wait in vain and the barrier break)."""
    from tools.findings import passed
    from tools.triage import runner

    barrier = threading.Barrier(4, timeout=10)
    calls = [
        RecordedCall(
            service="ec2",
            operation="DescribeSubnets",
            params={"SubnetIds": [f"subnet-{n}"]},
            response={"Subnets": []},
        )
        for n in range(4)
    ]

    class AtTheBarrier(_Counting):
        def respond(self, service: str, operation: str, params: dict[str, Any]) -> RecordedCall:
            if operation == "DescribeSubnets":
                barrier.wait()
            return super().respond(service, operation, params)

    def reader(n: int) -> Any:
        def run(data: ClusterData) -> list[Finding]:
            data.access.call("ec2", "DescribeSubnets", SubnetIds=[f"subnet-{n}"])
            return [passed(f"c{n}", "A", "ok")]

        return run

    monkeypatch.setattr(runner, "all_checks", lambda: [_spec(f"c{n}", reader(n)) for n in range(4)])
    responder = AtTheBarrier(_recording(_describe({"g": 1}), *calls))
    outputs = run_checks(_data(AwsAccess(REGION, replay=responder)))
    assert [o.findings[0].check for o in outputs] == ["c0", "c1", "c2", "c3"]
    assert not barrier.broken


def test_replay_answers_each_call_as_recorded_after_a_throttled_one() -> None:
    """Live, an API that kept failing is not asked again for a while; a replay answers every
    call from its own entry, so the report does not depend on which check asked first."""
    from tools.aws.errors import Throttled
    from tools.recorded.model import RecordedError

    throttled = RecordedCall(
        service="sagemaker",
        operation="DescribeClusterNode",
        params={"ClusterName": CLUSTER, "NodeId": "i-a"},
        error=RecordedError(code="ThrottlingException", message="slow down", http_status=400),
    )
    answered = RecordedCall(
        service="sagemaker",
        operation="DescribeClusterNode",
        params={"ClusterName": CLUSTER, "NodeId": "i-b"},
        response={"NodeDetails": {"InstanceId": "i-b"}},
    )
    access = AwsAccess(REGION, replay=_recording(throttled, answered), max_attempts=0)
    with pytest.raises(Throttled):
        access.call("sagemaker", "DescribeClusterNode", ClusterName=CLUSTER, NodeId="i-a")
    node = access.call("sagemaker", "DescribeClusterNode", ClusterName=CLUSTER, NodeId="i-b")
    assert node["NodeDetails"]["InstanceId"] == "i-b"
