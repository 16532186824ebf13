"""Record → file → replay of a triage against the moto cluster (see _moto_cluster.py):
the same report, lists stored whole and paged again on replay, and an unrecorded call that
fails loudly instead of reading as an empty result.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tools.aws.errors import AwsAccessError, NotRecorded
from tools.aws.session import AwsAccess, PageRead
from tools.recorded.model import RecordedCall, RecordedCluster, dump_recorded, load_recorded
from tools.recorded.recorder import Recorder
from tools.recorded.replay import ReplayStore, page_call
from tools.target import TriageTarget
from tools.triage.data.sagemaker_model import ClusterNode
from tools.triage.node_sources import NodeOptions
from tools.triage.open_cluster import DataSource, open_cluster, recording_time
from tools.triage.runner import run_triage

from ._moto_cluster import (
    ACCOUNT,
    CLUSTER,
    LIFECYCLE_STREAMS,
    NODES,
    REGION,
    MotoClient,
    MotoCluster,
    by_check,
    skip_reasons,
    watch,
)

# -- (b) record → file → replay gives the same report ---------------------------------------


@pytest.mark.usefixtures("fast_retries", "probes")
def test_record_replay_round_trip(
    cluster: MotoCluster, tmp_path: Path, aws_only: NodeOptions
) -> None:
    recorder = Recorder()
    live = run_triage(
        open_cluster(
            cluster.target,
            source=DataSource(recorder=recorder, endpoint_url=cluster.url),
            options=aws_only,
        )
    )
    path = tmp_path / "cluster.json"
    dump_recorded(recorder.build(cluster=CLUSTER, region=REGION), path)

    recording = load_recorded(path)
    assert recording_time(recording) == recorder.now
    replay = open_cluster(cluster.target, source=DataSource(recorded=recording))
    traffic = watch(replay.access)
    replayed = run_triage(replay)

    assert replayed.recorded is True
    assert replayed.cluster == live.cluster
    assert replayed.findings == live.findings
    assert replayed.skipped == live.skipped
    assert traffic.sent == []  # replay never builds an HTTP request

    # Paginated lists are stored whole, with `paging` set ...
    calls = {(c.service, c.operation): c for c in recording.aws}
    nodes = calls[("sagemaker", "ListClusterNodes")]
    assert nodes.paging is not None
    assert nodes.paging.result_key == "ClusterNodeSummaries"
    assert nodes.response is not None
    assert len(nodes.response["ClusterNodeSummaries"]) == NODES
    assert "NextToken" not in nodes.response
    assert "MaxResults" not in nodes.params
    streams = next(
        c
        for c in recording.aws
        if c.operation == "DescribeLogStreams"
        and c.params["logStreamNamePrefix"] == "LifecycleConfig/"
    )
    assert streams.paging is not None
    assert (streams.paging.result_key, streams.paging.token_key) == ("logStreams", "nextToken")
    assert streams.response is not None
    assert len(streams.response["logStreams"]) == LIFECYCLE_STREAMS
    # ... and paged again on replay, as the real APIs page them.
    stream_pages = [
        params
        for op, params in zip(traffic.attempted, traffic.params, strict=True)
        if op == ("logs", "DescribeLogStreams")
        and params["logStreamNamePrefix"] == "LifecycleConfig/"
    ]
    assert [p.get("nextToken") for p in stream_pages] == [None, "hpd-replay:50"]
    assert all(p["limit"] == 50 for p in stream_pages)
    # The moto 500 was recorded as what it was, and replays as the same skip.
    events = calls[("sagemaker", "ListClusterEvents")]
    assert events.error is not None
    assert events.error.http_status == 500


def test_replay_store_pages_a_stored_list() -> None:
    items = [{"InstanceId": f"i-{n:017x}"} for n in range(250)]
    recording = RecordedCluster.model_validate(
        {
            "recorded_at": "2026-01-01T00:00:00Z",
            "cluster": CLUSTER,
            "region": REGION,
            "aws": [
                {
                    "service": "sagemaker",
                    "operation": "ListClusterNodes",
                    "params": {"ClusterName": CLUSTER},
                    "response": {"ClusterNodeSummaries": items},
                    "paging": {"result_key": "ClusterNodeSummaries"},
                }
            ],
        }
    )
    store = ReplayStore(recording)
    pages, token = [], None
    while True:
        params: dict[str, Any] = {"ClusterName": CLUSTER, "MaxResults": 100}
        if token:
            params["NextToken"] = token
        response = page_call(
            store.respond("sagemaker", "ListClusterNodes", params), params
        ).response
        assert response is not None
        pages.append(response["ClusterNodeSummaries"])
        token = response.get("NextToken")
        if not token:
            break
    assert [len(p) for p in pages] == [100, 100, 50]
    assert [i for page in pages for i in page] == items
    # Without MaxResults a page holds 100; a bogus token is an error, not an empty page.
    bare = {"ClusterName": CLUSTER}
    first = page_call(store.respond("sagemaker", "ListClusterNodes", bare), bare).response
    assert first is not None
    assert len(first["ClusterNodeSummaries"]) == 100
    bogus = {"ClusterName": CLUSTER, "NextToken": "x"}
    with pytest.raises(ValueError, match="invalid replay pagination token"):
        page_call(store.respond("sagemaker", "ListClusterNodes", bogus), bogus)


def test_paginate_over_replay_respects_the_cap() -> None:
    items = [{"InstanceId": f"i-{n:017x}"} for n in range(250)]
    recording = RecordedCluster(
        recorded_at="2026-01-01T00:00:00Z",
        cluster=CLUSTER,
        region=REGION,
        aws=[
            {
                "service": "sagemaker",
                "operation": "ListClusterNodes",
                "params": {"ClusterName": CLUSTER},
                "response": {"ClusterNodeSummaries": items},
                "paging": {"result_key": "ClusterNodeSummaries"},
            }
        ],
    )
    access = AwsAccess(REGION, replay=recording)
    traffic = watch(access)
    capped = access.paginate(
        "sagemaker",
        "ListClusterNodes",
        PageRead("ClusterNodeSummaries", page_size=100, cap=150),
        ClusterName=CLUSTER,
    )
    assert len(capped.items) == 150
    assert capped.truncated is True
    assert capped.items == items[:150]
    assert len(traffic.attempted) == 2
    whole = access.paginate(
        "sagemaker",
        "ListClusterNodes",
        PageRead("ClusterNodeSummaries", page_size=100, cap=1000),
        ClusterName=CLUSTER,
    )
    assert whole.items == items
    assert whole.truncated is False


class StuckPager:
    """A responder whose list API hands back the token it was given, as moto's does."""

    def __init__(self) -> None:
        self.calls = 0

    def respond(self, service: str, operation: str, params: dict[str, Any]) -> RecordedCall:
        self.calls += 1
        return RecordedCall(
            service=service,
            operation=operation,
            params=params,
            response={"ClusterNodeSummaries": [{"InstanceId": "i-1"}], "NextToken": "stuck"},
        )


