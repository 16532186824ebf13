"""`hyperpod-debug triage`: the read-only triage report, text or JSON."""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated

import typer

from agent.commands.cluster_options import ALL_OPTIONS, ClusterArgs, cluster_options
from agent.commands.common import use_colour
from agent.commands.options import NoColorOption, RecordedFileOption

if TYPE_CHECKING:
    from tools.triage.report import TriageReport


class OutputFormat(StrEnum):
    text = "text"
    json = "json"


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


@cluster_options(ALL_OPTIONS, access_before="simulate_latency")
def triage_command(
    cluster_args: ClusterArgs,
    recorded: RecordedFileOption = None,
    output_format: Annotated[
        OutputFormat, typer.Option("--format", "-f", help="Output format.")
    ] = OutputFormat.text,
    no_color: NoColorOption = False,
    problems_only: Annotated[
        bool,
        typer.Option(
            "--problems-only", "-p", help="Text output: only FAIL and WARN lines, then the summary."
        ),
    ] = False,
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
    from agent.commands.cluster_setup import run_or_exit, triage_set_up
    from tools.display import encodable
    from tools.triage.open_cluster import TRIAGE_TIME_BUDGET
    from tools.triage.render import render_text
    from tools.triage.runner import run_triage

    cluster_set_up = triage_set_up(cluster_args, recorded, simulate_latency=simulate_latency)
    progress = _Progress()

    def run() -> TriageReport:
        data = cluster_set_up.open(time_budget=TRIAGE_TIME_BUDGET)
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


def register(app: typer.Typer) -> None:
    app.command("triage")(triage_command)
