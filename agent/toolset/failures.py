"""What a failing tool tells the model: what went wrong, and what to do next."""

from __future__ import annotations

import logging

from agent.toolset.budget import clip_line

log = logging.getLogger(__name__)


class ToolError(Exception):
    """A tool cannot answer; the message says what to do next."""


def describe_failure(exc: Exception) -> tuple[str, str]:
    """(what went wrong, what to do next) for an exception out of a tool handler."""
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

    if isinstance(exc, ToolError | NoCluster):
        return str(exc), ""
    if isinstance(exc, CredentialsThrottled):  # the credentials may be fine
        return clip_line(str(exc), 300), "Tell the user: AWS is throttling; wait and re-run."
    if isinstance(exc, EndpointSettingError):
        return clip_line(str(exc), 300), "Tell the user to fix or unset that endpoint setting."
    if isinstance(exc, CredentialsError | CredentialsMissing):
        return (
            f"AWS credentials are not usable ({clip_line(str(exc), 300)})",
            "Tell the user: fix your AWS credentials and re-run.",
        )
    if isinstance(exc, ClusterNotFound):
        listed = f" Clusters there: {', '.join(exc.available[:20])}." if exc.available else ""
        return (
            clip_line(f"{exc}.{listed}", 800),
            "Ask the user to confirm the cluster name and region.",
        )
    if isinstance(exc, AwsAccessError):
        return clip_line(exc.reason, 500), exc.hint or "Grant the listed IAM actions and re-run."
    if isinstance(exc, SourceUnavailable):
        return clip_line(exc.reason, 500), exc.hint
    log.debug("tool failed", exc_info=True)  # the traceback only under --debug
    return (
        f"internal error: {type(exc).__name__}: {clip_line(str(exc), 300)}",
        "Report this; continue with the other tools.",
    )
