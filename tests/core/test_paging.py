"""Paged reads: budgets, and unpaged calls that refuse a partial answer."""

from __future__ import annotations

from typing import Any

import pytest

from tools.aws.errors import AwsAccessError
from tools.aws.session import AwsAccess, PageRead
from tools.recorded.model import Paging, RecordedCall, RecordedCluster


def _access(*calls: RecordedCall) -> AwsAccess:
    recording = RecordedCluster(
        recorded_at="2026-11-20T12:00:00Z", cluster="c", region="us-west-2", aws=list(calls)
    )
    return AwsAccess("us-west-2", replay=recording)


def test_max_pages_stops_early_and_reports_truncation() -> None:
    events = [{"message": f"line {n}"} for n in range(500)]
    access = _access(
        RecordedCall(
            service="logs",
            operation="FilterLogEvents",
            params={"logGroupName": "g"},
            response={"events": events},
            paging=Paging(result_key="events", token_key="nextToken"),
        )
    )
    result = access.paginate(
        "logs",
        "FilterLogEvents",
        PageRead(
            "events", page_size=100, cap=1000, token_key="nextToken", size_key="limit", max_pages=2
        ),
        logGroupName="g",
    )
    assert (len(result.items), result.truncated) == (200, True)


def test_an_unpaged_call_refuses_a_partial_list() -> None:
    access = _access(
        RecordedCall(
            service="ec2",
            operation="DescribeRouteTables",
            params={},
            response={"RouteTables": [{"RouteTableId": "rtb-1"}], "NextToken": "more"},
        )
    )
    with pytest.raises(AwsAccessError, match="paged"):
        access.call("ec2", "DescribeRouteTables")


def test_iam_truncation_is_refused_too() -> None:
    access = _access(
        RecordedCall(
            service="iam",
            operation="ListRolePolicies",
            params={"RoleName": "r"},
            response={"PolicyNames": ["a"], "IsTruncated": True, "Marker": "m"},
        )
    )
    with pytest.raises(AwsAccessError, match="paged"):
        access.call("iam", "ListRolePolicies", RoleName="r")


def test_a_page_budget_spent_on_sparse_pages_replays_as_capped() -> None:
    events = [{"message": f"line {n}"} for n in range(15)]
    access = _access(
        RecordedCall(
            service="logs",
            operation="FilterLogEvents",
            params={"logGroupName": "g"},
            response={"events": events},
            paging=Paging(result_key="events", token_key="nextToken", truncated=True),
        )
    )

    def read(max_pages: int | None) -> tuple[int, bool]:
        result = access.paginate(
            "logs",
            "FilterLogEvents",
            PageRead(
                "events",
                page_size=100,
                cap=300,
                token_key="nextToken",
                size_key="limit",
                max_pages=max_pages,
            ),
            logGroupName="g",
        )
        return len(result.items), result.truncated

    assert read(max_pages=5) == (15, True)
    # Whatever the reader's budget, a list that was cut short live is never shown complete.
    assert read(max_pages=None) == (15, True)


def test_a_replayed_answer_is_a_copy_the_caller_may_change() -> None:
    nodes: list[dict[str, Any]] = [{"InstanceId": "i-1", "InstanceStatus": {"Status": "Running"}}]
    access = _access(
        RecordedCall(
            service="sagemaker",
            operation="ListClusterNodes",
            params={"ClusterName": "c"},
            response={"ClusterNodeSummaries": nodes},
            paging=Paging(result_key="ClusterNodeSummaries"),
        ),
        RecordedCall(
            service="sagemaker",
            operation="DescribeCluster",
            params={"ClusterName": "c"},
            response={"ClusterName": "c", "InstanceGroups": [{"InstanceGroupName": "g"}]},
        ),
    )
    first = access.paginate(
        "sagemaker",
        "ListClusterNodes",
        PageRead("ClusterNodeSummaries", page_size=10, cap=10),
        ClusterName="c",
    )
    first.items[0]["InstanceStatus"]["Status"] = "changed"
    described = access.call("sagemaker", "DescribeCluster", ClusterName="c")
    described["InstanceGroups"][0]["InstanceGroupName"] = "changed"
    again = access.paginate(
        "sagemaker",
        "ListClusterNodes",
        PageRead("ClusterNodeSummaries", page_size=10, cap=10),
        ClusterName="c",
    )
    assert again.items[0]["InstanceStatus"]["Status"] == "Running"
    assert access.call("sagemaker", "DescribeCluster", ClusterName="c")["InstanceGroups"] == [
        {"InstanceGroupName": "g"}
    ]
    assert nodes[0]["InstanceStatus"]["Status"] == "Running"
