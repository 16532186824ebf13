"""Capture every AWS call a triage makes, with secrets redacted, into a RecordedCluster."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from tools.recorded.model import (
    PAGING_PARAMS,
    Paging,
    RecordedCall,
    RecordedCluster,
    RecordedError,
    Unavailable,
)
from tools.recorded.replay import call_key

REDACTED = "<redacted>"
_SECRET_KEYS = re.compile(
    r"(secret|password|passwd|token|credential|session[_-]?key|private[_-]?key|"
    r"access[_-]?key|auth(orization)?$|certificate[_-]?authority|kubeconfig)",
    re.IGNORECASE,
)
# Keys whose name looks secret but whose value is needed to replay faithfully.
_KEEP_KEYS = frozenset({"NextToken", "nextToken", "TokenKey"})
_SECRET_VALUES = (
    re.compile(r"\b(AKIA|ASIA)[A-Z0-9]{16}\b"),
    re.compile(r"(?i)(aws_secret_access_key|secret)\s*[=:]\s*\S+"),
    re.compile(r"\bk8s-aws-v1\.[A-Za-z0-9_\-]+"),
    re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----"),
)
_ACCOUNT_IN_ARN = re.compile(r"(arn:aws[a-z-]*:[a-z0-9-]*:[a-z0-9-]*:)(\d{12})(:)")
_BARE_ACCOUNT = re.compile(r"\b\d{12}\b")
MASKED_ACCOUNT = "111122223333"


def redact(value: Any, *, mask_account: bool = False) -> Any:
    """Remove credentials, tokens and secret values; optionally mask account ids."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if key not in _KEEP_KEYS and _SECRET_KEYS.search(str(key)) and item not in (None, ""):
                out[key] = REDACTED
            else:
                out[key] = redact(item, mask_account=mask_account)
        return out
    if isinstance(value, list):
        return [redact(item, mask_account=mask_account) for item in value]
    if isinstance(value, str):
        text = value
        for pattern in _SECRET_VALUES:
            text = pattern.sub(REDACTED, text)
        if mask_account:
            text = _ACCOUNT_IN_ARN.sub(rf"\g<1>{MASKED_ACCOUNT}\g<3>", text)
            text = _BARE_ACCOUNT.sub(MASKED_ACCOUNT, text)
        return text
    return value


class Recorder:
    """Collects calls in order; a repeated identical call is stored once."""

    def __init__(self, *, mask_account: bool = False) -> None:
        self.mask_account = mask_account
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
            unavailable=self.unavailable,
        )
