"""From the cluster-opening options to what a command runs on, written once for `triage`,
`record`, `ticket`, `mcp`, `chat` and `ask`: the recording(s) replayed, the triage target,
the node-level options, and the conditions that stop a run mapped onto the exit codes.

The checks run in one order for every command, because the first failing one is the
message the user sees: a recording that cannot be read, a sequence of recordings of two
clusters, a --region the recording contradicts, a missing cluster (triage's
--simulate-latency next), then the target itself. The heavy modules (the target model,
the node sources, the session) load only when a command runs: `--help` imports this module.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import typer

from agent.commands.cluster_options import ClusterArgs
from agent.commands.common import (
    EXIT_FAILED,
    EXIT_USAGE,
    build_target,
    die,
    load_recording_or_exit,
    resolve_region,
    shown,
)

if TYPE_CHECKING:
    from agent.toolset import Toolset
    from tools.recorded.model import RecordedCluster
    from tools.recorded.recorder import Recorder
    from tools.target import TriageTarget
    from tools.triage.data import ClusterData
    from tools.triage.node_sources import NodeOptions

# ClusterArgs is declared with the options (agent/commands/cluster_options.py, which
# `--help` loads) and re-exported here, beside the set-ups that take it.
__all__ = [
    "MAX_SIMULATED_LATENCY",
    "ClusterArgs",
    "RegionMismatch",
    "SessionSetUp",
    "TriageSetUp",
    "duration_or_exit",
    "recorded_elsewhere",
    "run_or_exit",
    "session_set_up",
    "triage_set_up",
]

T = TypeVar("T")


# The usage error for a --region that the recording contradicts, from the recording's path,
# its region and --region.
RegionMismatch = Callable[[Path, str, str], str]


def recorded_elsewhere(path: Path, recorded_region: str, region: str) -> str:
    """The usual wording of a --region that the recording contradicts."""
    return (
        f"{shown(path)} was recorded in {shown(recorded_region)}; "
        f"--region {shown(region)} does not match"
    )


@dataclass(frozen=True)
class TriageSetUp:
    """One triage run's cluster: always a target, a recording to replay or none (live)."""

    target: TriageTarget
    recording: RecordedCluster | None
    node_options: NodeOptions
    profile: str | None

    def open(
        self, *, recorder: Recorder | None = None, time_budget: float | None = None
    ) -> ClusterData:
        """The cluster's data, replayed or read live (and captured by ``recorder``)."""
        from tools.triage.open_cluster import DataSource, open_cluster

        return open_cluster(
            self.target,
            source=DataSource(recorded=self.recording, recorder=recorder, profile=self.profile),
            options=self.node_options,
            time_budget=time_budget,
        )


@dataclass(frozen=True)
class SessionSetUp:
    """A conversation's cluster: the target, or None until the user names one (the agent
    asks), and the region in effect without one."""

    target: TriageTarget | None
    region: str | None
    recordings: list[RecordedCluster]
    node_options: NodeOptions
    profile: str | None

    def toolset(self) -> Toolset:
        """The agent's tools over this cluster, with a fresh conversation state."""
        from agent.state import ConversationState
        from agent.toolset import Toolset
        from agent.toolset.cluster import ClusterSession

        session = ClusterSession(
            target=self.target,
            recordings=self.recordings,
            options=self.node_options,
            profile=self.profile,
        )
        state = ConversationState(
            cluster=self.target.cluster if self.target else None,
            region=self.region,
            focus_node=self.target.node if self.target else None,
        )
        return Toolset(session, state)


def triage_set_up(
    args: ClusterArgs,
    recorded: Path | None = None,
    *,
    simulate_latency: str | None = None,
    mismatch: RegionMismatch = recorded_elsewhere,
) -> TriageSetUp:
    """The cluster a triage runs on; a usage error (exit 2) when it is not named, cannot be
    read, or the options contradict each other. ``simulate_latency`` is triage's
    --simulate-latency, which only a replay takes."""
    recordings, args = _replayed(args, [recorded] if recorded else [], mismatch)
    recording = recordings[0] if recordings else None
    if not args.cluster:
        die("--cluster is required (a cluster name or ARN)", EXIT_USAGE)
    latency = 0.0
    if simulate_latency is not None:
        if recording is None:
            die("--simulate-latency applies to a replay: give it with --recorded FILE", EXIT_USAGE)
        latency = duration_or_exit("--simulate-latency", simulate_latency)
    target = build_target(args.cluster, resolve_region(args.region, args.cluster), args.node)
    return TriageSetUp(target, recording, _node_options(args, latency), args.profile)


