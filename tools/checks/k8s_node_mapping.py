"""EKS node name ↔ instance id ↔ instance group, and HyperPod nodes that never joined.

Section F.2: it is where the reference explains how HyperPod EKS nodes are named and how
to read a node's labels, which is what a person needs to connect a Kubernetes node with
an instance. A Running instance without a Kubernetes node cannot run pods; why it did not
join (lifecycle script, EKS access entry, networking) is told by the other checks.

The rules (`mapping_rows`, `node_membership`) decide typed rows and a `Membership`; the
`word_*` functions alone write the findings.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

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


@dataclass(frozen=True, slots=True)
class NodeRow:
    """One Kubernetes node and the instance and instance group it maps to, when known."""

    node: str
    instance_id: str | None
    group: str | None

    def evidence(self) -> dict[str, str | None]:
        """The row as the finding's evidence keeps it."""
        return {"node": self.node, "instance_id": self.instance_id, "group": self.group}


@dataclass(frozen=True, slots=True)
class NeverJoined:
    """A Running HyperPod instance that no Kubernetes node maps to."""

    instance_id: str
    group: str


@dataclass(frozen=True, slots=True)
class Membership:
    """The Kubernetes nodes held against HyperPod's own list of the cluster's instances."""

    never_joined: tuple[NeverJoined, ...]  # by instance id
    # Nodes labelled with an instance group whose instance this cluster does not list.
    strangers: tuple[str, ...]
    # Every Running instance has a node (only said of a whole, non-empty cluster).
    all_joined: bool


def mapping_rows(kube_nodes: Sequence[KubeNode], groups: Mapping[str, str]) -> list[NodeRow]:
    """Each Kubernetes node with its instance and group (the node's label, else HyperPod's
    group of its instance), ordered by group, instance and node."""
    rows = []
    for node in kube_nodes:
        instance = node.instance_id
        group = node.group_label or (groups.get(instance) if instance else None)
        rows.append(NodeRow(node.name, instance, group))
    return sorted(rows, key=lambda r: (str(r.group), str(r.instance_id), r.node))


def node_membership(
    all_rows: Sequence[NodeRow],
    rows: Sequence[NodeRow],
    hyperpod_nodes: Sequence[ClusterNode],
    focus: str | None,
) -> Membership:
    """Which Running instances never joined (against `all_rows`, every node) and which of
    the `rows` in view belong to no instance HyperPod lists."""
    groups = {n.instance_id: n.instance_group for n in hyperpod_nodes}
    joined = {r.instance_id for r in all_rows if r.instance_id}
    missing = sorted(
        n.instance_id
        for n in hyperpod_nodes
        if n.status == "Running"
        and n.instance_id not in joined
        and (focus is None or n.instance_id == focus)
    )
    strangers = sorted(
        r.node for r in rows if r.instance_id and r.instance_id not in groups and r.group
    )
    return Membership(
        never_joined=tuple(NeverJoined(i, groups[i]) for i in missing),
        strangers=tuple(strangers),
        all_joined=not missing and bool(hyperpod_nodes) and focus is None,
    )


# -- words ------------------------------------------------------------------------------


def word_rows(rows: Sequence[NodeRow]) -> list[Finding]:
    """One INFO per row, or one summary with the first rows as evidence on a large cluster."""
    if len(rows) <= GROUP_ABOVE:
        return [
            FINDINGS.info(
                f"Kubernetes node {row.node} ↔ {row.instance_id or 'unknown instance'}"
                f" ↔ {row.group or 'unknown group'}",
                resources=[row.instance_id] if row.instance_id else [],
                **row.evidence(),
            )
            for row in rows
        ]
    unmapped = [r.node for r in rows if not r.instance_id]
    return [
        FINDINGS.info(
            f"{len(rows):,} Kubernetes nodes; {len(rows) - len(unmapped):,} map to an "
            f"instance id (providerID, hyperpod-<id> name or label)"
            + (f"; {len(unmapped):,} do not, e.g. {examples(unmapped)}" if unmapped else ""),
            count=len(rows),
            unmapped=len(unmapped),
            **bounded(
                "rows", [r.evidence() for r in rows[:TABLE_ROWS]], TABLE_ROWS, total=len(rows)
            ),
        )
    ]


def word_never_joined(never_joined: Sequence[NeverJoined]) -> list[Finding]:
    """WARN P1 per instance that never joined, or one grouped WARN on a large cluster."""
    if len(never_joined) <= GROUP_ABOVE:
        return [
            FINDINGS.warn(
                Priority.P1,
                f"Instance {n.instance_id} ({n.group or '?'}) is Running in HyperPod "
                "but has no Kubernetes node: it never joined the EKS cluster, so no pod can "
                "run on it (lifecycle logs § D, EKS access § B.5)",
                resources=[n.instance_id],
                instance_id=n.instance_id,
                group=n.group,
            )
            for n in never_joined
        ]
    missing = [n.instance_id for n in never_joined]
    return [
        FINDINGS.warn(
            Priority.P1,
            f"{len(missing):,} Running HyperPod instances have no Kubernetes node, e.g. "
            f"{examples(missing)}: they never joined the EKS cluster (lifecycle logs § D, "
            "EKS access § B.5)",
            resources=missing[:SAMPLES],
            count=len(missing),
            sample_instances=missing[:SAMPLES],
        )
    ]


def word_membership(membership: Membership) -> list[Finding]:
    """The never-joined warnings, the strangers' INFO and the PASS, in that order."""
    findings = word_never_joined(membership.never_joined)
    strangers = list(membership.strangers)
    if strangers:
        findings.append(
            FINDINGS.info(
                f"{len(strangers):,} Kubernetes node(s) with a HyperPod instance group label "
                f"belong to no current instance of this cluster (left over after a "
                f"replacement?), e.g. {examples(strangers)}",
                nodes=strangers[:SAMPLES],
            )
        )
    if membership.all_joined:
        findings.append(FINDINGS.passed("Every Running HyperPod instance has a Kubernetes node"))
    return findings


def judge_mapping(
    kube_nodes: Sequence[KubeNode],
    hyperpod_nodes: Sequence[ClusterNode] | None,
    focus: str | None = None,
) -> list[Finding]:
    """INFO rows (or one summary on a large cluster); WARN P1 for Running HyperPod
    instances without a Kubernetes node; INFO for Kubernetes nodes of unknown instances."""
    groups = {n.instance_id: n.instance_group for n in hyperpod_nodes or []}
    all_rows = mapping_rows(kube_nodes, groups)
    rows = all_rows if focus is None else [r for r in all_rows if r.instance_id == focus]
    findings = word_rows(rows)
    if hyperpod_nodes is None:
        return findings
    return findings + word_membership(node_membership(all_rows, rows, hyperpod_nodes, focus))


@check(FINDINGS, title="EKS node ↔ instance mapping", orchestrators=("eks",), scope="node")
def k8s_node_mapping(data: ClusterData) -> Iterable[Finding]:
    """Which Kubernetes node is which instance (and group); instances that never joined."""
    kube_nodes = data.kube_nodes()
    # None when unreadable (the cluster-nodes check reports it) or cut short.
    listed = data.optional(data.nodes)
    hyperpod = None if listed is None or listed.truncated else listed.items
    return judge_mapping(kube_nodes, hyperpod, data.target.node)
