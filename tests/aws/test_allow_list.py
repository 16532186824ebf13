"""The allow-list as a whole: the guard refuses every operation outside it (before
parameter validation), everything in it is a read that botocore knows, nothing in it hands
out credentials or secrets, and the IAM policy document grants exactly it.
"""

from __future__ import annotations

import functools
import json

import pytest

from tools.aws.allowlist import (
    IAM_PREFIX,
    READ_ONLY_OPERATIONS,
    SESSION_OPERATIONS,
    iam_action,
    iam_policy_document,
    is_allowed,
)
from tools.aws.errors import MutatingOperationRefused
from tools.aws.session import AwsAccess

REGION = "us-west-2"
READ_PREFIXES = ("Describe", "List", "Get", "Filter")


@functools.cache
def _every_operation(service: str) -> list[str]:
    import botocore.session

    model = botocore.session.get_session().get_service_model(service)
    return sorted(model.operation_names)


@pytest.mark.parametrize("service", sorted(IAM_PREFIX))
def test_every_operation_outside_the_allow_list_is_refused(service: str) -> None:
    """All of each service model's non-allow-listed operations, called with no parameters:
    the guard runs before parameter validation, so even a malformed call is refused."""
    access = AwsAccess(REGION, endpoint_url="http://127.0.0.1:9", max_attempts=1)
    sent: list[str] = []
    access._session.events.register("before-send", lambda **kw: sent.append("sent"))
    refused, leaked = [], []
    operations = [op for op in _every_operation(service) if not is_allowed(service, op)]
    assert operations, f"botocore knows no operations of {service}?"
    for operation in operations:
        try:
            access.call(service, operation)
        except MutatingOperationRefused:
            refused.append(operation)
        except Exception as exc:
            leaked.append(f"{operation}: {type(exc).__name__}")
        else:
            leaked.append(f"{operation}: returned")
    assert leaked == []
    assert len(refused) == len(operations)
    assert sent == []


def test_every_allow_listed_operation_is_a_read_that_botocore_knows() -> None:
    """Reads only, except the two session operations, which have a parameter guard
    (tests/aws/test_ssm_guard.py)."""
    assert {("ssm", "StartSession"), ("ssm", "TerminateSession")} == SESSION_OPERATIONS
    assert SESSION_OPERATIONS <= READ_ONLY_OPERATIONS
    for service, operation in sorted(READ_ONLY_OPERATIONS):
        assert service in IAM_PREFIX, service
        assert operation in _every_operation(service), f"{service}:{operation} is not an API"
        if (service, operation) not in SESSION_OPERATIONS:
            assert operation.startswith(READ_PREFIXES), f"{service}:{operation} is not a read"


def test_allow_list_has_no_credential_or_secret_reads() -> None:
    sensitive = {
        ("sts", "AssumeRole"),
        ("sts", "GetSessionToken"),
        ("sts", "GetFederationToken"),
        ("ec2", "GetPasswordData"),
        ("eks", "DescribeIdentityProviderConfig"),
        ("ssm", "SendCommand"),
        ("ssm", "GetParameter"),
        ("ssm", "GetParameters"),
        ("iam", "CreateAccessKey"),
    }
    assert READ_ONLY_OPERATIONS.isdisjoint(sensitive)
    # A session can run any command on a node: only the two guarded session operations.
    ssm = {(service, op) for service, op in READ_ONLY_OPERATIONS if service == "ssm"}
    assert ssm == SESSION_OPERATIONS


def test_iam_policy_document_matches_the_allow_list() -> None:
    policy = iam_policy_document()
    json.dumps(policy)  # serialisable as-is
    assert policy["Version"] == "2012-10-17"
    statements = policy["Statement"]
    assert isinstance(statements, list)
    reads, sessions, terminate = statements
    assert reads["Effect"] == "Allow"
    assert reads["Resource"] == "*"
    actions = reads["Action"]
    assert actions == sorted(actions)
    assert len(actions) == len(set(actions))
    assert not any("*" in action for action in actions)
    expected = {
        iam_action(s, o)
        for s, o in READ_ONLY_OPERATIONS
        if s != "sts" and (s, o) not in SESSION_OPERATIONS
    }
    assert set(actions) == expected
    for action in actions:
        prefix, operation = action.split(":")
        assert prefix in set(IAM_PREFIX.values())
        assert operation.startswith(READ_PREFIXES)
    assert "servicequotas:GetServiceQuota" in actions
    assert "sagemaker:DescribeCluster" in actions
    assert not any(action.startswith(("sts:", "ssm:")) for action in actions)
    # The session grant names the one non-interactive document and turns the document
    # check on, so a session without a document (an interactive shell) is not granted.
    assert sessions["Action"] == ["ssm:StartSession"]
    assert "*" not in sessions["Resource"]
    documents = [r for r in sessions["Resource"] if ":document/" in r]
    assert documents == ["arn:aws:ssm:*::document/AWS-StartNonInteractiveCommand"]
    assert sessions["Condition"] == {"BoolIfExists": {"ssm:SessionDocumentAccessCheck": "true"}}
    assert terminate["Action"] == ["ssm:TerminateSession"]
    assert terminate["Resource"] != "*"
