"""`hyperpod-debug ticket`: the "before opening a case" checklist, done for the user.

Runs the read-only triage (focused on `--node` when given) and writes into DIR:
`summary.md` (the checklist filled in by `agent.ticket.build_ticket`, the same builder the
agent's `draft_support_ticket` tool uses), `triage.txt`, `triage.json` and
`ticket-<cluster>-<UTC stamp>.tar.gz`, a replayable case: the three files, the recording of
what the triage read (captured while it ran, as `record` does; with `--recorded`, the
recording replayed), the chat transcript given with `--transcript`, and `manifest.json`
(agent/ticket_archive.py). `triage`, `chat`, `ask` and `mcp --recorded` open the archive
directly. Every file is passed through `tools.redaction` before it is written; the archive
holds the same redacted bytes. With `--mask`, account ids, IP addresses, host names and
cluster names are then replaced by placeholders (`tools.masking`) in every file, the
recording and the transcript included, and the placeholder → real value mapping is written
to `mask-mapping.json` beside the archive, never into it, so answers can be read back. The
files are written under temporary names and renamed into place once all are complete.
"""

from __future__ import annotations

import json
import os
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from agent.commands.cluster_options import ALL_OPTIONS, ClusterArgs, cluster_options
from agent.commands.common import EXIT_FAILED, EXIT_USAGE, die
from agent.commands.options import RecordedFileOption
from tools.private import PRIVATE_MODE, write_private_files

if TYPE_CHECKING:
    from agent.ticket import TicketFacts
    from tools.recorded.model import RecordedCluster
    from tools.recorded.recorder import Recorder
    from tools.triage.report import TriageReport

SUMMARY, TRIAGE_TEXT, TRIAGE_JSON = "summary.md", "triage.txt", "triage.json"
MASK_MAPPING = "mask-mapping.json"
_UNSAFE = re.compile(r"[^A-Za-z0-9-]+")


def archive_name(cluster: str, created: datetime) -> str:
    """`ticket-<cluster>-<UTC stamp>.tar.gz`, the cluster name reduced to a file name."""
    name = _UNSAFE.sub("-", cluster).strip("-")[:63] or "cluster"
    return f"ticket-{name}-{created.astimezone(UTC).strftime('%Y%m%dT%H%M%SZ')}.tar.gz"


@cluster_options(ALL_OPTIONS)
def ticket_command(
    output: Annotated[
        Path, typer.Option("--output", "-o", help="Directory to write the bundle into.")
    ],
    cluster_args: ClusterArgs,
    since: Annotated[
        str | None,
        typer.Option(
            "--since",
            help="Start of the failure window: ISO-8601 (2026-11-20T10:00:00Z) or a span back "
            "from now (6h, 2d). Default: the earliest timestamp in the findings' evidence.",
        ),
    ] = None,
    recorded: RecordedFileOption = None,
    force: Annotated[
        bool, typer.Option("--force", help="Write into a DIR that is not empty.")
    ] = False,
    mask: Annotated[
        bool,
        typer.Option(
            "--mask",
            help="Also replace account ids, IP addresses, host names and cluster names by "
            f"placeholders; the mapping stays beside the archive in {MASK_MAPPING}.",
        ),
    ] = False,
    transcript: Annotated[
        Path | None,
        typer.Option(
            "--transcript",
            help="A chat transcript (chat --transcript or /save) to put in the archive, "
            "redacted (and masked with --mask).",
        ),
    ] = None,
) -> None:
    """Prepare an AWS Support case: triage read-only, then write a redacted summary, the
    triage report and an archive that replays the case (`triage --recorded ARCHIVE`), with
    the log-collection commands to run yourself."""
    from agent.commands.cluster_setup import run_or_exit, triage_set_up
    from agent.ticket import build_ticket, parse_since
    from agent.transcript import TranscriptError, read_transcript
    from tools.ownership.model import IacOwner
    from tools.ownership.resolve import cluster_owners
    from tools.recorded.recorder import Recorder
    from tools.triage.open_cluster import TRIAGE_TIME_BUDGET
    from tools.triage.runner import run_triage

    window = None
    if since is not None:
        try:
            window = parse_since(since)
        except ValueError as exc:
            die(str(exc), EXIT_USAGE)
    if transcript is not None:
        try:  # read now, before a long live triage: it is read again when written
            read_transcript(transcript)
        except TranscriptError as exc:
            die(f"--transcript: {exc}", EXIT_USAGE)
    cluster_set_up = triage_set_up(cluster_args, recorded, mismatch=_recorded_elsewhere)
    _prepare_directory(output, force=force)  # before a long live triage, not after it
    # A live triage is captured as it runs (the recorder of `record`): the archive replays
    # exactly what this triage read, with no second pass over the cluster. A replay packs
    # the recording it replays.
    recorder = Recorder() if cluster_set_up.recording is None else None

    def run() -> tuple[datetime, TriageReport, list[IacOwner]]:
        data = cluster_set_up.open(recorder=recorder, time_budget=TRIAGE_TIME_BUDGET)
        report = run_triage(data)
        # Who manages the cluster's network and clusters: each read alone, its failure said
        # in its line ("not recorded", AccessDenied), never the ticket's. Read while the
        # recorder listens, so the archive replays them too.
        return data.now, report, cluster_owners(data)

    now, report, owners = run_or_exit(run)
    if isinstance(window, datetime) and window > now:
        die(f"--since {since} is after the triage time {now:%Y-%m-%dT%H:%M:%SZ}", EXIT_USAGE)
    facts = build_ticket(report, now=now, since=window)
    facts.owners = owners
    created = datetime.now(UTC)
    target = cluster_set_up.target
    recording = cluster_set_up.recording or _built(recorder, target.cluster, target.region)
    paths = write_bundle(
        output,
        report,
        facts,
        created=created,
        mask=mask,
        recording=recording,
        transcript=transcript,
    )
    for path in paths:
        typer.echo(str(path))


