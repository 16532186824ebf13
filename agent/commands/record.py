"""`hyperpod-debug record`: capture a live triage into one recorded-cluster file."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from agent.commands.cluster_options import ALL_OPTIONS, ClusterArgs, cluster_options
from agent.commands.common import EXIT_FAILED, EXIT_USAGE, die, shown

if TYPE_CHECKING:
    from tools.triage.report import TriageReport


@cluster_options(ALL_OPTIONS)
def record_command(
    output: Annotated[Path, typer.Option("--output", "-o", help="File to write.")],
    cluster_args: ClusterArgs,
    mask_account: Annotated[
        bool, typer.Option("--mask-account", help="Replace AWS account ids with 111122223333.")
    ] = False,
    description: Annotated[str, typer.Option("--description", help="Free-text note.")] = "",
) -> None:
    """Run a read-only triage on a live cluster and save everything it read (AWS calls,
    Kubernetes objects, node probe outputs), secrets redacted."""
    from agent.commands.cluster_setup import run_or_exit, triage_set_up
    from tools.ownership.resolve import cluster_owners
    from tools.recorded.model import dump_recorded
    from tools.recorded.recorder import Recorder
    from tools.triage.runner import run_triage

    cluster_set_up = triage_set_up(cluster_args)
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
