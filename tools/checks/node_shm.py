"""§ I.3: /dev/shm on the host above 80 % (DataLoader workers and NCCL pass data through it).

Above the seed's threshold is a FAIL P1: a full /dev/shm shows up as bus errors and dying
DataLoader workers, and on the host it usually holds files left by crashed jobs.
"""

from __future__ import annotations

from collections.abc import Iterable

from tools.checks._node_reads import healthy_summary, partly_read, read_probe, unreadable
from tools.findings import Finding, Findings, Priority
from tools.parsers.df import DfReport, parse_df
from tools.registry import check
from tools.triage.data import ClusterData

CHECK_ID = "node-shm"
FINDINGS = Findings(CHECK_ID, "I.3")
SHM = "/dev/shm"
SHM_P1_PCT = 80


def shm_use_pct(usage: DfReport) -> int | None:
    """Use% of /dev/shm when df reported it as its own mount."""
    row = usage.row_for(SHM)
    if row is None or row.mounted_on != SHM:
        return None
    return row.use_pct


def judge_shm(node: str, usage_pct: int, size_kib: int | None = None) -> list[Finding]:
    if usage_pct <= SHM_P1_PCT:
        return []
    size = f" of {size_kib // 1024} MiB" if size_kib else ""
    return [
        FINDINGS.fail(
            Priority.P1,
            f"/dev/shm on {node} is {usage_pct} % full{size} (above {SHM_P1_PCT} %): "
            "DataLoader workers and NCCL fail with bus errors; look for files left by "
            "crashed jobs before removing anything",
            resources=[node],
            mount=SHM,
            use_pct=usage_pct,
            size_kib=size_kib,
            threshold_pct=SHM_P1_PCT,
        )
    ]


@check(FINDINGS, title="Shared memory (/dev/shm)", scope="node")
def node_shm(data: ClusterData) -> Iterable[Finding]:
    """/dev/shm usage of each probed node."""
    findings: list[Finding] = []
    healthy: list[str] = []
    usage_by_node: dict[str, int] = {}
    for node in data.reachable_nodes():
        read = read_probe(node, "disk_usage")
        report = parse_df(read.text)
        pct = shm_use_pct(report)
        if pct is None:
            problem = read.problem or (
                "df did not report /dev/shm as a mount" if report.rows else None
            )
            findings.append(unreadable(FINDINGS, "/dev/shm usage", node, problem, "disk_usage"))
            continue
        if read.truncated:
            findings.append(partly_read(CHECK_ID, "I.3", "/dev/shm usage", node, "disk_usage"))
        row = report.row_for(SHM)
        problems = judge_shm(node.instance_id, pct, row.size if row else None)
        findings += problems
        if not problems:
            healthy.append(node.instance_id)
            usage_by_node[node.instance_id] = pct
    return findings + healthy_summary(
        CHECK_ID, "I.3", f"/dev/shm below {SHM_P1_PCT} %", healthy, use_pct=usage_by_node
    )
