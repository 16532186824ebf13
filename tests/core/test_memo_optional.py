"""`optional()`: a read another check owns, taken as context, or None when AWS failed it."""

from __future__ import annotations

import pytest

from tools.aws.errors import AccessDenied, AwsAccessError
from tools.aws.session import AwsAccess
from tools.recorded.model import RecordedCluster
from tools.target import TriageTarget
from tools.triage.data import ClusterData


def _data() -> ClusterData:
    recording = RecordedCluster(
        recorded_at="2026-11-20T12:00:00Z", cluster="c", region="us-west-2", aws=[]
    )
    access = AwsAccess("us-west-2", replay=recording)
    return ClusterData(access, TriageTarget(cluster="c", region="us-west-2"))


def _denied() -> int:
    raise AccessDenied("sagemaker", "DescribeCluster", "not allowed")


def test_optional_returns_the_answer_of_a_read_that_succeeds() -> None:
    assert _data().optional(lambda: 42) == 42


def test_optional_turns_an_aws_access_error_into_none() -> None:
    assert _data().optional(_denied) is None


def test_optional_lets_other_errors_through() -> None:
    def broken() -> int:
        raise ValueError("a bug, not an AWS refusal")

    with pytest.raises(ValueError, match="a bug"):
        _data().optional(broken)


def test_optional_covers_every_aws_access_error() -> None:
    def failed() -> int:
        raise AwsAccessError("sagemaker", "DescribeCluster", "endpoint down")

    assert _data().optional(failed) is None
