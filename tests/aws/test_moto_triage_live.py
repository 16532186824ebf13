"""A live triage against a realistic HyperPod cluster built in moto (see _moto_cluster.py):
only allow-listed reads are sent, and AccessDenied or throttling on one API becomes a skip
while the triage goes on.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tools.aws.allowlist import READ_ONLY_OPERATIONS
from tools.aws.session import AwsAccess
from tools.recorded.recorder import Recorder
from tools.triage.node_sources import NodeOptions
from tools.triage.open_cluster import DataSource, open_access, open_cluster, triage_cluster
from tools.triage.runner import run_checks, run_triage

from ._moto_cluster import (
    ACCOUNT,
    CLUSTER,
    LIFECYCLE_STREAMS,
    NODES,
    REGION,
    MotoClient,
    MotoCluster,
    build_cluster,
    by_check,
    skip_reasons,
    watch,
)

# -- (a) a live triage sends only allow-listed reads ----------------------------------------


@pytest.mark.usefixtures("fast_retries", "probes")
def test_live_triage_sends_only_allow_listed_reads(cluster: MotoCluster) -> None:
    # Built by hand so the traffic is watched from the first call: open_cluster sends its
    # credentials preflight before a watch could be attached.
    access = open_access(cluster.target, DataSource(endpoint_url=cluster.url))
    traffic = watch(access)
    report = triage_cluster(cluster.target, access)

    operations = set(traffic.attempted)
    assert operations <= READ_ONLY_OPERATIONS, operations - READ_ONLY_OPERATIONS
    assert {
        ("sts", "GetCallerIdentity"),
        ("sagemaker", "DescribeCluster"),
        ("sagemaker", "ListClusterNodes"),
        ("ec2", "DescribeSecurityGroups"),
        ("ec2", "DescribeVpcEndpoints"),
        ("iam", "GetRolePolicy"),
        ("logs", "FilterLogEvents"),
    } <= operations
    assert len(traffic.sent) >= len(operations)
    assert all(url.startswith(cluster.url) for url in traffic.sent)

    assert report.cluster.name == CLUSTER
    assert report.cluster.arn == f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:cluster/{CLUSTER}"
    assert report.cluster.account == ACCOUNT
    assert report.recorded is False
    reasons = skip_reasons(report)
    assert not [
        r for r in reasons.values() if "internal error in check" in r or r.startswith("refused")
    ]
    # moto's missing ListClusterEvents is a skip, not a crash and not an empty list.
    assert "sagemaker:ListClusterEvents failed: 500" in reasons["probe-events"]
    checks = by_check(report)
    assert [f.status for f in checks["efa-security-groups"]] == ["PASS"]
    assert checks["efa-security-groups"][0].resources == [cluster.sg_id]
    assert checks["cluster-status"][0].status == "PASS"
    assert checks["probe-nodes"][0].message == f"{NODES} nodes in ['workers']"
    assert checks["probe-logs"][0].message == (
        f"log group True: {LIFECYCLE_STREAMS} streams, 1 events"
    )
    network = checks["probe-network"][0].message
    assert network == f"{cluster.vpc_id}: dns=(True, True) default routes=['igw-', 'nat-']"


@pytest.mark.usefixtures("fast_retries")
def test_missing_outbound_self_rule_fails_on_moto(
    moto_server: str, moto_client: MotoClient, aws_only: NodeOptions
) -> None:
    world = build_cluster(moto_client, moto_server, outbound_self_rule=False)
    data = open_cluster(world.target, source=DataSource(endpoint_url=world.url), options=aws_only)
    (efa,) = run_checks(data, ["efa-security-groups"])
    failures = [f for f in efa.findings if f.status == "FAIL"]
    assert len(failures) == 1
    assert "outbound" in failures[0].message
    assert "inbound" not in failures[0].message
    assert failures[0].resources == [world.sg_id]
    assert failures[0].priority == "P0"


# -- (e) AccessDenied and throttling become skips --------------------------------------------


def _respond_with(status: int, body: bytes, content_type: str) -> Any:
    from botocore.awsrequest import AWSResponse

    class Raw:
        def stream(self, **_: Any) -> Iterator[bytes]:
            yield body

    return AWSResponse("http://127.0.0.1/", status, {"Content-Type": content_type}, Raw())


def _body(request: Any) -> bytes:
    body = request.body or b""
    return body.encode() if isinstance(body, str) else bytes(body)


def _ec2_error(code: str, status: int) -> Any:
    body = (
        f"<Response><Errors><Error><Code>{code}</Code><Message>no</Message></Error></Errors>"
        "<RequestID>1</RequestID></Response>"
    ).encode()
    return _respond_with(status, body, "text/xml")


@pytest.mark.usefixtures("fast_retries")
@pytest.mark.parametrize("code", ["UnauthorizedOperation", "AccessDenied"])
def test_access_denied_on_one_api_is_a_skip(
    cluster: MotoCluster, code: str, aws_only: NodeOptions
) -> None:
    recorder = Recorder()
    data = open_cluster(
        cluster.target,
        source=DataSource(recorder=recorder, endpoint_url=cluster.url),
        options=aws_only,
    )
    denied: list[str] = []

    def deny(request: Any, **_: Any) -> Any:
        if b"Action=DescribeSecurityGroups" in _body(request):
            denied.append(request.url)
            return _ec2_error(code, 403)
        return None

    data.access._session.events.register("before-send.ec2", deny)
    report = run_triage(data)

    assert len(denied) == 1  # a denial is not retried, and asked once per run
    skipped = [s for s in report.skipped if s.check == "efa-security-groups"]
    assert len(skipped) == 1
    assert skipped[0].reason == "Missing IAM permission for ec2:DescribeSecurityGroups"
    assert "IAM" in skipped[0].hint
    assert "efa-security-groups" not in by_check(report)
    assert by_check(report)["cluster-status"][0].status == "PASS"  # triage went on

    # The denial is recorded, and replays to the same skip.
    recording = recorder.build(cluster=CLUSTER, region=REGION)
    errors = [c for c in recording.aws if c.error is not None and c.service == "ec2"]
    assert [(c.operation, c.error.code, c.error.http_status) for c in errors if c.error] == [
        ("DescribeSecurityGroups", code, 403)
    ]
    replayed = run_triage(open_cluster(cluster.target, source=DataSource(recorded=recording)))
    assert replayed.skipped == report.skipped
    assert replayed.findings == report.findings


@pytest.fixture
def no_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    """Retries without sleeping (botocore's standard/adaptive back-off and rate limiter)."""
    from botocore.retries import adaptive, standard

    monkeypatch.setattr(standard.ExponentialBackoff, "delay_amount", lambda self, ctx: 0.0)
    monkeypatch.setattr(adaptive.ClientRateLimiter, "on_sending_request", lambda *a, **k: None)


def _sagemaker_throttled() -> Any:
    body = b'{"__type": "ThrottlingException", "message": "Rate exceeded"}'
    return _respond_with(400, body, "application/x-amz-json-1.1")


@pytest.mark.usefixtures("no_backoff", "probes")
@pytest.mark.parametrize(
    ("service", "operation", "code", "check"),
    [
        ("ec2", "DescribeSecurityGroups", "RequestLimitExceeded", "efa-security-groups"),
        ("sagemaker", "ListClusterNodes", "ThrottlingException", "probe-nodes"),
    ],
)
def test_throttling_after_retries_is_a_skip(
    cluster: MotoCluster, service: str, operation: str, code: str, check: str
) -> None:
    # botocore's retries.max_attempts counts retries: 2 means three attempts in all (an
    # access of its own: open_cluster has no say over the retries).
    access = AwsAccess(REGION, endpoint_url=cluster.url, max_attempts=2)
    attempts: list[str] = []

    def is_target(request: Any) -> bool:
        if service == "ec2":
            return f"Action={operation}".encode() in _body(request)
        return str(request.headers.get("X-Amz-Target", b"")).endswith(f".{operation}'")

    def throttle(request: Any, **_: Any) -> Any:
        if not is_target(request):
            return None
        attempts.append(request.url)
        return _ec2_error(code, 503) if service == "ec2" else _sagemaker_throttled()

    access._session.events.register(f"before-send.{service}", throttle)
    report = triage_cluster(cluster.target, access)

    # One throttled call: the first try and two retries. Later calls of the same API in
    # this run repeat its error without being sent (the per-API failure budget).
    assert len(attempts) == 3
    reason = skip_reasons(report)[check]
    assert reason.startswith(f"{service}:{operation}: throttled ({code}) after 3 attempts")
    assert next(s.hint for s in report.skipped if s.check == check).startswith("Re-run later")
    assert by_check(report)["cluster-status"][0].status == "PASS"  # triage went on
