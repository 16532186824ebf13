"""§ F: node status from ListClusterNodes, and DescribeClusterNode for a focused node."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

from tools.aws.errors import ResourceNotFound
from tools.checks._text import clip, quoted
from tools.findings import Finding, Priority, fail, info, passed, warn
from tools.registry import check
from tools.triage.data import NODE_CAP, ClusterData

CHECK_NODES = "cluster-nodes"
CHECK_DETAIL = "node-detail"

# InstanceStatus.Status values and how they are judged.
FAILED_STATUSES = frozenset({"Failure", "NotFound"})
TRANSIENT_STATUSES = frozenset({"Pending", "ShuttingDown", "DetachInProgress", "AttachInProgress"})
EXPECTED_TRANSITIONS = frozenset({"SystemUpdating", "DeepHealthCheckInProgress"})
RUNNING = "Running"


def _status(node: dict[str, Any]) -> tuple[str, str]:
    status = node.get("InstanceStatus")
    if not isinstance(status, dict):
        return "Unknown", ""
    return str(status.get("Status") or "Unknown"), str(status.get("Message") or "")


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _label(node: dict[str, Any]) -> str:
    group = node.get("InstanceGroupName")
    instance = str(node.get("InstanceId") or "?")
    return f"{instance} ({group})" if group else instance


def judge_node_counts(
    nodes: list[dict[str, Any]], truncated: bool = False, cap: int = NODE_CAP
) -> list[Finding]:
    """Per-group counts by status (INFO); a WARN when the node list hit the cap."""
    per_group: dict[str, Counter[str]] = defaultdict(Counter)
    for node in nodes:
        per_group[str(node.get("InstanceGroupName") or "?")][_status(node)[0]] += 1
    findings: list[Finding] = []
    for group in sorted(per_group):
        counts = per_group[group]
        text = ", ".join(f"{counts[s]} {s}" for s in sorted(counts))
        findings.append(
            info(
                CHECK_NODES,
                "F",
                f"Instance group {group}: {_plural(sum(counts.values()), 'node')} ({text})",
                group=group,
                counts=dict(sorted(counts.items())),
            )
        )
    if not nodes:
        findings.append(info(CHECK_NODES, "F", "ListClusterNodes returned no nodes", count=0))
    if truncated:
        findings.append(
            warn(
                CHECK_NODES,
                Priority.P2,
                "F",
                f"Node list capped at {cap:,} nodes: use --node to triage a specific node",
                cap=cap,
                read=len(nodes),
            )
        )
    return findings


def judge_node_status(
    nodes: list[dict[str, Any]], node_recovery: str | None = None
) -> list[Finding]:
    """One finding per node that is not Running; a PASS when every judged node is Running."""
    findings: list[Finding] = []
    manual = " (NodeRecovery is None: reboot or replace it yourself, see § F.4)"
    for node in sorted(nodes, key=lambda n: str(n.get("InstanceId"))):
        status, message = _status(node)
        if status == RUNNING:
            continue
        instance = str(node.get("InstanceId") or "")
        resources = [instance] if instance else []
        evidence = {
            "instance_id": instance,
            "group": node.get("InstanceGroupName"),
            "status": status,
            "status_message": clip(message),
        }
        detail = f": {quoted(message)}" if message.strip() else ""
        if status in FAILED_STATUSES:
            text = f"Node {_label(node)} has status {status}{detail}"
            if node_recovery == "None":
                text += manual
            findings.append(
                fail(CHECK_NODES, Priority.P0, "F", text, resources=resources, **evidence)
            )
        elif status in TRANSIENT_STATUSES:
            findings.append(
                warn(
                    CHECK_NODES,
                    Priority.P1,
                    "F",
                    f"Node {_label(node)} has status {status}{detail}",
                    resources=resources,
                    **evidence,
                )
            )
        elif status in EXPECTED_TRANSITIONS:
            findings.append(
                info(
                    CHECK_NODES,
                    "F",
                    f"Node {_label(node)} has status {status} (an expected transition){detail}",
                    resources=resources,
                    **evidence,
                )
            )
        else:
            findings.append(
                warn(
                    CHECK_NODES,
                    Priority.P2,
                    "F",
                    f"Node {_label(node)} reports an unrecognised status {clip(status, 60)}"
                    f"{detail}",
                    resources=resources,
                    **evidence,
                )
            )
    running = sum(1 for n in nodes if _status(n)[0] == RUNNING)
    if nodes and running == len(nodes):
        findings.append(
            passed(CHECK_NODES, "F", f"All {running} judged nodes are Running", running=running)
        )
    return findings


def judge_node_detail(node_id: str, detail: dict[str, Any] | None) -> list[Finding]:
    """The focused node: FAIL when the cluster does not know it, else its placement (INFO)."""
    if detail is None:
        return [
            fail(
                CHECK_DETAIL,
                Priority.P1,
                "F",
                f"Node {node_id} is not in this cluster (it may have been replaced: "
                "list-cluster-nodes shows the current instance ids)",
                resources=[node_id],
                node=node_id,
            )
        ]
    status, _ = _status(detail)
    placement = detail.get("Placement") if isinstance(detail.get("Placement"), dict) else {}
    zone = (placement or {}).get("AvailabilityZone", "?")
    return [
        info(
            CHECK_DETAIL,
            "F",
            f"Node {node_id} ({detail.get('InstanceGroupName', '?')}, "
            f"{detail.get('InstanceType', '?')}) is {status} in {zone}, "
            f"IP {detail.get('PrivatePrimaryIp', '?')}, "
            f"ThreadsPerCore {detail.get('ThreadsPerCore', '?')}",
            resources=[node_id],
            node=node_id,
            group=detail.get("InstanceGroupName"),
            status=status,
            availability_zone=zone,
            private_ip=detail.get("PrivatePrimaryIp"),
            threads_per_core=detail.get("ThreadsPerCore"),
        )
    ]


@check(CHECK_NODES, section="F", title="Node status")
def cluster_nodes(data: ClusterData) -> Iterable[Finding]:
    """Per-group node counts by status, and every node that is not Running (ListClusterNodes)."""
    listed = data.nodes()
    findings = judge_node_counts(listed.items, listed.truncated)
    focus = data.target.node
    judged = [n for n in listed.items if focus is None or n.get("InstanceId") == focus]
    recovery = data.cluster().get("NodeRecovery")
    findings.extend(judge_node_status(judged, recovery if isinstance(recovery, str) else None))
    return findings


@check(CHECK_DETAIL, section="F", title="Focused node")
def node_detail(data: ClusterData) -> Iterable[Finding]:
    """With --node: DescribeClusterNode for that node; an unknown id is the finding."""
    node_id = data.target.node
    if node_id is None:
        return []
    try:
        detail: dict[str, Any] | None = data.node_detail(node_id)
    except ResourceNotFound:
        # The answer to "is this node in the cluster?", not a failure to fetch.
        detail = None
    return judge_node_detail(node_id, detail)
