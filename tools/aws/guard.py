"""The guard every AWS call passes before it is answered, live or replayed.

First the read-only allow-list (tools/aws/allowlist.py), then the parameter rule of the two
SSM session operations (tools/aws/ssm_guard.py). A live call meets it in botocore's
`before-parameter-build` hook, before any request is built; a replayed call meets it before
the recording is read, so a recording exercises the guard as a live run does.
"""

from __future__ import annotations

from collections.abc import Container, Mapping
from typing import Any

from tools.aws.allowlist import is_allowed
from tools.aws.errors import MutatingOperationRefused
from tools.aws.ssm_guard import refusal


def guard_call(
    service: str, operation: str, params: Mapping[str, Any], started: Container[str]
) -> None:
    """Raise MutatingOperationRefused unless the call may be sent: the operation is on the
    allow-list and its parameters pass its rule (`started`: the SessionIds this run
    opened)."""
    if not is_allowed(service, operation):
        raise MutatingOperationRefused(service, operation)
    # Some allowed operations (an SSM session) are safe only with exact parameters.
    reason = refusal(service, operation, params, started)
    if reason is not None:
        raise MutatingOperationRefused(service, operation, reason)
