"""Pieces shared by the Slurm checks: naming a node, an unreadable probe as INFO, and
whose Slurm answered (this machine or the controller) on every finding."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from tools.findings import Finding, info
from tools.text import clip
from tools.triage.data.slurm_reads import SlurmNodeRow, SlurmRead
from tools.triage.data.slurm_source import SlurmSource

# Groups whose nodes are not Slurm compute nodes (the controller, login nodes): they are
# not expected in sinfo, so a missing Slurm node there is not a finding.
NOT_COMPUTE_GROUP = re.compile(r"controller|head|login", re.IGNORECASE)

GROUP_ABOVE = 20  # more problem nodes or jobs of one kind than this make one finding
SAMPLES = 10  # names and instance ids a grouped finding carries


def where(host: str) -> str:
    return "this machine" if host == "local" else f"the controller {host}"


def node_label(name: str, rows: Mapping[str, SlurmNodeRow]) -> str:
    """`ip-10-1-2-3 (i-0abc, group workers)`, or the bare name when it is not mapped."""
    row = rows.get(name)
    if row is None or not row.instance_id:
        return name
    group = f", group {clip(row.group, 60)}" if row.group else ""
    return f"{name} ({row.instance_id}{group})"


def instances_of(names: list[str], rows: Mapping[str, SlurmNodeRow]) -> list[str]:
    found: list[str] = []
    for name in names:
        row = rows.get(name)
        if row is not None and row.instance_id and row.instance_id not in found:
            found.append(row.instance_id)
    return found


def could_not_read(
    check_id: str, section: str, read: SlurmRead[Any], host: str, what: str
) -> Finding:
    """An output that is missing, failed or cut off: INFO, never a judgement."""
    return info(
        check_id,
        section,
        f"Could not read {what} on {where(host)}: {clip(read.problem, 160)}",
        probe=read.probe,
        problem=clip(read.problem) if read.problem else read.problem,
        exit_code=read.output.exit_code if read.output else None,
        output=clip(read.output.stdout, 300) if read.output else "",
    )


def with_source(findings: Iterable[Finding], source: SlurmSource) -> list[Finding]:
    """The findings, each with where the Slurm probes ran and why there in its evidence
    (a judgement of the wrong cluster's Slurm must be visible as such)."""
    extra = source.evidence()
    return [f.model_copy(update={"evidence": {**f.evidence, **extra}}) for f in findings]


def source_note(check_id: str, section: str, source: SlurmSource) -> list[Finding]:
    """An INFO saying whose Slurm answered, when this machine's was considered (it has
    sinfo); nothing when it was not, since the controller is then the only source."""
    if source.local:
        text = f"Slurm state read on this machine: {clip(source.reason, 300)}"
    elif source.local_rejected:
        text = (
            f"Slurm state read from the controller {source.host} over SSM, not from this "
            f"machine's Slurm: {clip(source.local_rejected, 300)}"
        )
    else:
        return []
    return [info(check_id, section, text)]