def test_pagination_that_never_advances_fails_loudly() -> None:
    pager = StuckPager()
    access = AwsAccess(REGION, replay=pager)
    with pytest.raises(AwsAccessError) as stuck:
        access.paginate(
            "sagemaker",
            "ListClusterNodes",
            PageRead("ClusterNodeSummaries", page_size=100, cap=20_000),
            ClusterName=CLUSTER,
        )
    assert pager.calls == 2  # not 200 requests for 20,000 copies of one page
    assert stuck.value.reason == (
        "sagemaker:ListClusterNodes failed: "
        "pagination did not advance (the same NextToken came back)"
    )


@pytest.mark.usefixtures("fast_retries")
def test_moto_node_listing_never_yields_duplicates(
    moto_server: str, moto_client: MotoClient, aws_only: NodeOptions
) -> None:
    """moto 5.2.5 ignores ListClusterNodes' NextToken; triage must not read one page 200 times."""
    moto_client("sagemaker", REGION).create_cluster(
        ClusterName="big",
        InstanceGroups=[
            {
                "InstanceGroupName": "workers",
                "InstanceType": "ml.p5.48xlarge",
                "InstanceCount": 130,
                "LifeCycleConfig": {"SourceS3Uri": "s3://sagemaker-lc/", "OnCreate": "on.sh"},
                "ExecutionRole": f"arn:aws:iam::{ACCOUNT}:role/exec",
                "ThreadsPerCore": 2,
            }
        ],
        VpcConfig={"SecurityGroupIds": ["sg-1"], "Subnets": ["subnet-1"]},
    )
    target = TriageTarget(cluster="big", region=REGION)
    data = open_cluster(
        target, source=DataSource(endpoint_url=moto_server), options=aws_only, preflight=False
    )
    traffic = watch(data.access)
    outcome: tuple[ClusterNode, ...] | AwsAccessError
    try:
        outcome = data.nodes().items
    except AwsAccessError as exc:
        outcome = exc
    if isinstance(outcome, AwsAccessError):  # moto's bug, reported as what it is
        assert "pagination did not advance" in outcome.reason
        assert traffic.attempted.count(("sagemaker", "ListClusterNodes")) == 2
    else:  # a moto that pages properly
        ids = [n.instance_id for n in outcome]
        assert len(ids) == len(set(ids)) == 130


# -- (c) an unrecorded call fails loudly ----------------------------------------------------


@pytest.mark.usefixtures("fast_retries", "probes")
def test_unrecorded_call_is_not_an_empty_result(
    cluster: MotoCluster, aws_only: NodeOptions
) -> None:
    recorder = Recorder()
    live = run_triage(
        open_cluster(
            cluster.target,
            source=DataSource(recorder=recorder, endpoint_url=cluster.url),
            options=aws_only,
        )
    )
    assert "probe-endpoints" in by_check(live)
    recording = recorder.build(cluster=CLUSTER, region=REGION)
    recording.aws = [c for c in recording.aws if c.operation != "DescribeVpcEndpoints"]

    replay = open_cluster(cluster.target, source=DataSource(recorded=recording))
    filters = [{"Name": "vpc-id", "Values": [cluster.vpc_id]}]
    with pytest.raises(NotRecorded) as missing:
        replay.access.call("ec2", "DescribeVpcEndpoints", Filters=filters)
    expected = f"not recorded: ec2:DescribeVpcEndpoints {json.dumps({'Filters': filters})}"
    assert str(missing.value) == expected
    assert missing.value.reason == expected

    replayed = run_triage(replay)
    assert "probe-endpoints" not in by_check(replayed)
    assert skip_reasons(replayed)["probe-endpoints"] == expected
    assert "Re-record" in next(s.hint for s in replayed.skipped if s.check == "probe-endpoints")
