"""EKS node name ↔ instance id ↔ instance group, and HyperPod nodes that never joined.

Section F.2: it is where the reference explains how HyperPod EKS nodes are named and how
to read a node's labels, which is what a person needs to connect a Kubernetes node with
an instance. A Running instance without a Kubernetes node cannot run pods; why it did not
join (lifecycle script, EKS access entry, networking) is told by the other checks.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from tools.checks._grouping import GROUP_ABOVE
from tools.checks._kube import SAMPLES, examples
from tools.findings import Finding, Findings, Priority, bounded
from tools.registry import check
from tools.triage.data import ClusterData
from tools.triage.data.kube_model import KubeNode
from tools.triage.data.sagemaker_model import ClusterNode

CHECK = "k8s-node-mapping"
FINDINGS = Findings(CHECK, "F.2")
TABLE_ROWS = 50  # rows of the mapping kept as evidence on a large cluster


def mapping_rows(kube_nodes: Sequence[KubeNode], groups: dict[str, str]) -> list[dict[str, Any]]:
    rows = []
    for node in kube_nodes:
        instance = node.instance_id
        group = node.group_label or (groups.get(instance) if instance else None)
        rows.append({"node": node.name, "instance_id": instance, "group": group})
    return sorted(rows, key=lambda r: (str(r["group"]), str(r["instance_id"]), r["node"]))


def judge_mapping(
    kube_nodes: Sequence[KubeNode],
    hyperpod_nodes: Sequence[ClusterNode] | None,
    focus: str | None = None,
) -> list[Finding]:
    """INFO rows (or one summary on a large cluster); WARN P1 for Running HyperPod
    instances without a Kubernetes node; INFO for Kubernetes nodes of unknown instances."""
    groups = {n.instance_id: n.instance_group for n in hyperpod_nodes or []}
    all_rows = mapping_rows(kube_nodes, groups)
    rows = all_rows if focus is None else [r for r in all_rows if r["instance_id"] == focus]
    findings: list[Finding] = []
    if len(rows) <= GROUP_ABOVE:
        for row in rows:
            findings.append(
                FINDINGS.info(
                    f"Kubernetes node {row['node']} ↔ {row['instance_id'] or 'unknown instance'}"
                    f" ↔ {row['group'] or 'unknown group'}",
                    resources=[row["instance_id"]] if row["instance_id"] else [],
                    **row,
                )
            )
    else:
        unmapped = [r["node"] for r in rows if not r["instance_id"]]
        findings.append(
            FINDINGS.info(
                f"{len(rows):,} Kubernetes nodes; {len(rows) - len(unmapped):,} map to an "
                f"instance id (providerID, hyperpod-<id> name or label)"
                + (f"; {len(unmapped):,} do not, e.g. {examples(unmapped)}" if unmapped else ""),
                count=len(rows),
                unmapped=len(unmapped),
                **bounded("rows", rows[:TABLE_ROWS], TABLE_ROWS, total=len(rows)),
            )
        )
    if hyperpod_nodes is None:
        return findings
    joined = {r["instance_id"] for r in all_rows if r["instance_id"]}
    missing = sorted(
        n.instance_id
        for n in hyperpod_nodes
        if n.status == "Running"
        and n.instance_id not in joined
        and (focus is None or n.instance_id == focus)
    )
    if missing and len(missing) <= GROUP_ABOVE:
        for instance in missing:
            findings.append(
                FINDINGS.warn(
                    Priority.P1,
                    f"Instance {instance} ({groups.get(instance) or '?'}) is Running in HyperPod "
                    "but has no Kubernetes node: it never joined the EKS cluster, so no pod can "
                    "run on it (lifecycle logs § D, EKS access § B.5)",
                    resources=[instance],
                    instance_id=instance,
                    group=groups.get(instance),
                )
            )
    elif missing:
        findings.append(
            FINDINGS.warn(
                Priority.P1,
                f"{len(missing):,} Running HyperPod instances have no Kubernetes node, e.g. "
                f"{examples(missing)}: they never joined the EKS cluster (lifecycle logs § D, "
                "EKS access § B.5)",
                resources=missing[:SAMPLES],
                count=len(missing),
                sample_instances=missing[:SAMPLES],
            )
        )
    strangers = sorted(
        r["node"]
        for r in rows
        if r["instance_id"] and r["instance_id"] not in groups and r["group"]
    )
    if strangers:
        findings.append(
            FINDINGS.info(
                f"{len(strangers):,} Kubernetes node(s) with a HyperPod instance group label "
                f"belong to no current instance of this cluster (left over after a "
                f"replacement?), e.g. {examples(strangers)}",
                nodes=strangers[:SAMPLES],
            )
        )
    if not missing and hyperpod_nodes and focus is None:
        findings.append(FINDINGS.passed("Every Running HyperPod instance has a Kubernetes node"))
    return findings


@check(FINDINGS, title="EKS node ↔ instance mapping", orchestrators=("eks",), scope="node")
def k8s_node_mapping(data: ClusterData) -> Iterable[Finding]:
    """Which Kubernetes node is which instance (and group); instances that never joined."""
    kube_nodes = data.kube_nodes()
    # None when unreadable (the cluster-nodes check reports it) or cut short.
    listed = data.optional(data.nodes)
    hyperpod = None if listed is None or listed.truncated else listed.items
    return judge_mapping(kube_nodes, hyperpod, data.target.node)
