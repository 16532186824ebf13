"""`hyperpod-debug verify`: is a suggestion made earlier still valid? Re-read only what it rests on.

The input is a saved chat transcript (format 2: its state line holds the pending
suggestions) or an `ask --format json` output (its mutating `suggested_commands`). Each
suggestion's preconditions are re-read (agent/verify.py) on the live cluster or a
recording, and the answer is **still valid**, **stale** (what changed) or **could not be
checked**, with the age of the evidence.

Exit codes: 0 every suggestion verified is still valid; 1 one is stale or could not be
checked (or the cluster could not be opened); 2 bad arguments, or a file that is neither
a transcript nor an `ask` output (one line on stderr).
"""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Literal

import typer

from agent.commands.cluster_options import ClusterArgs, cluster_options
from agent.commands.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, die
from agent.commands.options import RecordedFileOption


def _recording_beside(name: str, transcript: Path) -> Path | None:
    for candidate in (Path(name), transcript.parent / Path(name).name):
        if candidate.is_file():
            return candidate
    return None


@cluster_options(("cluster", "region", "profile"))
def verify_command(
    file: Annotated[
        Path,
        typer.Argument(
            help="A saved chat transcript (/save, --transcript) or an `ask --format json` output.",
            show_default=False,
        ),
    ],
    number: Annotated[
        int | None,
        typer.Argument(help="Which suggestion (1 = the first listed); all when omitted.", min=1),
    ] = None,
    *,  # the cluster options take no default here: `cluster_options` gives them theirs
    cluster_args: ClusterArgs,
    recorded: RecordedFileOption = None,
    output_format: Annotated[
        Literal["text", "json"], typer.Option("--format", "-f", help="Output format.")
    ] = "text",
) -> None:
    """Check suggestions made earlier against the cluster now: still valid, or stale."""
    from agent.commands.cluster_setup import run_or_exit, triage_set_up
    from agent.verify import (
        InputError,
        all_valid,
        load_suggestions,
        numbered,
        render_text,
        to_json,
    )
    from agent.verify import verify_suggestions as verify_all
    from tools.display import argument, encodable
    from tools.triage.open_cluster import recording_time

    try:
        loaded = load_suggestions(file)
    except InputError as exc:
        die(str(exc), EXIT_USAGE)
    try:
        chosen = numbered(loaded.suggestions, number)
    except ValueError as exc:
        die(f"{argument(file)}: {exc}", EXIT_USAGE)
    if not chosen:
        typer.echo(f"{argument(file)} holds no suggestion waiting to be run: nothing to verify.")
        raise typer.Exit(EXIT_OK)
    if recorded is None and cluster_args.cluster is None and loaded.recorded:
        # The recording the chat replayed, as `chat --resume` finds it.
        found = _recording_beside(loaded.recorded[-1], file)
        if found is None:
            die(
                f"{argument(file)} replayed {argument(loaded.recorded[-1], 120)}, which is not "
                "here: give it with --recorded FILE (or --cluster NAME --region REGION)",
                EXIT_USAGE,
            )
        recorded = found
    if recorded is None and cluster_args.cluster is None:
        region = cluster_args.region or loaded.region
        cluster_args = replace(cluster_args, cluster=loaded.cluster, region=region)
        if cluster_args.cluster is None:
            die(
                f"{argument(file)} names no cluster: give --cluster NAME --region REGION "
                "or --recorded FILE",
                EXIT_USAGE,
            )
    set_up = triage_set_up(cluster_args, recorded)
    data = run_or_exit(set_up.open)
    now = datetime.now(UTC)
    checked_at = recording_time(set_up.recording) if set_up.recording is not None else now
    verdicts = verify_all(chosen, data, checked_at=checked_at, now=now)
    if output_format == "json":
        typer.echo(encodable(json.dumps(to_json(verdicts), indent=2, ensure_ascii=False)))
    else:
        typer.echo(encodable(render_text(verdicts, now)))
    # `chosen` is not empty here: every verdict still valid is all_valid's rule.
    raise typer.Exit(EXIT_OK if all_valid(verdicts) else EXIT_FAILED)


def register(app: typer.Typer) -> None:
    app.command("verify")(verify_command)
