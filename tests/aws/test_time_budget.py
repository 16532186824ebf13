"""Faults within a time budget: few attempts per call, an API that keeps failing is not
asked again, a run's time budget ends sending and retrying, and persistent throttling of the
credentials preflight is reported as throttling, not as bad credentials.

Faults are injected with `before-send` handlers on the guarded session (botocore parses the
canned answer exactly as a real one); botocore's back-off is switched off, so nothing here
waits. Timing figures live in scripts/bench_faults.py, not here.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from typer.testing import CliRunner

import tools.triage.open_cluster
from agent.cli import app
from tools.aws.errors import OutOfTime, Throttled
from tools.aws.session import CONNECT_TIMEOUT, DEFAULT_RETRIES, READ_TIMEOUT, AwsAccess
from tools.triage.node_sources import NodeOptions
from tools.triage.open_cluster import DataSource, open_cluster
from tools.triage.runner import run_triage

from ._moto_cluster import REGION, MotoCluster

_THROTTLED = b'{"__type": "ThrottlingException", "message": "Rate exceeded"}'
_STS_THROTTLED = (
    b"<ErrorResponse><Error><Type>Sender</Type><Code>Throttling</Code>"
    b"<Message>Rate exceeded</Message></Error><RequestId>r</RequestId></ErrorResponse>"
)


@pytest.fixture(autouse=True)
def no_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    from botocore.retries import standard

    monkeypatch.setattr(standard.ExponentialBackoff, "delay_amount", lambda self, ctx: 0.0)


def _respond(status: int, body: bytes, content_type: str) -> Any:
    from botocore.awsrequest import AWSResponse

    class Raw:
        def stream(self, **_: Any) -> Iterator[bytes]:
            yield body

    return AWSResponse("http://127.0.0.1/", status, {"Content-Type": content_type}, Raw())


def _target(request: Any) -> str:
    value = request.headers.get("X-Amz-Target", b"")
    return value.decode() if isinstance(value, bytes) else str(value)


def throttle(access: AwsAccess, operation: str, sent: list[str]) -> None:
    """Answer every attempt of a JSON-protocol `operation` with ThrottlingException."""

    def answer(request: Any, **_: Any) -> Any:
        if not _target(request).endswith(f".{operation}"):
            return None
        sent.append(operation)
        return _respond(400, _THROTTLED, "application/x-amz-json-1.1")

    access._session.events.register("before-send", answer)


def test_the_retry_budget_is_botocore_standard_mode_with_short_timeouts() -> None:
    access = AwsAccess(REGION, endpoint_url="http://127.0.0.1:9")
    client = access.client("sagemaker")

    assert client.meta.config.retries["mode"] == "standard"
    assert client.meta.config.retries["total_max_attempts"] == DEFAULT_RETRIES + 1 == 3
    assert (client.meta.config.connect_timeout, client.meta.config.read_timeout) == (
        CONNECT_TIMEOUT,
        READ_TIMEOUT,
    )


def test_a_persistently_throttled_api_is_sent_three_times_then_not_asked_again(
    cluster: MotoCluster,
) -> None:
    access = AwsAccess(REGION, endpoint_url=cluster.url)
    sent: list[str] = []
    throttle(access, "DescribeLogStreams", sent)
    group = "/aws/sagemaker/Clusters/hp/hp"

    with pytest.raises(Throttled) as first:
        access.call("logs", "DescribeLogStreams", logGroupName=group, logStreamNamePrefix="a")
    with pytest.raises(Throttled) as again:
        access.call("logs", "DescribeLogStreams", logGroupName=group, logStreamNamePrefix="b")

    assert sent == ["DescribeLogStreams"] * 3  # the first call only: try + two retries
    assert first.value.reason == (
        "logs:DescribeLogStreams: throttled (ThrottlingException) after 3 attempts"
    )
    assert again.value.reason == (
        first.value.reason + " (not asked again: it failed moments earlier)"
    )
    # Other APIs are not affected.
    assert access.call("sagemaker", "ListClusters")["ClusterSummaries"]


def test_a_spent_time_budget_sends_nothing_more_and_says_so(
    cluster: MotoCluster, aws_only: NodeOptions
) -> None:
    data = open_cluster(
        cluster.target,
        source=DataSource(endpoint_url=cluster.url),
        options=aws_only,
        time_budget=1000,
    )
    data.cluster()
    sent: list[str] = []
    data.access._session.events.register("before-send", lambda request, **_: sent.append("x"))
    data.access._deadline = time.monotonic() - 1  # the budget is spent

    report = run_triage(data)

    assert sent == []
    reasons = [s.reason for s in report.skipped]
    assert reasons
    assert any("not read, the run's 1000 s time budget for AWS calls ran out" in r for r in reasons)
    assert all("Traceback" not in r for r in reasons)


def test_the_time_budget_ends_retries_in_flight(cluster: MotoCluster) -> None:
    access = AwsAccess(REGION, endpoint_url=cluster.url)
    access.set_time_budget(1000)
    sent: list[str] = []

    def throttle_and_run_out(request: Any, **_: Any) -> Any:
        if not _target(request).endswith(".ListClusterNodes"):
            return None
        sent.append("ListClusterNodes")
        access._deadline = time.monotonic() - 1  # the budget runs out during the back-off
        return _respond(400, _THROTTLED, "application/x-amz-json-1.1")

    access._session.events.register("before-send", throttle_and_run_out)
    with pytest.raises(OutOfTime) as stopped:
        access.call("sagemaker", "ListClusterNodes", ClusterName="hp")

    assert sent == ["ListClusterNodes"]  # no retry was sent
    assert stopped.value.reason == (
        "sagemaker:ListClusterNodes: not read, the run's 1000 s time budget for AWS calls "
        "ran out while retrying (1 attempt failed)"
    )


def test_node_probe_sessions_are_not_held_to_the_time_budget() -> None:
    access = AwsAccess(REGION, endpoint_url="http://127.0.0.1:9")
    access.set_time_budget(0)

    assert access._out_of_time("sagemaker", "DescribeCluster")
    assert not access._out_of_time("ssm", "StartSession")
    assert not access._out_of_time("ssm", "TerminateSession")  # a session can always end


def test_a_replay_has_no_time_budget(cluster: MotoCluster) -> None:
    from tools.recorded.recorder import Recorder

    recorder = Recorder()
    data = open_cluster(
        cluster.target, source=DataSource(recorder=recorder, endpoint_url=cluster.url)
    )
    data.cluster()
    recording = recorder.build(cluster="hp", region=REGION)

    replayed = open_cluster(cluster.target, source=DataSource(recorded=recording), time_budget=0)
    assert replayed.access._deadline is None
    assert replayed.cluster().name  # DescribeCluster replayed, not an empty answer


@pytest.mark.usefixtures("cluster")
def test_persistent_sts_throttling_is_reported_as_throttling(
    moto_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_ENDPOINT_URL", moto_server)
    sent: list[str] = []

    def throttled_sts(region: str, **kwargs: Any) -> AwsAccess:
        access = AwsAccess(region, **kwargs)

        def answer(request: Any, **_: Any) -> Any:
            body = request.body or b""
            if b"Action=GetCallerIdentity" in (body if isinstance(body, bytes) else body.encode()):
                sent.append("GetCallerIdentity")
                return _respond(400, _STS_THROTTLED, "text/xml")
            return None

        access._session.events.register("before-send.sts", answer)
        return access

    monkeypatch.setattr(tools.triage.open_cluster, "AwsAccess", throttled_sts)
    result = CliRunner().invoke(
        app, ["triage", "--cluster", "hp", "--region", REGION, "--no-probes"]
    )

    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit)
    assert sent == ["GetCallerIdentity"] * 3
    assert "AWS is throttling sts:GetCallerIdentity" in result.output
    assert "Throttling after 3 attempts" in result.output
    assert "wait and re-run" in result.output
    assert "Fix your AWS credentials" not in result.output
    assert "Traceback" not in result.output
