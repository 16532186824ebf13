"""What an AWS answer becomes here, live or replayed: its data as plain JSON values
(`jsonable`), and an error answer (`ErrorAnswer`) as the typed error of its code
(`typed_error`). Shared by the guarded botocore session (tools/aws/session.py) and the
botocore-free replay (tools/aws/replay.py), so both hand the checks the same values."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from tools.aws.allowlist import iam_action
from tools.aws.errors import (
    ACCESS_DENIED_CODES,
    AccessDenied,
    AwsAccessError,
    CredentialsMissing,
    ResourceNotFound,
    Throttled,
)

THROTTLING_CODES = frozenset(
    {
        "Throttling",
        "ThrottlingException",
        "ThrottledException",
        "RequestLimitExceeded",
        "TooManyRequestsException",
        "RequestThrottled",
        "RequestThrottledException",
        "SlowDown",
        "EC2ThrottledException",
        "ProvisionedThroughputExceededException",
        "BandwidthLimitExceeded",
        "PriorRequestNotComplete",
    }
)
NOT_FOUND_CODES = frozenset(
    {"ResourceNotFound", "ResourceNotFoundException", "ValidationException", "NoSuchEntity"}
)
CREDENTIAL_CODES = frozenset(
    {
        "ExpiredToken",
        "ExpiredTokenException",
        "InvalidClientTokenId",
        "UnrecognizedClientException",
        "SignatureDoesNotMatch",
        "AuthFailure",
        "InvalidAccessKeyId",
        "RequestExpired",
    }
)


@dataclass(frozen=True, slots=True)
class ErrorAnswer:
    """An error answer of one call: its code, message and HTTP status, and how many
    requests the call sent."""

    code: str
    message: str
    status: int
    attempts: int


def jsonable(value: Any) -> Any:
    """botocore output with datetimes as ISO strings, so live and replayed data agree."""
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items() if k != "ResponseMetadata"}
    if isinstance(value, list):
        return [jsonable(v) for v in value]
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=dt.UTC)
        return value.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return value


def typed_error(
    service: str, operation: str, answer: ErrorAnswer
) -> AwsAccessError | CredentialsMissing:
    """The typed error of an error answer."""
    code, message = answer.code, answer.message
    if code in CREDENTIAL_CODES:
        # Expired or invalid credentials fail every call: stop, don't skip each check.
        return CredentialsMissing(f"{iam_action(service, operation)}: {code}: {message}")
    classified = _classify(service, operation, code, message, answer.attempts)
    classified.http_status = answer.status
    return classified


def _classify(
    service: str, operation: str, code: str, message: str, attempts: int = 1
) -> AwsAccessError:
    detail = f"{code}: {message}" if message else code
    if code in ACCESS_DENIED_CODES:
        return AccessDenied(service, operation, detail, code=code)
    if code in THROTTLING_CODES:
        return Throttled(service, operation, detail, attempts=attempts, code=code)
    if code in NOT_FOUND_CODES or code.endswith("NotFound") or code.endswith(".NotFound"):
        return ResourceNotFound(service, operation, detail, code=code)
    return AwsAccessError(service, operation, detail, attempts=attempts, code=code)
