"""§ F: node status from ListClusterNodes, and DescribeClusterNode for a focused node."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from tools.aws.errors import ResourceNotFound
from tools.checks._grouping import GROUP_ABOVE
from tools.findings import Finding, Findings, Priority
from tools.registry import check
from tools.remediation import Signal, advice, tagged
from tools.text import clip, quoted
from tools.triage.data import NODE_CAP, ClusterData
from tools.triage.data.sagemaker_model import ClusterNode

CHECK_NODES = "cluster-nodes"
NODES_FINDINGS = Findings(CHECK_NODES, "F")
CHECK_DETAIL = "node-detail"
DETAIL_FINDINGS = Findings(CHECK_DETAIL, "F")

# InstanceStatus.Status values and how they are judged.
FAILED_STATUSES = frozenset({"Failure", "NotFound"})
TRANSIENT_STATUSES = frozenset({"Pending", "ShuttingDown", "DetachInProgress", "AttachInProgress"})
EXPECTED_TRANSITIONS = frozenset({"SystemUpdating", "DeepHealthCheckInProgress"})
RUNNING = "Running"


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _label(node: ClusterNode) -> str:
    group = node.instance_group
    instance = node.instance_id or "?"
    return f"{instance} ({group})" if group else instance


def judge_node_counts(
    nodes: Sequence[ClusterNode], truncated: bool = False, cap: int = NODE_CAP
) -> list[Finding]:
    """Per-group counts by status (INFO); a WARN when the node list hit the cap."""
    per_group: dict[str, Counter[str]] = defaultdict(Counter)
    for node in nodes:
        per_group[node.instance_group or "?"][node.status] += 1
    findings: list[Finding] = []
    for group in sorted(per_group):
        counts = per_group[group]
        text = ", ".join(f"{counts[s]} {s}" for s in sorted(counts))
        findings.append(
            NODES_FINDINGS.info(
                f"Instance group {group}: {_plural(sum(counts.values()), 'node')} ({text})",
                group=group,
                counts=dict(sorted(counts.items())),
            )
        )
    if not nodes:
        findings.append(NODES_FINDINGS.info("ListClusterNodes returned no nodes", count=0))
    if truncated:
        findings.append(
            NODES_FINDINGS.warn(
                Priority.P2,
                f"Node list capped at {cap:,} nodes: use --node to triage a specific node",
                cap=cap,
                read=len(nodes),
            )
        )
    return findings


SAMPLES = 10  # instance ids named by a grouped finding
TOP_MESSAGES = 3


def _kind(status: str) -> str:
    if status in FAILED_STATUSES:
        return "failed"
    if status in TRANSIENT_STATUSES:
        return "transient"
    if status in EXPECTED_TRANSITIONS:
        return "expected"
    return "unknown"


def _judged(kind: str, text: str, resources: list[str], evidence: dict[str, Any]) -> Finding:
    if kind == "failed":
        return NODES_FINDINGS.fail(Priority.P0, text, resources=resources, **evidence)
    if kind == "transient":
        return NODES_FINDINGS.warn(Priority.P1, text, resources=resources, **evidence)
    if kind == "expected":
        return NODES_FINDINGS.info(text, resources=resources, **evidence)
    return NODES_FINDINGS.warn(Priority.P2, text, resources=resources, **evidence)


# What to do when nothing repairs a failed node: the remediation table's row.
_MANUAL = f" (NodeRecovery is None: {advice(Signal.NODE_FAILURE_STATUS)}, see § F.4)"
_MANUAL_MANY = (
    f" (NodeRecovery is None, for each node: {advice(Signal.NODE_FAILURE_STATUS)}, see § F.4)"
)


def _one_node(node: ClusterNode, node_recovery: str | None) -> Finding:
    status, message = node.status, node.status_message
    kind = _kind(status)
    instance = node.instance_id
    evidence = {
        "instance_id": instance,
        "group": node.instance_group or None,
        "status": status,
        "status_message": clip(message),
    }
    detail = f": {quoted(message)}" if message.strip() else ""
    if kind == "unknown":
        text = f"Node {_label(node)} reports an unrecognised status {clip(status, 60)}{detail}"
    elif kind == "expected":
        text = f"Node {_label(node)} has status {status} (an expected transition){detail}"
    else:
        text = f"Node {_label(node)} has status {status}{detail}"
        if kind == "failed" and node_recovery == "None":
            text += _MANUAL
            evidence.update(tagged(Signal.NODE_FAILURE_STATUS))
    return _judged(kind, text, [instance] if instance else [], evidence)


def _many_nodes(
    group: str, status: str, members: list[ClusterNode], node_recovery: str | None
) -> Finding:
    kind = _kind(status)
    ids = sorted(n.instance_id for n in members)
    samples = [i for i in ids if i][:SAMPLES]
    messages = Counter(clip(n.status_message) for n in members if n.status_message.strip())
    common = messages.most_common(TOP_MESSAGES)
    label = clip(status, 60)
    what = {
        "failed": f"have status {label}",
        "transient": f"have status {label}",
        "expected": f"have status {label} (an expected transition)",
        "unknown": f"report an unrecognised status {label}",
    }[kind]
    text = f"{len(members):,} nodes of instance group {group} {what}"
    if kind == "failed" and node_recovery == "None":
        text += _MANUAL_MANY
    if samples:
        text += f", e.g. {', '.join(samples[:5])}" + ("…" if len(ids) > 5 else "")
    if common:
        shown = "; ".join(f'"{m}" ({c:,}x)' for m, c in common)
        text += f"; most common message{'s' if len(common) > 1 else ''}: {shown}"
    evidence = {
        "group": group,
        "status": status,
        "count": len(members),
        "sample_instances": samples,
        "common_messages": [{"message": m, "count": c} for m, c in common],
    }
    return _judged(kind, text, samples, evidence)


def judge_node_status(
    nodes: Sequence[ClusterNode],
    node_recovery: str | None = None,
    *,
    group_above: int | None = GROUP_ABOVE,
) -> list[Finding]:
    """One finding per node that is not Running; a PASS when every judged node is Running.

    When more than `group_above` nodes of one instance group share a status, they make one
    finding with the count, sample instance ids and the most common messages instead
    (`group_above=None` keeps every node on its own, as with --node).
    """
    buckets: dict[tuple[str, str], list[ClusterNode]] = defaultdict(list)
    for node in nodes:
        if node.status != RUNNING:
            buckets[(node.instance_group or "?", node.status)].append(node)
    findings: list[Finding] = []
    for (group, status), members in sorted(buckets.items()):
        if group_above is not None and len(members) > group_above:
            findings.append(_many_nodes(group, status, members, node_recovery))
            continue
        for node in sorted(members, key=lambda n: n.instance_id):
            findings.append(_one_node(node, node_recovery))
    running = sum(1 for n in nodes if n.status == RUNNING)
    if nodes and running == len(nodes):
        findings.append(
            NODES_FINDINGS.passed(f"All {running} judged nodes are Running", running=running)
        )
    return findings


def judge_node_detail(node_id: str, detail: ClusterNode | None) -> list[Finding]:
    """The focused node: FAIL when the cluster does not know it, else its placement (INFO)."""
    if detail is None:
        return [
            DETAIL_FINDINGS.fail(
                Priority.P1,
                f"Node {node_id} is not in this cluster (it may have been replaced: "
                "list-cluster-nodes shows the current instance ids)",
                resources=[node_id],
                node=node_id,
            )
        ]
    status = detail.status
    zone = detail.availability_zone if detail.availability_zone is not None else "?"
    return [
        DETAIL_FINDINGS.info(
            f"Node {node_id} ({_or_unknown(detail.instance_group)}, "
            f"{_or_unknown(detail.instance_type)}) is {status} in {zone}, "
            f"IP {_or_unknown(detail.private_ip)}, "
            f"ThreadsPerCore {_or_unknown(detail.threads_per_core)}",
            resources=[node_id],
            node=node_id,
            group=detail.instance_group or None,
            status=status,
            availability_zone=zone,
            private_ip=detail.private_ip,
            threads_per_core=detail.threads_per_core,
        )
    ]


def _or_unknown(value: str | int | None) -> str | int:
    # DescribeClusterNode leaves fields out for a node still being placed.
    return "?" if value is None or value == "" else value


@check(NODES_FINDINGS, title="Node status", scope="node")
def cluster_nodes(data: ClusterData) -> Iterable[Finding]:
    """Per-group node counts by status, and every node that is not Running (ListClusterNodes)."""
    listed = data.nodes()
    findings = judge_node_counts(listed.items, listed.truncated)
    focus = data.target.node
    judged = [n for n in listed.items if focus is None or n.instance_id == focus]
    findings.extend(
        judge_node_status(
            judged,
            data.cluster().node_recovery,
            group_above=None if focus is not None else GROUP_ABOVE,
        )
    )
    return findings


@check(DETAIL_FINDINGS, title="Focused node", scope="node")
def node_detail(data: ClusterData) -> Iterable[Finding]:
    """With --node: DescribeClusterNode for that node; an unknown id is the finding."""
    node_id = data.target.node
    if node_id is None:
        return []
    try:
        detail: ClusterNode | None = data.node_detail(node_id)
    except ResourceNotFound:
        # The answer to "is this node in the cluster?", not a failure to fetch.
        detail = None
    return judge_node_detail(node_id, detail)
