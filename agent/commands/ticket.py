"""`hyperpod-debug ticket`: the "before opening a case" checklist, done for the user.

Runs the read-only triage (focused on `--node` when given) and writes into DIR:
`summary.md` (the checklist filled in by `agent.ticket.build_ticket`, the same builder the
agent's `draft_support_ticket` tool uses), `triage.txt`, `triage.json` and
`ticket-<cluster>-<UTC stamp>.tar.gz` holding the three. Every file is passed through
`tools.redaction` before it is written; the archive holds the same redacted bytes. With
`--mask`, account ids, IP addresses, host names and cluster names are then replaced by
placeholders (`tools.masking`) and the placeholder → real value mapping is written to
`mask-mapping.json` beside the archive, never into it, so answers can be read back.
"""

from __future__ import annotations

import io
import json
import os
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from agent.commands.common import EXIT_FAILED, EXIT_USAGE, die
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
    RecordedFileOption,
    RegionOption,
)
from tools.private import PRIVATE_MODE, write_private

if TYPE_CHECKING:
    from agent.ticket import TicketFacts
    from tools.masking import Masker
    from tools.triage.report import TriageReport

SUMMARY, TRIAGE_TEXT, TRIAGE_JSON = "summary.md", "triage.txt", "triage.json"
MASK_MAPPING = "mask-mapping.json"
_UNSAFE = re.compile(r"[^A-Za-z0-9-]+")


def archive_name(cluster: str, created: datetime) -> str:
    """`ticket-<cluster>-<UTC stamp>.tar.gz`, the cluster name reduced to a file name."""
    name = _UNSAFE.sub("-", cluster).strip("-")[:63] or "cluster"
    return f"ticket-{name}-{created.astimezone(UTC).strftime('%Y%m%dT%H%M%SZ')}.tar.gz"


def ticket_command(
    output: Annotated[
        Path, typer.Option("--output", "-o", help="Directory to write the bundle into.")
    ],
    cluster: ClusterOption = None,
    region: RegionOption = None,
    node: NodeOption = None,
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
    profile: ProfileOption = None,
    kubeconfig: KubeconfigOption = None,
    context: ContextOption = None,
    no_probes: NoProbesOption = False,
    probe_concurrency: ProbeConcurrencyOption = PROBE_CONCURRENCY,
    max_probe_nodes: MaxProbeNodesOption = MAX_PROBE_NODES,
) -> None:
    """Prepare an AWS Support case: triage read-only, then write a redacted summary, the
    triage report and an archive of both, with the log-collection commands to run yourself."""
    from agent.commands.cluster_setup import ClusterArgs, run_or_exit, triage_set_up
    from agent.ticket import build_ticket, parse_since
    from tools.ownership.model import IacOwner
    from tools.ownership.resolve import cluster_owners
    from tools.triage.open_cluster import TRIAGE_TIME_BUDGET
    from tools.triage.runner import run_triage

    window = None
    if since is not None:
        try:
            window = parse_since(since)
        except ValueError as exc:
            die(str(exc), EXIT_USAGE)
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
    cluster_set_up = triage_set_up(args, recorded, mismatch=_recorded_elsewhere)
    _prepare_directory(output, force=force)  # before a long live triage, not after it

    def run() -> tuple[datetime, TriageReport, list[IacOwner]]:
        data = cluster_set_up.open(time_budget=TRIAGE_TIME_BUDGET)
        report = run_triage(data)
        # Who manages the cluster's network and clusters: each read alone, its failure said
        # in its line ("not recorded", AccessDenied), never the ticket's.
        return data.now, report, cluster_owners(data)

    now, report, owners = run_or_exit(run)
    if isinstance(window, datetime) and window > now:
        die(f"--since {since} is after the triage time {now:%Y-%m-%dT%H:%M:%SZ}", EXIT_USAGE)
    facts = build_ticket(report, now=now, since=window)
    facts.owners = owners
    created = datetime.now(UTC)
    paths = write_bundle(output, report, facts, created=created, mask=mask)
    for path in paths:
        typer.echo(str(path))


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


def masked_texts(texts: dict[str, str], cluster: str) -> tuple[dict[str, str], Masker]:
    """The redacted texts with identifying names replaced by placeholders, one masker for
    all three so a name gets the same placeholder in every file."""
    from tools.masking import Masker

    masker = Masker(clusters=[cluster])
    return {name: masker.mask(text) for name, text in texts.items()}, masker


def write_bundle(
    output: Path,
    report: TriageReport,
    facts: TicketFacts,
    *,
    created: datetime,
    mask: bool = False,
) -> list[Path]:
    """Write the files and the archive; one-line error (exit 1) when the disk refuses."""
    texts = bundle_texts(report, facts, created=created)
    masker = None
    if mask:
        texts, masker = masked_texts(texts, report.cluster.name)
    # A masked bundle does not name the cluster in its file names either.
    name = archive_name("masked" if mask else report.cluster.name, created)
    folder = name.removesuffix(".tar.gz")
    import tarfile  # only when a bundle is written: keeps `--help` light

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for filename, text in texts.items():
            data = text.encode("utf-8", errors="replace")
            info = tarfile.TarInfo(f"{folder}/{filename}")
            info.size = len(data)
            info.mtime = int(created.timestamp())
            info.mode = PRIVATE_MODE  # extracted, the files stay private too
            archive.addfile(info, io.BytesIO(data))
    paths = []
    try:
        for filename, text in texts.items():
            path = output / filename
            write_private(path, text)
            paths.append(path)
        path = output / name
        write_private(path, buffer.getvalue())
        paths.append(path)
        if masker is not None:
            path = output / MASK_MAPPING
            masker.save(path)
            paths.append(path)
    except OSError as exc:
        die(f"cannot write {output}: {exc.strerror or exc}", EXIT_FAILED)
    return paths


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
