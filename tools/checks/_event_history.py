"""Whether a cluster event is still true now: the history rules of the events check.

An event is history once the cluster has moved on: its instance is gone and its instance
group is whole again, or (for a cluster-level event) the cluster is InService. Kept apart
from the pattern families and the finding wording in `events.py`.
"""

from __future__ import annotations

from collections.abc import Mapping

from tools.triage.data.sagemaker_model import ClusterEvent, InstanceGroup

# What an event says about the cluster now.
CURRENT, RECOVERED, GONE = "current", "recovered", "gone"
STATES = (CURRENT, RECOVERED, GONE)  # most to least pressing
RUNNING = "Running"


def group_recovered(group: InstanceGroup | None) -> bool:
    """InService with at least its target count of nodes."""
    return group is not None and group.recovered


def event_state(
    event: ClusterEvent,
    nodes: Mapping[str, str] | None,
    groups: Mapping[str, InstanceGroup] | None,
    cluster_status: str | None = None,
) -> str:
    """CURRENT, RECOVERED or GONE; `nodes` (instance id -> status) is None when the current
    node list is unknown, `groups` (name -> DescribeCluster instance group) likewise.

    An instance the cluster does not have is history (GONE) only once its instance group
    is whole again: a failed launch never joins, so while the group is below target or not
    InService the failure is still going on. A cluster-level event (no instance, no group)
    is RECOVERED when the cluster is InService.
    """
    instance = event.instance_id
    name = event.instance_group
    group = (groups or {}).get(name)
    if instance and nodes is not None:
        status = nodes.get(instance)
        if status is None:
            ongoing = groups is not None and name in groups and not group_recovered(group)
            return CURRENT if ongoing else GONE
        if status != RUNNING:
            return CURRENT  # the instance is still there and still not Running
    if not instance and not name:
        return RECOVERED if cluster_status == "InService" else CURRENT
    return RECOVERED if group_recovered(group) else CURRENT
