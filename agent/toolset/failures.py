"""What a failing tool says: to the model (what went wrong, what to do next) and, apart from
it, to a person (the problem and the remedy, with no instruction meant for a model).

The model's words ("ask the user ... then call use_cluster", "Tell the user: ...") address
the model; a slash command or a re-triage shows the person's words instead, and an
interface with commands of its own (the chat's /cluster) words the remedy by `kind`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from enum import StrEnum

from agent.toolset.budget import clip_line

log = logging.getLogger(__name__)


class ToolError(Exception):
    """A tool cannot answer; the message says what to do next."""


class FailureKind(StrEnum):
    NO_CLUSTER = "no_cluster"
    CREDENTIALS = "credentials"
    THROTTLED = "throttled"
    ENDPOINT = "endpoint"
    NOT_FOUND = "not_found"
    ACCESS = "access"
    SOURCE = "source"
    TOOL = "tool"
    """The tool refused the call (bad input, wrong moment): its message says why."""
    INTERNAL = "internal"


@dataclass(frozen=True)
class Failure:
    kind: FailureKind
    error: str
    """For the model: what went wrong."""
    next: str = ""
    """For the model: what to do next."""
    problem: str = ""
    """For a person: what went wrong (the model's `error` when it is empty)."""
    remedy: str = ""
    """For a person: what to do about it, in words that fit any interface."""

    def user_text(self) -> str:
        """The problem and its remedy, for a person."""
        problem = self.problem or self.error
        return f"{problem}. {self.remedy}" if self.remedy else problem


NO_CLUSTER_ERROR = (
    "no cluster is open: ask the user for the cluster name (or ARN) and region, then call "
    "use_cluster"
)


def describe_failure(exc: Exception) -> Failure:
    """The failure an exception out of a tool handler is, in both wordings."""
    from agent.toolset.cluster import NoCluster
    from tools.aws.errors import (
        AwsAccessError,
        CredentialsMissing,
        CredentialsThrottled,
        EndpointSettingError,
    )
    from tools.sources import SourceUnavailable
    from tools.triage.data import ClusterNotFound
    from tools.triage.open_cluster import CredentialsError

    if isinstance(exc, NoCluster):
        return Failure(
            FailureKind.NO_CLUSTER,
            str(exc),
            problem="No cluster is open",
            remedy="Name the cluster (or its ARN) and its region.",
        )
    if isinstance(exc, ToolError):
        return Failure(FailureKind.TOOL, str(exc))
    if isinstance(exc, CredentialsThrottled):  # the credentials may be fine
        said = clip_line(str(exc), 300)
        return Failure(
            FailureKind.THROTTLED,
            said,
            "Tell the user: AWS is throttling; wait and re-run.",
            problem=said.removesuffix("; wait and re-run"),
            remedy="Wait a minute and try again.",
        )
    if isinstance(exc, EndpointSettingError):
        said = clip_line(str(exc), 300)
        return Failure(
            FailureKind.ENDPOINT,
            said,
            "Tell the user to fix or unset that endpoint setting.",
            remedy="Fix or unset that endpoint setting, then start again.",
        )
    if isinstance(exc, CredentialsError | CredentialsMissing):
        said = f"AWS credentials are not usable ({clip_line(str(exc), 300)})"
        return Failure(
            FailureKind.CREDENTIALS,
            said,
            "Tell the user: fix your AWS credentials and re-run.",
            remedy="Fix your AWS credentials (a profile with --profile, `aws sso login`, or "
            "the AWS_* variables) and try again.",
        )
    if isinstance(exc, ClusterNotFound):
        listed = f" Clusters there: {', '.join(exc.available[:20])}." if exc.available else ""
        said = clip_line(f"{exc}.{listed}", 800)
        return Failure(
            FailureKind.NOT_FOUND,
            said,
            "Ask the user to confirm the cluster name and region.",
            problem=said.rstrip("."),
            remedy="Check the cluster name and the region.",
        )
    if isinstance(exc, AwsAccessError):
        hint = exc.hint or "Grant the listed IAM actions and re-run."
        return Failure(FailureKind.ACCESS, clip_line(exc.reason, 500), hint, remedy=hint)
    if isinstance(exc, SourceUnavailable):
        return Failure(FailureKind.SOURCE, clip_line(exc.reason, 500), exc.hint, remedy=exc.hint)
    log.debug("tool failed", exc_info=True)  # the traceback only under --debug
    return Failure(
        FailureKind.INTERNAL,
        f"internal error: {type(exc).__name__}: {clip_line(str(exc), 300)}",
        "Report this; continue with the other tools.",
        remedy="This is a bug: `hyperpod-debug --debug ...` shows the traceback to report.",
    )
