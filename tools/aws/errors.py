"""Errors of the AWS access layer, as values the triage runner can turn into skips."""

from __future__ import annotations

from tools.aws.allowlist import iam_action

ACCESS_DENIED_CODES = frozenset(
    {
        "AccessDenied",
        "AccessDeniedException",
        "UnauthorizedOperation",
        "UnauthorizedException",
        "AuthorizationError",
        "NotAuthorized",
    }
)


class AwsAccessError(Exception):
    """Base class: an AWS read that did not produce data."""

    def __init__(self, service: str, operation: str, detail: str = "") -> None:
        self.service = service
        self.operation = operation
        self.detail = detail
        super().__init__(self.reason)

    @property
    def action(self) -> str:
        return iam_action(self.service, self.operation)

    @property
    def reason(self) -> str:
        return f"{self.action} failed: {self.detail}"

    @property
    def hint(self) -> str:
        return ""


class MutatingOperationRefused(AwsAccessError):
    """The guard refused an operation outside the read-only allow-list."""

    @property
    def reason(self) -> str:
        if self.detail:
            return f"refused {self.action}: {self.detail}"
        return f"refused {self.action}: not in the read-only allow-list"


class AccessDenied(AwsAccessError):
    @property
    def reason(self) -> str:
        return f"Missing IAM permission for {self.action}"

    @property
    def hint(self) -> str:
        return "Grant the listed IAM actions and re-run (see docs/iam-policy.md)."


class Throttled(AwsAccessError):
    @property
    def reason(self) -> str:
        return f"{self.action} was throttled after retries: {self.detail}"

    @property
    def hint(self) -> str:
        return "Re-run later, or narrow the scope with --node."


class ResourceNotFound(AwsAccessError):
    @property
    def reason(self) -> str:
        return f"{self.action}: not found ({self.detail})"


class EndpointUnreachable(AwsAccessError):
    @property
    def reason(self) -> str:
        return f"{self.action}: AWS endpoint unreachable ({self.detail})"

    @property
    def hint(self) -> str:
        return "Check network access to the AWS API endpoints for this region."


class NotRecorded(AwsAccessError):
    """Replay asked for a call the recorded cluster does not hold: fail loudly."""

    @property
    def reason(self) -> str:
        return f"not recorded: {self.action} {self.detail}"

    @property
    def hint(self) -> str:
        return (
            "Re-record the cluster, or add this call to the recorded file "
            "(docs/recorded-cluster.md)."
        )


class CredentialsMissing(Exception):
    """No usable AWS credentials: triage cannot start."""
