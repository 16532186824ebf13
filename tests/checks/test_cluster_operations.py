"""Cluster operations: the model from literal API answers (botocore's shapes), the rules
on literal data, and the wording of each verdict."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from tools.checks.cluster_operations import (
    OperationScan,
    OpKind,
    errors_by_operation,
    judge_operations,
    operation_verdicts,
    to_describe,
)
from tools.findings import Priority, Status
from tools.triage.data.sagemaker_model import (
    ClusterEvent,
    ClusterNode,
    ClusterOperation,
    OperationListing,
    parse_operations,
)

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
ARN = "arn:aws:sagemaker:us-west-2:123456789012:cluster/a1b2c3d4e5f6"
SCALE, DHC, OLD = (
    "11111111-1111-4111-8111-111111111111",
    "22222222-2222-4222-8222-222222222222",
    "33333333-3333-4333-8333-333333333333",
)


def _summary(op_id: str, kind: str, status: str, age: timedelta) -> dict[str, object]:
    return {
        "OperationId": op_id,
        "ClusterArn": ARN,
        "Type": kind,
        "Status": status,
        "CreationTime": (NOW - age).isoformat(),
    }


def _listing(*summaries: dict[str, object]) -> OperationListing:
    return OperationListing(items=parse_operations(summaries), truncated=False)


def _event(op_id: str, level: str = "Error", instance: str = "i-0aaa") -> ClusterEvent:
    return ClusterEvent.from_api(
        {
            "EventId": f"e-{op_id[:4]}-{level}",
            "EventLevel": level,
            "Description": "Instance launch failed: InsufficientInstanceCapacity",
            "InstanceId": instance,
            "OperationId": op_id,
        }
    )


def test_describe_cluster_operation_answer_parses() -> None:
    raw = {
        **_summary(SCALE, "Scaling", "InProgress", timedelta(minutes=30)),
        "ScalingDetails": [
            {
                "InstanceGroupName": "gpu",
                "Status": "InProgress",
                "Original": {"CurrentCount": 4, "TargetCount": 4, "MinCount": 0},
                "Desired": {"TargetCount": 6},
            },
            "not an object",
        ],
    }
    operation = ClusterOperation.from_api(raw)
    assert (operation.type, operation.status, operation.in_progress) == (
        "Scaling",
        "InProgress",
        True,
    )
    assert operation.created_at == NOW - timedelta(minutes=30)
    [group] = operation.scaling
    assert (group.instance_group, group.original.target, group.desired.target) == ("gpu", 4, 6)
    assert group.desired.current is None
    assert operation.groups == ("gpu",)
    dhc = ClusterOperation.from_api(
        {
            "OperationId": DHC,
            "Type": "DeepHealthCheck",
            "Status": "Done",
            "DeepHealthCheckDetails": [
                {
                    "InstanceGroupName": "gpu",
                    "InstanceIds": ["i-0aaa"],
                    "DeepHealthChecks": ["InstanceStress"],
                }
            ],
        }
    )
    assert dhc.health_checks[0].instance_ids == ("i-0aaa",)
    assert dhc.health_checks[0].checks == ("InstanceStress",)
    assert dhc.created_at is None
    assert dhc.created == ""


def test_the_event_keeps_its_operation_id() -> None:
    assert _event(SCALE).operation_id == SCALE
    assert ClusterEvent.from_api({"EventId": "x"}).operation_id == ""


def test_errors_are_grouped_by_operation_and_other_levels_ignored() -> None:
    grouped = errors_by_operation([_event(SCALE), _event(SCALE, "Info"), _event(DHC)])
    assert {k: len(v) for k, v in grouped.items()} == {SCALE: 1, DHC: 1}


def test_to_describe_takes_running_then_the_newest_recent_of_each_type() -> None:
    listing = _listing(
        _summary(SCALE, "Scaling", "InProgress", timedelta(minutes=5)),
        _summary(DHC, "DeepHealthCheck", "Done", timedelta(hours=2)),
        _summary(OLD, "DeepHealthCheck", "Done", timedelta(days=30)),
    )
    assert to_describe(listing, NOW) == [SCALE, DHC]
    assert to_describe(listing, NOW, limit=1) == [SCALE]


def test_rules() -> None:
    pending = ClusterNode.from_api(
        {
            "InstanceId": "i-0new",
            "InstanceGroupName": "gpu",
            "InstanceStatus": {"Status": "Pending"},
        }
    )
    running = ClusterNode.from_api(
        {
            "InstanceId": "i-0old",
            "InstanceGroupName": "gpu",
            "InstanceStatus": {"Status": "Running"},
        }
    )
    detail = ClusterOperation.from_api(
        {
            **_summary(SCALE, "Scaling", "InProgress", timedelta(minutes=30)),
            "ScalingDetails": [{"InstanceGroupName": "gpu", "Status": "InProgress"}],
        }
    )
    scan = OperationScan(
        listing=_listing(_summary(SCALE, "Scaling", "InProgress", timedelta(minutes=30))),
        now=NOW,
        details={SCALE: detail},
        errors={},
        nodes=(pending, running),
    )
    [verdict] = operation_verdicts(scan)
    assert verdict.kind is OpKind.RUNNING
    assert verdict.held == ("i-0new",)

    long = OperationScan(
        listing=_listing(_summary(SCALE, "Scaling", "InProgress", timedelta(hours=30))),
        now=NOW,
        errors={},
    )
    assert [v.kind for v in operation_verdicts(long)] == [OpKind.LONG_RUNNING]

    failed = OperationScan(
        listing=_listing(
            _summary(DHC, "DeepHealthCheck", "Done", timedelta(hours=1)),
            _summary(OLD, "DeepHealthCheck", "Done", timedelta(days=2)),
            _summary(SCALE, "Scaling", "Superseded", timedelta(days=20)),
        ),
        now=NOW,
        errors=errors_by_operation([_event(DHC), _event(OLD), _event(SCALE)]),
    )
    kinds = [(v.operation.operation_id, v.kind) for v in operation_verdicts(failed)]
    # The old scaling operation is outside the recent window: not judged.
    assert kinds == [(DHC, OpKind.FAILED), (OLD, OpKind.FAILED_EARLIER)]


def test_words() -> None:
    running = judge_operations(
        OperationScan(
            listing=_listing(_summary(SCALE, "Scaling", "InProgress", timedelta(minutes=30))),
            now=NOW,
            errors={},
        )
    )
    assert [f.status for f in running] == [Status.INFO]
    assert "in progress" in running[0].message
    assert "30 min" in running[0].message

    long = judge_operations(
        OperationScan(
            listing=_listing(_summary(SCALE, "Scaling", "InProgress", timedelta(hours=30))),
            now=NOW,
            errors={},
        )
    )
    assert [(f.status, f.priority, f.section) for f in long] == [(Status.WARN, Priority.P2, "F")]

    failed = judge_operations(
        OperationScan(
            listing=_listing(_summary(DHC, "DeepHealthCheck", "Done", timedelta(hours=1))),
            now=NOW,
            errors=errors_by_operation([_event(DHC, instance="i-0bad")]),
        )
    )
    [finding] = failed
    assert (finding.status, finding.priority, finding.section) == (
        Status.FAIL,
        Priority.P1,
        "G.1.b",
    )
    assert finding.resources == ["i-0bad"]
    assert "InsufficientInstanceCapacity" in finding.message


def test_clean_and_unknown() -> None:
    done = _listing(_summary(SCALE, "Scaling", "Done", timedelta(days=1)))
    [clean] = judge_operations(OperationScan(listing=done, now=NOW, errors={}))
    assert clean.status is Status.PASS
    assert "in progress or failed recently" in clean.message
    # No events: failures cannot be told, and the PASS claims only "not in progress".
    unknown = judge_operations(OperationScan(listing=done, now=NOW, errors=None))
    assert [f.status for f in unknown] == [Status.INFO, Status.PASS]
    assert "cannot be told" in unknown[0].message
    assert "failed" not in unknown[1].message


def test_operation_text_is_clipped() -> None:
    raw = _summary(SCALE, "Scaling\nInjected", "InProgress", timedelta(minutes=1))
    [finding] = judge_operations(OperationScan(listing=_listing(raw), now=NOW, errors={}))
    assert "\n" not in finding.message
