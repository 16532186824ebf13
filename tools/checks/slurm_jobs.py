"""§ H.2: jobs stuck CONFIGURING or COMPLETING.

The probe prints squeue's "time used" (`%M`). For a CONFIGURING job that is the time since
its nodes were allocated, so it measures how long the job has waited for them (booting,
prolog). For a COMPLETING job it is the job's run time, frozen when the job ended: it says
nothing about how long the job has been completing, so it is never compared with the
threshold. A COMPLETING job is judged stuck when one of its nodes is out of service in
sinfo (DOWN, not responding, ...): such a node cannot finish the clean-up by itself.
Otherwise it is reported as INFO, since a job passes through COMPLETING on every exit.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from tools.checks._slurm import (
    GROUP_ABOVE,
    SAMPLES,
    could_not_read,
    instances_of,
    node_label,
    where,
    with_source,
)
from tools.findings import Finding, Findings, Priority
from tools.parsers.slurm_sinfo import SlurmNode
from tools.parsers.slurm_squeue import SlurmJob, SqueueJobs
from tools.registry import check
from tools.text import clip, duration
from tools.triage.data import ClusterData
from tools.triage.data.slurm_reads import SlurmNodeRow

CHECK_ID = "slurm-jobs"
FINDINGS = Findings(CHECK_ID, "H.2")
# CONFIGURING covers node boot and the prolog: minutes at most when nodes are already up.
# Ten minutes is well past that, and short enough that a job waiting on a node that never
# comes back is caught in the same triage.
STUCK_AFTER_S = 600
COMPLETING, CONFIGURING = "COMPLETING", "CONFIGURING"


def _job_label(job: SlurmJob) -> str:
    return f"Job {clip(job.job_id, 40)}" + (f" ({clip(job.name, 60)})" if job.name else "")


def _nodes_text(job: SlurmJob, rows: Mapping[str, SlurmNodeRow]) -> str:
    if not job.node_names:
        return clip(job.nodes, 80) or "no nodes"
    shown = ", ".join(node_label(n, rows) for n in job.node_names[:3])
    more = len(job.node_names) - 3
    return shown + (f" and {more} more" if more > 0 else "")


def _evidence(job: SlurmJob) -> dict[str, object]:
    return {
        "job_id": job.job_id,
        "name": clip(job.name, 120),
        "state": job.state,
        "time_used": clip(job.elapsed, 40),
        "time_used_s": job.elapsed_s,
        "nodes": clip(job.nodes, 300),
    }


def _judge_job(
    job: SlurmJob,
    nodes: Mapping[str, SlurmNode],
    rows: Mapping[str, SlurmNodeRow],
    threshold_s: int,
) -> Finding | None:
    resources = instances_of(list(job.node_names), rows)[:SAMPLES]
    if job.state == CONFIGURING:
        if job.elapsed_s is None or job.elapsed_s < threshold_s:
            return None
        return FINDINGS.fail(
            Priority.P1,
            f"{_job_label(job)} has been CONFIGURING for {duration(job.elapsed_s)} on "
            f"{_nodes_text(job, rows)}: its nodes are still booting or running the prolog",
            resources=resources,
            **_evidence(job),
        )
    if job.state != COMPLETING:
        return None
    out = [nodes[n] for n in job.node_names if n in nodes and nodes[n].problems]
    if out:
        states = ", ".join(f"{n.name} is {clip(n.state.raw, 40)}" for n in out[:3])
        return FINDINGS.fail(
            Priority.P1,
            f"{_job_label(job)} is stuck COMPLETING on {_nodes_text(job, rows)}: {states}, "
            "so the clean-up cannot finish until that node is back or set down and resumed",
            resources=resources,
            out_of_service=[n.name for n in out],
            **_evidence(job),
        )
    return FINDINGS.info(
        f"{_job_label(job)} was COMPLETING on {_nodes_text(job, rows)} when probed (squeue "
        "does not show since when): if it is still there on a second run, see § H.2",
        resources=resources,
        **_evidence(job),
    )


def judge_stuck_jobs(
    jobs: SqueueJobs,
    nodes: Mapping[str, SlurmNode],
    rows: Mapping[str, SlurmNodeRow],
    *,
    threshold_s: int = STUCK_AFTER_S,
    group_above: int = GROUP_ABOVE,
) -> list[Finding]:
    """FAIL P1 for each stuck job (CONFIGURING past the threshold, or COMPLETING on a node
    out of service), INFO for other COMPLETING jobs; beyond `group_above` findings of one
    kind, one finding with the count and sample job ids."""
    if not jobs.jobs:
        return [FINDINGS.passed("No job is COMPLETING or CONFIGURING")]
    judged = [_judge_job(job, nodes, rows, threshold_s) for job in jobs.jobs]
    findings = [f for f in judged if f is not None]
    stuck = [f for f in findings if f.priority is not None]
    notes = [f for f in findings if f.priority is None]
    result: list[Finding] = []
    for kind, members in (("stuck", stuck), ("completing", notes)):
        if len(members) <= group_above:
            result.extend(members)
            continue
        ids = [str(f.evidence["job_id"]) for f in members]
        resources = sorted({r for f in members for r in f.resources})[:SAMPLES]
        text = f"{len(members):,} jobs " + (
            "are stuck CONFIGURING or COMPLETING"
            if kind == "stuck"
            else "were COMPLETING when probed (squeue does not show since when)"
        )
        text += f", e.g. {', '.join(ids[:5])}"
        evidence = {"count": len(members), "sample_jobs": ids[:SAMPLES]}
        result.append(
            FINDINGS.fail(Priority.P1, text, resources=resources, **evidence)
            if kind == "stuck"
            else FINDINGS.info(text, resources=resources, **evidence)
        )
    if not stuck:
        result.append(
            FINDINGS.passed(
                f"No job stuck: none CONFIGURING for {duration(threshold_s)} or more, none "
                "COMPLETING on a node out of service"
            )
        )
    return result


@check(FINDINGS, title="Slurm jobs stuck", orchestrators=("slurm",), scope="node")
def slurm_jobs(data: ClusterData) -> Iterable[Finding]:
    """Jobs CONFIGURING for 10 minutes or more, or COMPLETING on a node out of service."""
    return with_source(_judge_jobs(data), data.slurm_source())


def _judge_jobs(data: ClusterData) -> list[Finding]:
    state = data.slurm_state()
    read = state.jobs
    if read.value is None or read.problem:
        return [could_not_read(CHECK_ID, "H.2", read, state.host, "stuck jobs (squeue)")]
    sinfo = state.nodes.value
    nodes = {n.name: n for n in sinfo.nodes} if sinfo is not None else {}
    jobs = read.value
    rows: dict[str, SlurmNodeRow] = {}
    if jobs.jobs:
        rows = {r.slurm_name: r for r in data.slurm_node_map().rows if r.slurm_name}
    findings = judge_stuck_jobs(jobs, nodes, rows)
    if jobs.jobs and not nodes:
        findings.append(
            FINDINGS.info(
                f"sinfo could not be read on {where(state.host)}: COMPLETING jobs were not "
                "checked against their nodes' states"
            )
        )
    return findings
