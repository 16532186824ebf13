"""Open a cluster for reading (live, replayed or recorded), then triage it.

`open_cluster` is the one place that wires the guarded AWS access, the node-level sources
and the credentials preflight together; the CLI, the agent's tools, the recorder, the
benchmarks and the tests all open a cluster through it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from tools.aws.errors import (
    AwsAccessError,
    CredentialsMissing,
    CredentialsThrottled,
    NotRecorded,
    Throttled,
)
from tools.aws.session import AwsAccess
from tools.triage.data import ClusterData
from tools.triage.report import TriageReport
from tools.triage.runner import ProgressCallback, run_triage

if TYPE_CHECKING:
    from tools.recorded.model import RecordedCluster
    from tools.recorded.recorder import Recorder
    from tools.target import TriageTarget
    from tools.triage.data.node_probes import NodeSources
    from tools.triage.node_sources import NodeOptions


# The AWS calls of one CLI triage may take this long in all; then whatever was not read is
# listed under Skipped ("not read, the run's 45 s time budget ...") and the report printed.
# With at most one call in flight past it (connect 5 s, read 15 s), a triage whose APIs keep
# failing ends within about a minute. Node-probe sessions have limits of their own.
TRIAGE_TIME_BUDGET = 45.0


class CredentialsError(Exception):
    """sts:GetCallerIdentity failed: nothing else can work."""


def caller_account(access: AwsAccess) -> str:
    """The caller's account id; a replay without the call simply has no account.

    Raises CredentialsThrottled when AWS kept throttling the call (the credentials may be
    fine: wait and re-run), CredentialsError when it failed otherwise."""
    try:
        return str(access.call("sts", "GetCallerIdentity").get("Account", ""))
    except NotRecorded:
        return ""
    except CredentialsThrottled:
        raise
    except Throttled as exc:
        tries = f" after {exc.attempts} attempts" if exc.attempts else ""
        raise CredentialsThrottled(exc.action, f"{exc.code or 'throttled'}{tries}") from None
    except (CredentialsMissing, AwsAccessError) as exc:
        raise CredentialsError(str(exc)) from None


@dataclass(frozen=True, slots=True)
class DataSource:
    """Where a run's answers come from: `recorded` to replay, else AWS live through
    `profile` and `endpoint_url`; a live run is captured by `recorder` when given."""

    recorded: RecordedCluster | None = None
    recorder: Recorder | None = None
    profile: str | None = None
    endpoint_url: str | None = None


def open_access(
    target: TriageTarget, source: DataSource, *, replay_latency: float = 0.0
) -> AwsAccess:
    """The guarded AWS access of a run from `source`; a replay waits `replay_latency`
    seconds before each answer."""
    access = AwsAccess(
        target.region,
        profile=source.profile,
        replay=source.recorded,
        recorder=source.recorder,
        endpoint_url=source.endpoint_url,
    )
    if replay_latency:
        access.pace_replay(replay_latency)
    return access


def node_sources(access: AwsAccess, options: NodeOptions, source: DataSource) -> NodeSources:
    """Kubernetes, node probes and local Slurm for this run: from the recording when
    replaying, else live (captured by the source's recorder when recording)."""
    from tools.triage.node_sources import live_sources, replay_sources

    if source.recorded is not None:
        return replay_sources(source.recorded, options)
    return live_sources(
        access,
        options,
        profile=source.profile,
        endpoint_url=source.endpoint_url,
        recorder=source.recorder,
    )


def open_cluster(
    target: TriageTarget,
    *,
    source: DataSource | None = None,
    options: NodeOptions | None = None,
    now: datetime | None = None,
    preflight: bool = True,
    time_budget: float | None = None,
) -> ClusterData:
    """The data of one run against `target`: replayed from the source's recording, else
    live (and captured by its recorder when given). With `preflight`, sts:GetCallerIdentity
    is asked first and CredentialsError raised when it fails (nothing else could work), or
    CredentialsThrottled when AWS kept throttling it; the account it names is kept on the
    data. Nothing else is read until a check asks. A live run with `time_budget` sends no
    AWS call after that many seconds (see AwsAccess.set_time_budget)."""
    from tools.triage.node_sources import NodeOptions

    source = source or DataSource()
    options = options or NodeOptions()
    recorded, recorder = source.recorded, source.recorder
    access = open_access(
        target,
        source,
        replay_latency=options.replay_latency if recorded is not None else 0.0,
    )
    if time_budget is not None and recorded is None:
        access.set_time_budget(time_budget)
    sources = node_sources(access, options, source)
    if now is None:
        if recorded is not None:
            now = recording_time(recorded)
        elif recorder is not None:
            now = recorder.now
    account = caller_account(access) if preflight else ""
    data = ClusterData(access, target, now=now or datetime.now(UTC), sources=sources)
    data.account = account
    return data


def triage_cluster(
    target: TriageTarget,
    access: AwsAccess,
    *,
    now: datetime | None = None,
    progress: ProgressCallback | None = None,
    sources: NodeSources | None = None,
) -> TriageReport:
    """Triage through an access built by hand (tests of the access layer use it). Raises
    CredentialsError or ClusterNotFound for the two conditions that stop a triage. Without
    `sources` the node-level checks are skipped as not configured."""
    data = ClusterData(access, target, now=now or datetime.now(UTC), sources=sources)
    data.account = caller_account(access)
    return run_triage(data, progress=progress)


def recording_time(recording: RecordedCluster) -> datetime:
    stamp = recording.recorded_at.replace("Z", "+00:00")
    parsed = datetime.fromisoformat(stamp)
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
