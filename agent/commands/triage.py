"""`hyperpod-debug triage`: the read-only triage report, text or JSON."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TypeVar

import typer

from agent.commands.common import (
    EXIT_FAILED,
    EXIT_USAGE,
    build_target,
    die,
    load_recording_or_exit,
    resolve_region,
    shown,
    use_colour,
)

if TYPE_CHECKING:
    from tools.triage.report import TriageReport

T = TypeVar("T")


class OutputFormat(StrEnum):
    text = "text"
    json = "json"


ClusterOption = Annotated[
    str | None, typer.Option("--cluster", "-c", help="HyperPod cluster name or ARN.")
]
RegionOption = Annotated[
    str | None,
    typer.Option("--region", "-r", help="AWS region (default: AWS_REGION / AWS_DEFAULT_REGION)."),
]
NodeOption = Annotated[
    str | None, typer.Option("--node", "-n", help="Focus on one instance id, e.g. i-0abc...")
]
ProfileOption = Annotated[str | None, typer.Option("--profile", help="AWS profile to use.")]

# Node-level sources. The defaults repeat tools.probes.runner.DEFAULT_CONCURRENCY and
# tools.triage.data.node_probes.MAX_FAILING_NODES so that `--help` needs no import of them (a
# test keeps them equal).
PROBE_CONCURRENCY = 16
MAX_PROBE_NODES = 16
KubeconfigOption = Annotated[
    Path | None,
    typer.Option(
        "--kubeconfig",
        help="Kubeconfig for the EKS checks (default: KUBECONFIG, then ~/.kube/config).",
    ),
]
ContextOption = Annotated[
    str | None, typer.Option("--context", help="Kubeconfig context (default: its current one).")
]
NoProbesOption = Annotated[
    bool,
    typer.Option(
        "--no-probes", help="Open no SSM sessions to nodes; the node-level checks are skipped."
    ),
]
ProbeConcurrencyOption = Annotated[
    int,
    typer.Option("--probe-concurrency", min=1, max=64, help="Nodes probed at the same time."),
]
MaxProbeNodesOption = Annotated[
    int,
    typer.Option(
        "--max-probe-nodes",
        min=0,
        help="Without --node: how many failing nodes to probe (one accelerator node is "
        "always added).",
    ),
]


class _Progress:
    """A one-line progress indicator on stderr, only when stderr is a terminal."""

    def __init__(self) -> None:
        self.enabled = sys.stderr.isatty()

    def __call__(self, title: str, index: int, total: int) -> None:
        # Checks run side by side: this is called as each one finishes.
        if self.enabled:
            sys.stderr.write(f"\r\033[K[{index}/{total} checks done] {title}")
            sys.stderr.flush()

    def done(self) -> None:
        if self.enabled:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()


def triage_command(
    cluster: ClusterOption = None,
    region: RegionOption = None,
    node: NodeOption = None,
    recorded: Annotated[
        Path | None, typer.Option("--recorded", help="Replay a recorded cluster file.")
    ] = None,
    output_format: Annotated[
        OutputFormat, typer.Option("--format", "-f", help="Output format.")
    ] = OutputFormat.text,
    no_color: Annotated[bool, typer.Option("--no-color", help="Never colour the output.")] = False,
    problems_only: Annotated[
        bool,
        typer.Option(
            "--problems-only", "-p", help="Text output: only FAIL and WARN lines, then the summary."
        ),
    ] = False,
    profile: ProfileOption = None,
    kubeconfig: KubeconfigOption = None,
    context: ContextOption = None,
    no_probes: NoProbesOption = False,
    probe_concurrency: ProbeConcurrencyOption = PROBE_CONCURRENCY,
    max_probe_nodes: MaxProbeNodesOption = MAX_PROBE_NODES,
    simulate_latency: Annotated[
        str | None,
        typer.Option(
            "--simulate-latency",
            metavar="DURATION",
            help="With --recorded: wait this long (e.g. 50ms) before each recorded AWS or "
            "Kubernetes answer, as a live network would; shows how much of a live triage "
            "overlaps.",
        ),
    ] = None,
) -> None:
    """Triage a cluster read-only and print every finding with its reference section."""
    from tools.display import encodable
    from tools.triage.node_sources import NodeOptions
    from tools.triage.open_cluster import TRIAGE_TIME_BUDGET, open_cluster
    from tools.triage.render import render_text
    from tools.triage.runner import run_triage

    recording = load_recording_or_exit(recorded) if recorded else None
    if recording is not None:
        if region and region != recording.region:
            die(
                f"{shown(recorded)} was recorded in {shown(recording.region)}; "
                f"--region {shown(region)} does not match",
                EXIT_USAGE,
            )
        cluster = cluster or recording.cluster
        region = recording.region
    if not cluster:
        die("--cluster is required (a cluster name or ARN)", EXIT_USAGE)
    latency = 0.0
    if simulate_latency is not None:
        if recording is None:
            die("--simulate-latency applies to a replay: give it with --recorded FILE", EXIT_USAGE)
        latency = duration_or_exit("--simulate-latency", simulate_latency)
    target = build_target(cluster, resolve_region(region, cluster), node)
    options = NodeOptions(
        kubeconfig=kubeconfig,
        context=context,
        probes=not no_probes,
        probe_concurrency=probe_concurrency,
        max_probe_nodes=max_probe_nodes,
        replay_latency=latency,
    )
    progress = _Progress()

    def run() -> TriageReport:
        data = open_cluster(
            target,
            recorded=recording,
            options=options,
            profile=profile,
            time_budget=TRIAGE_TIME_BUDGET,
        )
        return run_triage(data, progress=progress)

    try:
        report = run_or_exit(run)
    finally:
        progress.done()
    if output_format is OutputFormat.json:
        typer.echo(encodable(json.dumps(report.to_json(), indent=2, ensure_ascii=False)))
    else:
        text = render_text(report, colour=use_colour(no_color), problems_only=problems_only)
        typer.echo(encodable(text), nl=False)


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
        # DescribeCluster itself failed (AccessDenied, unreachable endpoint, not recorded).
        hint = f" {exc.hint}" if exc.hint else ""
        die(f"cannot describe the cluster: {argument(exc.reason, 1000)}.{hint}", EXIT_FAILED)


def register(app: typer.Typer) -> None:
    app.command("triage")(triage_command)
