"""Shared pieces of the Kubernetes checks: naming a node, its instance group, samples."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tools.aws.errors import AwsAccessError

if TYPE_CHECKING:
    from tools.triage.data import ClusterData

SAMPLES = 10  # resources named by a grouped finding
SHOWN = 5  # of which shown in its message


def hyperpod_groups(data: ClusterData) -> dict[str, str] | None:
    """Instance id -> instance group from ListClusterNodes; None when it cannot be read
    (the cluster-nodes check reports that itself)."""
    try:
        listed = data.nodes().items
    except AwsAccessError:
        return None
    return {
        str(n["InstanceId"]): str(n.get("InstanceGroupName") or "")
        for n in listed
        if isinstance(n, dict) and n.get("InstanceId")
    }


def describe_node(name: str, instance_id: str | None, group: str | None) -> str:
    """`i-… (gpu-workers)` when the node name is just hyperpod-<id>, else with the name."""
    if not instance_id:
        return f"node {name}"
    where = f"{group}, " if group else ""
    if name == f"hyperpod-{instance_id}":
        return f"{instance_id} ({group})" if group else instance_id
    return f"{instance_id} ({where}node {name})"


def examples(ids: list[str]) -> str:
    shown = ", ".join(ids[:SHOWN])
    return shown + ("…" if len(ids) > SHOWN else "")
