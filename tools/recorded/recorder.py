"""Capture every AWS call a triage makes, with secrets redacted, into a RecordedCluster."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from tools.aws.allowlist import iam_action
from tools.aws.errors import ACCESS_DENIED_CODES
from tools.recorded.model import (
    PAGING_PARAMS,
    Paging,
    RecordedCall,
    RecordedCluster,
    RecordedError,
    Unavailable,
)
from tools.recorded.replay import call_key
from tools.redaction import MASKED_ACCOUNT, REDACTED, AccountMasker, redact

__all__ = ["MASKED_ACCOUNT", "REDACTED", "Recorder", "redact"]


class Recorder:
    """Collects calls in order; a repeated identical call is stored once."""

    def __init__(self, *, mask_account: bool = False) -> None:
        # One masker for the whole recording: each real account keeps one fake id.
        self.mask_account: AccountMasker | bool = AccountMasker() if mask_account else False
        # The recording's clock: pass it as the triage's `now` so time-windowed calls
        # (FilterLogEvents startTime/endTime) are made with the parameters replay will use.
        self.now = datetime.now(UTC).replace(microsecond=0)
        self._calls: dict[str, RecordedCall] = {}
        self.unavailable: list[Unavailable] = []

    def _store(self, call: RecordedCall) -> None:
        self._calls[call_key(call.service, call.operation, call.params)] = call

    def _identity(self, params: dict[str, Any]) -> dict[str, Any]:
        identity = {k: v for k, v in params.items() if k not in PAGING_PARAMS}
        result: dict[str, Any] = redact(identity, mask_account=self.mask_account)
        return result

    def record_response(
        self,
        service: str,
        operation: str,
        params: dict[str, Any],
        response: dict[str, Any],
        *,
        paging: Paging | None = None,
    ) -> None:
        if (service, operation) == ("sts", "GetCallerIdentity"):
            # Only the account is used; the caller's role session name is personal data.
            response = {**response, "UserId": REDACTED, "Arn": REDACTED}
        self._store(
            RecordedCall(
                service=service,
                operation=operation,
                params=self._identity(params),
                response=redact(response, mask_account=self.mask_account),
                paging=paging,
            )
        )

    def record_error(
        self,
        service: str,
        operation: str,
        params: dict[str, Any],
        code: str,
        message: str,
        status: int,
    ) -> None:
        self._store(
            RecordedCall(
                service=service,
                operation=operation,
                params=self._identity(params),
                error=RecordedError(
                    code=code,
                    message=redact(message, mask_account=self.mask_account),
                    http_status=min(max(status, 300), 599),
                ),
            )
        )

    def build(self, *, cluster: str, region: str, description: str = "") -> RecordedCluster:
        return RecordedCluster(
            description=description,
            recorded_at=self.now.strftime("%Y-%m-%dT%H:%M:%SZ"),
            cluster=redact(cluster, mask_account=self.mask_account),
            region=region,
            aws=list(self._calls.values()),
            unavailable=[*self.unavailable, *self._denied_apis()],
        )

    def _denied_apis(self) -> list[Unavailable]:
        """Every API the recording could not read for lack of permission, at a glance."""
        return [
            Unavailable(kind="api", what=iam_action(c.service, c.operation), reason=c.error.code)
            for c in self._calls.values()
            if c.error is not None and c.error.code in ACCESS_DENIED_CODES
        ]
