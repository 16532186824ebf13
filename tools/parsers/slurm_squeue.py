"""Parser of the squeue probe: jobs stuck completing or configuring, and their elapsed time.

`squeue --noheader --states=CG,CF --format='%i|%T|%M|%N|%j'`: `%M` is the time used,
`[days-]hours:minutes:seconds`, shortened to `hours:mm:ss` or `minutes:ss`; `%N` is a
compressed host list such as `ip-10-1-2-[3-4]`. Format from the Slurm sources and man pages.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tools.parsers.slurm_names import expand_hostlist
from tools.parsers.slurm_text import STATE_WORD, keep_error, lines

_JOB_STATES = {"CG": "COMPLETING", "CF": "CONFIGURING"}
_JOB_ID = re.compile(r"^\d+[0-9_+\[\]\-,%]*$")
_ELAPSED = re.compile(
    r"^(?:(?P<days>\d+)-(?P<dh>\d+):(?P<dm>\d+):(?P<ds>\d+)"
    r"|(?P<h>\d+):(?P<hm>\d+):(?P<hs>\d+)"
    r"|(?P<m>\d+):(?P<ms>\d+))$"
)


def parse_elapsed(text: str) -> int | None:
    """squeue's time used (`1-02:03:04`, `2:03:04`, `3:04`) in seconds; None otherwise
    (`INVALID`, `UNLIMITED`, garbage or out-of-range fields)."""
    match = _ELAPSED.match((text or "").strip())
    if match is None:
        return None
    g = match.groupdict()
    if g["days"] is not None:
        days, hours, minutes, seconds = (int(g[k]) for k in ("days", "dh", "dm", "ds"))
        if hours > 23:
            return None
    elif g["h"] is not None:
        days, hours, minutes, seconds = 0, int(g["h"]), int(g["hm"]), int(g["hs"])
    else:
        days, hours, minutes, seconds = 0, 0, int(g["m"]), int(g["ms"])
    if minutes > 59 or seconds > 59:
        return None
    return ((days * 24 + hours) * 60 + minutes) * 60 + seconds


@dataclass(frozen=True)
class SlurmJob:
    job_id: str
    state: str  # COMPLETING or CONFIGURING (or the state as printed when it is another)
    elapsed: str  # as squeue printed it
    elapsed_s: int | None  # the same in seconds, None when unreadable
    nodes: str  # the compressed host list as printed
    node_names: tuple[str, ...]  # expanded, at most HOSTLIST_CAP
    name: str


@dataclass(frozen=True)
class SqueueJobs:
    jobs: tuple[SlurmJob, ...]
    errors: tuple[str, ...] = ()
    unreadable: int = 0


def parse_squeue_jobs(text: str) -> SqueueJobs:
    jobs: list[SlurmJob] = []
    errors: list[str] = []
    unreadable = 0
    seen: set[str] = set()
    for line in lines(text):
        fields = line.split("|", 4)
        if len(fields) != 5 or not _JOB_ID.match(fields[0].strip()):
            if not keep_error(errors, line):
                unreadable += 1
            continue
        job_id, state, elapsed, nodes, name = (f.strip() for f in fields)
        state = state.upper()
        state = _JOB_STATES.get(state, state)
        if job_id in seen:
            continue
        if not STATE_WORD.match(state):
            unreadable += 1
            continue
        seen.add(job_id)
        jobs.append(
            SlurmJob(
                job_id=job_id,
                state=state,
                elapsed=elapsed,
                elapsed_s=parse_elapsed(elapsed),
                nodes=nodes,
                node_names=expand_hostlist(nodes),
                name=name,
            )
        )
    return SqueueJobs(tuple(jobs), tuple(errors), unreadable)
