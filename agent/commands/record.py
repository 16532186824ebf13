"""`hyperpod-debug record`: capture a live triage into one recorded-cluster file."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from agent.commands.common import EXIT_FAILED, EXIT_USAGE, die, shown
from agent.commands.options import (
    MAX_PROBE_NODES,
    PROBE_CONCURRENCY,
    ClusterOption,
    ContextOption,
    KubeconfigOption,
    MaxProbeNodesOption,
    NodeOption,
    NoProbesOption,
    ProbeConcurrencyOption,
    ProfileOption,
    RegionOption,
)

if TYPE_CHECKING:
    from tools.triage.report import TriageReport


def record_command(
    output: Annotated[Path, typer.Option("--output", "-o", help="File to write.")],
    cluster: ClusterOption = None,
    region: RegionOption = None,
    node: NodeOption = None,
    mask_account: Annotated[
        bool, typer.Option("--mask-account", help="Replace AWS account ids with 111122223333.")
    ] = False,
    description: Annotated[str, typer.Option("--description", help="Free-text note.")] = "",
    profile: ProfileOption = None,
    kubeconfig: KubeconfigOption = None,
    context: ContextOption = None,
    no_probes: NoProbesOption = False,
    probe_concurrency: ProbeConcurrencyOption = PROBE_CONCURRENCY,
    max_probe_nodes: MaxProbeNodesOption = MAX_PROBE_NODES,
) -> None:
    """Run a read-only triage on a live cluster and save everything it read (AWS calls,
    Kubernetes objects, node probe outputs), secrets redacted."""
    from agent.commands.cluster_setup import ClusterArgs, run_or_exit, triage_set_up
    from tools.ownership.resolve import cluster_owners
    from tools.recorded.model import dump_recorded
    from tools.recorded.recorder import Recorder
    from tools.triage.runner import run_triage

    args = ClusterArgs(
        cluster=cluster,
        region=region,
        node=node,
        profile=profile,
        kubeconfig=kubeconfig,
        context=context,
        no_probes=no_probes,
        probe_concurrency=probe_concurrency,
        max_probe_nodes=max_probe_nodes,
    )
    cluster_set_up = triage_set_up(args)
    _check_writable(output)  # before a long live triage, not after it
    recorder = Recorder(mask_account=mask_account)

    def run() -> TriageReport:
        data = cluster_set_up.open(recorder=recorder)
        report = run_triage(data)
        # Who manages the cluster's security groups, subnets, VPCs and clusters (tags,
        # CloudFormation's record): read now so that a replay can state the owner of what a
        # suggestion changes instead of answering "not recorded".
        cluster_owners(data)
        return report

    report = run_or_exit(run)
    target = cluster_set_up.target
    recording = recorder.build(
        cluster=target.cluster, region=target.region, description=description
    )
    try:
        dump_recorded(recording, output)
    except OSError as exc:  # a full disk (ENOSPC), a quota, the folder gone meanwhile
        die(f"cannot write {shown(output)}: {exc.strerror or exc}", EXIT_FAILED)
    problems = len(report.problems())
    typer.echo(
        f"Recorded {len(recording.aws)} calls and {len(recording.probes)} probed node(s) "
        f"to {output} ({problems} problem finding(s), {len(report.skipped)} skipped)."
    )


def _check_writable(output: Path) -> None:
    """A path that cannot be written (too long, a directory, no permission) is a bad
    argument, found before a long live triage rather than after it."""
    try:
        if output.is_dir():
            die(f"--output {shown(output)} is a directory; give a file name", EXIT_USAGE)
        output.parent.mkdir(parents=True, exist_ok=True)
        writable = os.access(output.parent, os.W_OK) and (
            not output.exists() or os.access(output, os.W_OK)
        )
        # The name itself: a component over NAME_MAX fails only when the file is opened.
        limit = os.pathconf(output.parent, "PC_NAME_MAX") if hasattr(os, "pathconf") else 255
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        die(f"cannot write {shown(output)}: {reason}", EXIT_USAGE)
    if not writable:
        die(f"cannot write {shown(output)}: permission denied", EXIT_USAGE)
    if len(os.fsencode(output.name)) > limit:
        die(f"cannot write {shown(output)}: File name too long", EXIT_USAGE)


def register(app: typer.Typer) -> None:
    app.command("record")(record_command)
