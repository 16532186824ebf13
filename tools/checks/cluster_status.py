"""§ F.1: cluster status, FailureMessage and NodeRecovery; instance-group health."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tools.findings import Finding, Findings, Priority
from tools.registry import check
from tools.text import clip, quoted
from tools.triage.data import ClusterData
from tools.triage.data.sagemaker_model import Cluster, InstanceGroup

CHECK_STATUS = "cluster-status"
STATUS_FINDINGS = Findings(CHECK_STATUS, "F.1")
CHECK_RECOVERY = "node-recovery"
RECOVERY_FINDINGS = Findings(CHECK_RECOVERY, "F.1")
CHECK_GROUPS = "instance-groups"
GROUPS_FINDINGS = Findings(CHECK_GROUPS, "F")

_TRANSITIONAL = {"Creating", "Updating", "SystemUpdating", "RollingBack"}


def judge_cluster_status(cluster: Cluster) -> list[Finding]:
    """PASS when InService; FAIL P0 when Failed or Deleting; otherwise a WARN."""
    # Everything read from DescribeCluster is cluster text: one line, redacted, clipped.
    status = clip(cluster.status or "Unknown", 60)
    raw_failure = cluster.failure_message
    failure = clip(raw_failure) if raw_failure else ""
    name = clip(cluster.name, 80)
    if status == "InService":
        return [STATUS_FINDINGS.passed(f"Cluster {name} is InService", status=status)]
    if status in ("Failed", "Deleting"):
        text = f"Cluster {name} is {status}" + (f": {quoted(raw_failure)}" if failure else "")
        return [STATUS_FINDINGS.fail(Priority.P0, text, status=status, failure_message=failure)]
    if status in _TRANSITIONAL:
        text = f"Cluster {name} is {status}; results may change once the operation finishes"
        return [STATUS_FINDINGS.warn(Priority.P2, text, status=status, failure_message=failure)]
    return [
        STATUS_FINDINGS.warn(
            Priority.P1,
            f"Cluster {name} reports status {status}"
            + (f": {quoted(raw_failure)}" if failure else ""),
            status=status,
            failure_message=failure,
        )
    ]


def judge_node_recovery(cluster: Cluster) -> list[Finding]:
    """WARN P1 when NodeRecovery is None (faulty nodes stay as they are), else PASS."""
    # NodeRecovery is a cluster-level setting; absent means the service default (Automatic).
    recovery = cluster.node_recovery
    if recovery == "None":
        return [
            RECOVERY_FINDINGS.warn(
                Priority.P1,
                "NodeRecovery is None: faulty nodes are not rebooted or replaced automatically",
                node_recovery=recovery,
            )
        ]
    return [
        RECOVERY_FINDINGS.passed(
            f"NodeRecovery is {recovery or 'not set (service default)'}", node_recovery=recovery
        )
    ]


def judge_instance_groups(groups: Iterable[InstanceGroup]) -> list[Finding]:
    """Per group: FAIL when Failed or Degraded, WARN when short of its target, else INFO."""
    findings: list[Finding] = []
    for group in groups:
        name = group.name or "?"
        status = group.status if group.status is not None else "InService"
        current = group.current_count
        target = group.target_count
        evidence: dict[str, Any] = {
            "group": name,
            "status": status,
            "current": current,
            "target": target,
        }
        if status in ("Failed", "Degraded"):
            findings.append(
                GROUPS_FINDINGS.fail(
                    Priority.P0 if status == "Failed" else Priority.P1,
                    f"Instance group {name} is {status} ({current}/{target} nodes)",
                    **evidence,
                )
            )
        elif current is not None and target is not None and current < target:
            findings.append(
                GROUPS_FINDINGS.warn(
                    Priority.P1,
                    f"Instance group {name} has {current} of {target} target nodes ({status})",
                    **evidence,
                )
            )
        else:
            findings.append(
                GROUPS_FINDINGS.info(
                    f"Instance group {name}: {current}/{target} nodes, {status}", **evidence
                )
            )
    return findings


@check(STATUS_FINDINGS, title="Cluster status")
def cluster_status(data: ClusterData) -> Iterable[Finding]:
    """Cluster status and FailureMessage from DescribeCluster."""
    return judge_cluster_status(data.cluster())


@check(RECOVERY_FINDINGS, title="Automatic node recovery")
def node_recovery(data: ClusterData) -> Iterable[Finding]:
    """Whether HyperPod reboots or replaces faulty nodes by itself (NodeRecovery)."""
    return judge_node_recovery(data.cluster())


@check(GROUPS_FINDINGS, title="Instance groups")
def instance_groups(data: ClusterData) -> Iterable[Finding]:
    """Instance-group status and current against target node counts."""
    return judge_instance_groups(data.instance_groups())
