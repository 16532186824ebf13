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
    """Base class: an AWS read that did not produce data.

    `attempts` is how many requests were sent for the call (the first and its retries),
    when known; `again` marks an error repeated without asking AWS, because the same API
    failed the same way moments earlier in this run (see AwsAccess's failure budget)."""

    def __init__(
        self,
        service: str,
        operation: str,
        detail: str = "",
        *,
        attempts: int | None = None,
        code: str = "",
    ) -> None:
        self.service = service
        self.operation = operation
        self.detail = detail
        self.attempts = attempts
        self.code = code
        self.http_status = 0  # of the last answer, when there was one
        self.again = False
        super().__init__(self.reason)

    @property
    def action(self) -> str:
        return iam_action(self.service, self.operation)

    @property
    def reason(self) -> str:
        if self.again:
            return f"{self.describe()} (not asked again: it failed moments earlier)"
        return self.describe()

    def describe(self) -> str:
        if self.attempts and self.attempts > 1:
            return f"{self.action} failed after {self.attempts} attempts: {self.detail}"
        return f"{self.action} failed: {self.detail}"

    def repeated(self) -> AwsAccessError:
        """A copy of this error for a later call of the same API that was not sent."""
        copy = type(self)(
            self.service, self.operation, self.detail, attempts=self.attempts, code=self.code
        )
        copy.http_status = self.http_status
        copy.again = True
        return copy

    def __str__(self) -> str:
        return self.reason

    @property
    def hint(self) -> str:
        return ""


class MutatingOperationRefused(AwsAccessError):
    """The guard refused an operation outside the read-only allow-list."""

    def describe(self) -> str:
        if self.detail:
            return f"refused {self.action}: {self.detail}"
        return f"refused {self.action}: not in the read-only allow-list"


class AccessDenied(AwsAccessError):
    def describe(self) -> str:
        return f"Missing IAM permission for {self.action}"

    @property
    def hint(self) -> str:
        return "Grant the listed IAM actions and re-run (see docs/iam-policy.md)."


class Throttled(AwsAccessError):
    def describe(self) -> str:
        tries = f" after {self.attempts} attempts" if self.attempts else " after retries"
        return f"{self.action}: throttled ({self.code or self.detail}){tries}"

    @property
    def hint(self) -> str:
        return "Re-run later, or narrow the scope with --node."


class UnknownOperation(AwsAccessError):
    """The installed botocore has no such operation (an API newer than the SDK): the read
    is skipped, like a denied one, with the way to get it."""

    def describe(self) -> str:
        return f"{self.action} is unknown to the installed botocore ({self.detail})"

    @property
    def hint(self) -> str:
        return "Upgrade boto3/botocore (pip install -U boto3) to read it."


class ResourceNotFound(AwsAccessError):
    def describe(self) -> str:
        return f"{self.action}: not found ({self.detail})"


class EndpointUnreachable(AwsAccessError):
    def describe(self) -> str:
        return f"{self.action}: AWS endpoint unreachable ({self.detail})"

    @property
    def hint(self) -> str:
        return "Check network access to the AWS API endpoints for this region."


class TimedOut(EndpointUnreachable):
    """Every attempt hit the connect or read timeout."""

    def describe(self) -> str:
        tries = f" after {self.attempts} attempts" if self.attempts else ""
        return f"{self.action}: timed out{tries} ({self.detail})"


class OutOfTime(AwsAccessError):
    """The run's time budget for AWS calls ran out before (or while retrying) this call."""

    def describe(self) -> str:
        return f"{self.action}: not read, {self.detail}"

    @property
    def hint(self) -> str:
        return "Re-run later (AWS was slow or throttling), or narrow the scope with --node."


class NotRecorded(AwsAccessError):
    """Replay asked for a call the recorded cluster does not hold: fail loudly.

    `why` says why the recording lacks it when replay knows (the recording was made by an
    earlier version, which never made this call: `predates`), and `remedy` replaces the
    generic hint then (the command that re-records the cluster)."""

    why = ""
    remedy = ""
    predates = False

    def explained(self, why: str, remedy: str = "", *, predates: bool = False) -> NotRecorded:
        """This error, saying why the call is missing and what to do about it."""
        self.why, self.remedy, self.predates = why, remedy, predates
        return self

    def describe(self) -> str:
        why = f" — {self.why}" if self.why else ""
        return f"not recorded: {self.action} {self.detail}{why}"

    @property
    def hint(self) -> str:
        if self.remedy:
            return self.remedy
        return (
            "Re-record the cluster, or add this call to the recorded file "
            "(docs/recorded-cluster.md)."
        )


class CredentialsMissing(Exception):
    """No usable AWS credentials: triage cannot start."""


class CredentialsThrottled(CredentialsMissing):
    """AWS kept throttling the call that proves or obtains the credentials (the
    sts:GetCallerIdentity preflight, an sts:AssumeRole of a role profile): the credentials
    may be fine, nothing can be read now. Stops a run like CredentialsMissing."""

    def __init__(self, action: str, detail: str = "") -> None:
        self.action = action
        self.detail = detail
        extra = f" ({detail})" if detail else ""
        super().__init__(f"AWS is throttling {action}{extra}; wait and re-run")


class EndpointSettingError(ValueError):
    """A configured endpoint URL (AWS_ENDPOINT_URL, AWS_ENDPOINT_URL_<SERVICE>, a profile's
    endpoint_url or an explicit endpoint) is not a URL botocore can use: a bad argument."""
