"""An API newer than the installed botocore (ListClusterOperations on an old SDK) is an
access error the runner lists as skipped, with the way to get it; never an AttributeError."""

from __future__ import annotations

import pytest

from tools.aws.errors import AwsAccessError, UnknownOperation
from tools.aws.session import AwsAccess


def test_an_operation_botocore_does_not_know_is_skipped_with_a_hint() -> None:
    access = AwsAccess("us-west-2", endpoint_url="http://127.0.0.1:9", max_attempts=1)
    sent: list[str] = []
    access._session.events.register("before-send", lambda **kw: sent.append("sent"))
    with pytest.raises(UnknownOperation) as caught:
        access.call("sagemaker", "ListClusterOperationsOfTheFuture", ClusterName="c")
    assert isinstance(caught.value, AwsAccessError)
    assert "unknown to the installed botocore" in caught.value.reason
    assert "Upgrade boto3" in caught.value.hint
    assert sent == []
