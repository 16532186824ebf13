"""Start a triage run: credentials preflight, then the report (live, replayed or recorded)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

from tools.aws.errors import AwsAccessError, CredentialsMissing, NotRecorded
from tools.aws.session import AwsAccess
from tools.triage.data import ClusterData
from tools.triage.report import TriageReport
from tools.triage.runner import ProgressCallback, run_triage

if TYPE_CHECKING:
    from tools.recorded.model import RecordedCluster
    from tools.recorded.recorder import Recorder
    from tools.triage.data.nodes import NodeSources
    from tools.triage.node_sources import NodeOptions
    from tools.triage.target import TriageTarget


class CredentialsError(Exception):
    """sts:GetCallerIdentity failed: nothing else can work."""


def caller_account(access: AwsAccess) -> str:
    """The caller's account id; a replay without the call simply has no account."""
    try:
        return str(access.call("sts", "GetCallerIdentity").get("Account", ""))
    except NotRecorded:
        return ""
    except (CredentialsMissing, AwsAccessError) as exc:
        raise CredentialsError(str(exc)) from None


def open_access(
    target: TriageTarget,
    *,
    recording: RecordedCluster | None = None,
    recorder: Recorder | None = None,
    profile: str | None = None,
    endpoint_url: str | None = None,
) -> AwsAccess:
    return AwsAccess(
        target.region,
        profile=profile,
        replay=recording,
        recorder=recorder,
        endpoint_url=endpoint_url,
    )


def node_sources(
    access: AwsAccess,
    options: NodeOptions,
    *,
    recording: RecordedCluster | None = None,
    recorder: Recorder | None = None,
    profile: str | None = None,
    endpoint_url: str | None = None,
) -> NodeSources:
    """Kubernetes, node probes and local Slurm for this run: from the recording when
    replaying, else live (captured by `recorder` when recording)."""
    from tools.triage.node_sources import live_sources, replay_sources

    if recording is not None:
        return replay_sources(recording, options)
    return live_sources(
        access, options, profile=profile, endpoint_url=endpoint_url, recorder=recorder
    )


def triage_cluster(
    target: TriageTarget,
    access: AwsAccess,
    *,
    now: datetime | None = None,
    progress: ProgressCallback | None = None,
    sources: NodeSources | None = None,
) -> TriageReport:
    """Preflight the credentials, then run every check. Raises CredentialsError or
    ClusterNotFound for the two conditions that stop a triage. Without `sources` the
    node-level checks are skipped as not configured."""
    account = caller_account(access)
    data = ClusterData(access, target, now=now or datetime.now(UTC), sources=sources)
    return run_triage(data, account=account, progress=progress)


def recording_time(recording: RecordedCluster) -> datetime:
    stamp = recording.recorded_at.replace("Z", "+00:00")
    parsed = datetime.fromisoformat(stamp)
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