def session_set_up(
    args: ClusterArgs, recorded: list[Path], *, mismatch: RegionMismatch = recorded_elsewhere
) -> SessionSetUp:
    """The cluster a conversation starts on: none is fine (the agent asks for it), but a
    --node without a cluster is a usage error, as are the errors of `triage_set_up`."""
    recordings, args = _replayed(args, recorded, mismatch)
    target = None
    if args.cluster:
        target = build_target(args.cluster, resolve_region(args.region, args.cluster), args.node)
    elif args.node:
        die("--node needs --cluster (or --recorded)", EXIT_USAGE)
    region = target.region if target else args.region
    return SessionSetUp(target, region, recordings, _node_options(args), args.profile)


def _replayed(
    args: ClusterArgs, paths: list[Path], mismatch: RegionMismatch
) -> tuple[list[RecordedCluster], ClusterArgs]:
    """The recordings, loaded; the first one's cluster and region stand in for --cluster
    (when not given) and --region. Later ones (the cluster after a fix) must be the same
    cluster."""
    recordings = [load_recording_or_exit(path) for path in paths]
    if not recordings:
        return recordings, args
    first = recordings[0]
    for path, other in zip(paths[1:], recordings[1:], strict=True):
        if (other.cluster, other.region) != (first.cluster, first.region):
            die(
                f"{shown(path)} records {shown(other.cluster)} ({shown(other.region)}), "
                f"not {shown(first.cluster)} ({shown(first.region)}): a sequence of "
                "recordings must be one cluster",
                EXIT_USAGE,
            )
    if args.region and args.region != first.region:
        die(mismatch(paths[0], first.region, args.region), EXIT_USAGE)
    return recordings, replace(args, cluster=args.cluster or first.cluster, region=first.region)


def _node_options(args: ClusterArgs, replay_latency: float = 0.0) -> NodeOptions:
    from tools.triage.node_sources import NodeOptions

    return NodeOptions(
        kubeconfig=args.kubeconfig,
        context=args.context,
        probes=not args.no_probes,
        probe_concurrency=args.probe_concurrency,
        max_probe_nodes=args.max_probe_nodes,
        replay_latency=replay_latency,
    )


_DURATION = re.compile(r"(?P<value>\d+(?:\.\d+)?)\s*(?P<unit>ms|s)?")
MAX_SIMULATED_LATENCY = 10.0  # seconds; more is a typo, not a network


def duration_or_exit(option: str, text: str) -> float:
    """Seconds from "50ms", "0.05s" or "0.05" (seconds); a usage error otherwise."""
    match = _DURATION.fullmatch(text.strip())
    if match is None:
        die(f"{option}: {shown(text)} is not a duration (e.g. 50ms or 0.05s)", EXIT_USAGE)
    seconds = float(match["value"]) / (1000 if match["unit"] == "ms" else 1)
    if seconds > MAX_SIMULATED_LATENCY:
        die(f"{option}: at most {MAX_SIMULATED_LATENCY:g}s per answer", EXIT_USAGE)
    return seconds


def run_or_exit(run: Callable[[], T]) -> T:
    """Map the conditions that stop a triage onto the exit-code contract."""
    from tools.aws.errors import (
        AwsAccessError,
        CredentialsMissing,
        CredentialsThrottled,
        EndpointSettingError,
    )
    from tools.display import argument, printable
    from tools.triage.data import ClusterNotFound
    from tools.triage.open_cluster import CredentialsError

    try:
        return run()
    except EndpointSettingError as exc:  # AWS_ENDPOINT_URL or the like: a bad argument
        die(printable(str(exc)), EXIT_USAGE)
    except CredentialsThrottled as exc:  # the credentials may be fine: not "fix them"
        die(f"{printable(str(exc))}.", EXIT_FAILED)
    except (CredentialsError, CredentialsMissing) as exc:
        typer.echo(f"error: AWS credentials are not usable ({printable(str(exc))}).", err=True)
        die("Fix your AWS credentials and re-run.", EXIT_FAILED)
    except ClusterNotFound as exc:
        typer.echo(f"error: {argument(exc, 1000)}", err=True)
        if exc.available:
            listed = ", ".join(argument(name, 100) for name in exc.available)
            typer.echo(f"Clusters in {exc.region}: {listed}", err=True)
        elif exc.listing_error:
            typer.echo(
                f"Could not list the clusters in {exc.region}: {argument(exc.listing_error, 500)}",
                err=True,
            )
        else:
            typer.echo(f"No HyperPod clusters are visible in {exc.region}.", err=True)
        die("Confirm the cluster name and region.", EXIT_FAILED)
    except AwsAccessError as exc:
        # DescribeCluster itself failed (AccessDenied, unreachable endpoint, not recorded):
        # reading the cluster at all is the first prerequisite, so nothing was triaged and
        # the run is no completed triage (exit 1, as for a cluster that is not found).
        hint = f" {exc.hint}" if exc.hint else ""
        die(
            f"nothing could be read, so nothing was triaged: cannot describe the cluster: "
            f"{argument(exc.reason, 1000)}.{hint}",
            EXIT_FAILED,
        )