def _built(recorder: Recorder | None, cluster: str, region: str) -> RecordedCluster:
    assert recorder is not None  # a live run always has one
    return recorder.build(
        cluster=cluster, region=region, description="recorded by hyperpod-debug ticket"
    )


def _recorded_elsewhere(path: Path, recorded_region: str, region: str) -> str:
    # ticket has always echoed these values unclipped: kept, so its messages stay the same.
    return f"{path} was recorded in {recorded_region}; --region {region} does not match"


def bundle_texts(report: TriageReport, facts: TicketFacts, *, created: datetime) -> dict[str, str]:
    """The three files of the bundle, each redacted as a whole before it is written."""
    from agent.ticket_bundle import render_summary
    from tools.redaction import redact, redact_output, redact_strings
    from tools.triage.render import render_text

    report_json = redact_strings(redact(report.to_json()))
    return {
        SUMMARY: redact_output(render_summary(facts, created=created)),
        TRIAGE_TEXT: redact_output(render_text(report, colour=False)),
        TRIAGE_JSON: json.dumps(report_json, indent=2, ensure_ascii=False) + "\n",
    }


def write_bundle(
    output: Path,
    report: TriageReport,
    facts: TicketFacts,
    *,
    created: datetime,
    recording: RecordedCluster,
    mask: bool = False,
    transcript: Path | None = None,
) -> list[Path]:
    """Write the files and the archive, all or none; one-line error (exit 1) when the disk
    refuses, exit 2 when the transcript cannot be read."""
    from agent.ticket_archive import (
        manifest,
        mask_json,
        recording_bytes,
        recording_json,
        transcript_bytes,
    )
    from agent.transcript import TranscriptError
    from tools.recorded.archive import RECORDING, TRANSCRIPT, write_archive

    texts = bundle_texts(report, facts, created=created)
    recorded = recording_json(recording)
    masker = None
    if mask:
        from tools.masking import Masker
        from tools.target import CLUSTER_NAME

        # The names (an ARN is masked by its account; an archive already masked holds
        # placeholders, which stay as they are).
        names = [n for n in (report.cluster.name, recording.cluster) if CLUSTER_NAME.match(n)]
        # One masker for every member: a name gets the same placeholder in each of them.
        masker = Masker(clusters=names)
        recorded = mask_json(recorded, masker)
        texts = {name: masker.mask(text) for name, text in texts.items()}
    members = {name: text.encode("utf-8", errors="replace") for name, text in texts.items()}
    members[RECORDING] = recording_bytes(recorded)
    if transcript is not None:
        try:
            members[TRANSCRIPT] = transcript_bytes(transcript, masker)
        except TranscriptError as exc:  # changed since it was read before the triage
            die(f"--transcript: {exc}", EXIT_USAGE)
    # A masked bundle does not name the cluster in its file names either.
    name = archive_name("masked" if mask else report.cluster.name, created)
    described = manifest(
        members,
        report=report,
        recorded_at=str(recorded["recorded_at"]),
        created=created,
        masker=masker,
        mapping_file=MASK_MAPPING,
    )
    archive = write_archive(
        name.removesuffix(".tar.gz"),
        members,
        described,
        mtime=int(created.timestamp()),
        mode=PRIVATE_MODE,  # extracted, the files stay private too
    )
    files = {filename: members[filename] for filename in texts}
    files[name] = archive
    if masker is not None:
        files[MASK_MAPPING] = masker.dumps().encode("utf-8")
    try:
        return write_private_files(output, files)
    except OSError as exc:
        die(f"cannot write {output}: {exc.strerror or exc}", EXIT_FAILED)


def _prepare_directory(output: Path, *, force: bool) -> None:
    """DIR must be a writable directory, empty unless --force; it is created if absent."""
    shown = str(output) if len(str(output)) <= 200 else str(output)[:199] + "…"
    try:
        if output.exists() and not output.is_dir():
            die(f"--output {shown} is not a directory", EXIT_USAGE)
        output.mkdir(parents=True, exist_ok=True)
        if not force and any(output.iterdir()):
            die(f"--output {shown} is not empty; pass --force to write into it", EXIT_USAGE)
    except OSError as exc:
        die(f"cannot use --output {shown}: {exc.strerror or exc}", EXIT_USAGE)
    if not os.access(output, os.W_OK | os.X_OK):
        die(f"cannot write into {shown}: permission denied", EXIT_USAGE)


def register(app: typer.Typer) -> None:
    app.command("ticket")(ticket_command)
