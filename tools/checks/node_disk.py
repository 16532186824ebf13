"""§ I.1: disk space and inodes of the root volume, /opt/sagemaker and the instance store.

Thresholds are the seed's. Above a threshold is a FAIL at its priority, with one
exception chosen here: the root volume between 80 % and 90 % is a WARN P1, since the
volume still works and the P0 tier above 90 % is the failure; the 80 % tier is the
early warning that writes should move to /opt/sagemaker or /opt/dlami/nvme while there
is room. /dev/shm usage is judged by node-shm (§ I.3); its inodes are judged here with
every other file system.
"""

from __future__ import annotations

from collections.abc import Iterable

from tools.checks._node_reads import (
    healthy_summary,
    partly_read,
    read_probe,
    unreadable,
)
from tools.findings import Finding, Findings, Priority
from tools.parsers.df import DfReport, parse_df
from tools.registry import check
from tools.text import clip
from tools.triage.data import ClusterData

CHECK_ID = "node-disk"
FINDINGS = Findings(CHECK_ID, "I.1")
ROOT, SAGEMAKER, NVME = "/", "/opt/sagemaker", "/opt/dlami/nvme"
ROOT_P0_PCT = 90
ROOT_P1_PCT = 80
SAGEMAKER_P1_PCT = 90
INODES_P1_PCT = 90


def judge_disk(
    node: str, usage: DfReport | None, inodes: DfReport | None, instance_store: bool
) -> list[Finding]:
    """Problems of one node's df (blocks) and df -i (inodes); `node` is its instance id. A
    report of None was not readable and is not judged."""
    findings: list[Finding] = []
    if usage is not None:
        findings += _judge_usage(node, usage)
        if instance_store:
            findings += _judge_instance_store(node, usage)
    if inodes is not None:
        findings += _judge_inodes(node, inodes)
    return findings


def _own_pct(report: DfReport, path: str) -> int | None:
    """Use% of `path` only when it is its own mount (a path under "/" is the root's row)."""
    row = report.row_for(path)
    if row is None or row.mounted_on != path:
        return None
    return row.use_pct


def _judge_usage(node: str, usage: DfReport) -> list[Finding]:
    findings: list[Finding] = []
    root = _own_pct(usage, ROOT)
    if root is not None and root > ROOT_P0_PCT:
        findings.append(
            FINDINGS.fail(
                Priority.P0,
                f"Root volume of {node} is {root} % full (above {ROOT_P0_PCT} %): writes to / "
                "fail soon; move images, caches and checkpoints to /opt/sagemaker or "
                "/opt/dlami/nvme",
                resources=[node],
                mount=ROOT,
                use_pct=root,
                threshold_pct=ROOT_P0_PCT,
            )
        )
    elif root is not None and root > ROOT_P1_PCT:
        findings.append(
            FINDINGS.warn(
                Priority.P1,
                f"Root volume of {node} is {root} % full (above {ROOT_P1_PCT} %); it cannot "
                "be grown, so redirect caches and scratch space to /opt/sagemaker or "
                "/opt/dlami/nvme",
                resources=[node],
                mount=ROOT,
                use_pct=root,
                threshold_pct=ROOT_P1_PCT,
            )
        )
    sagemaker = _own_pct(usage, SAGEMAKER)
    if sagemaker is not None and sagemaker > SAGEMAKER_P1_PCT:
        findings.append(
            FINDINGS.fail(
                Priority.P1,
                f"/opt/sagemaker on {node} is {sagemaker} % full (above {SAGEMAKER_P1_PCT} %)",
                resources=[node],
                mount=SAGEMAKER,
                use_pct=sagemaker,
                threshold_pct=SAGEMAKER_P1_PCT,
            )
        )
    return findings


def _judge_instance_store(node: str, usage: DfReport) -> list[Finding]:
    mounted = usage.is_mount_point(NVME)
    if mounted is not False:
        return []
    row = usage.row_for(NVME)
    # Mount points and file system names are the node's text: clipped and redacted.
    seen = (
        f"df reports it under {clip(row.mounted_on, 80)}"
        if row is not None
        else "the directory does not exist"
    )
    return [
        FINDINGS.warn(
            Priority.P2,
            f"Instance store of {node} is not mounted at {NVME} ({seen}): data written there "
            "lands on the small root volume",
            resources=[node],
            path=NVME,
            reported_mount=clip(row.mounted_on, 200) if row is not None else None,
            missing=NVME in usage.missing,
        )
    ]


def _judge_inodes(node: str, inodes: DfReport) -> list[Finding]:
    return [
        FINDINGS.fail(
            Priority.P1,
            f"Inodes of {clip(row.mounted_on, 80)} on {node} are {row.use_pct} % used (above "
            f"{INODES_P1_PCT} %): file creation fails even with free space; look for "
            "directories with millions of small files",
            resources=[node],
            mount=clip(row.mounted_on, 200),
            filesystem=clip(row.filesystem, 200),
            inode_use_pct=row.use_pct,
            inodes=row.size,
            threshold_pct=INODES_P1_PCT,
        )
        for row in inodes.mounts()
        if row.use_pct is not None and row.use_pct > INODES_P1_PCT
    ]


def _usage_evidence(report: DfReport | None) -> dict[str, int | None]:
    if report is None:
        return {}
    return {clip(row.mounted_on, 200): row.use_pct for row in report.mounts()}


@check(FINDINGS, title="Disk space and inodes", scope="node")
def node_disk(data: ClusterData) -> Iterable[Finding]:
    """Root, /opt/sagemaker and inode usage of each probed node; the instance store mount."""
    findings: list[Finding] = []
    healthy: list[str] = []
    evidence: dict[str, dict[str, dict[str, int | None]]] = {}
    for node in data.reachable_nodes():
        reports: dict[str, DfReport | None] = {}
        for probe, what in (("disk_usage", "disk usage"), ("disk_inodes", "inode usage")):
            read = read_probe(node, probe)
            report = parse_df(read.text)
            if not report.rows:
                findings.append(unreadable(FINDINGS, what, node, read.problem, probe))
                reports[probe] = None
                continue
            if read.truncated:
                findings.append(partly_read(CHECK_ID, "I.1", what, node, probe))
            reports[probe] = report
        store = bool(node.instance_type) and data.instance_facts(node.instance_type).instance_store
        problems = judge_disk(
            node.instance_id, reports["disk_usage"], reports["disk_inodes"], store
        )
        findings += problems
        if not problems and all(r is not None for r in reports.values()):
            healthy.append(node.instance_id)
            evidence[node.instance_id] = {
                "use_pct": _usage_evidence(reports["disk_usage"]),
                "inode_use_pct": _usage_evidence(reports["disk_inodes"]),
            }
    return findings + healthy_summary(
        CHECK_ID, "I.1", "Disk space and inodes below thresholds", healthy, usage=evidence
    )
