"""Reading cluster events: which pattern family an event's text points to, which events
are problems in scope, and which are recent enough to judge.

Shared by the cluster-events check and the EFA security-group check (which looks for
recent EFA health-check failures), so both read an event the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from tools.checks._event_families import FAMILIES, Family
from tools.triage.data.sagemaker_model import ClusterEvent, InstanceGroup

PROBLEM_LEVELS = ("Error", "Warn")
RECENT = timedelta(days=7)  # older Error/Warn events are reported, not judged


@dataclass(frozen=True, slots=True)
class EventScan:
    """The cluster events read for one triage, handed to the judge whole.

    `events` (cluster-wide, then the node's own that the cluster-wide list did not hold)
    and `truncated` when a list was capped; with `node`, `node_read` is how many events
    the node's own list added (None: not read) and `node_error` why it could not be read.
    `details` are DescribeClusterEvent answers by event id. `nodes` (instance id -> current
    status), `groups` (instance group name -> its DescribeCluster entry) and
    `cluster_status` tell history from the present; None: unknown, every event current.
    """

    events: tuple[ClusterEvent, ...] = ()
    truncated: bool = False
    node: str | None = None
    node_read: int | None = None
    node_error: str | None = None
    details: Mapping[str, ClusterEvent] = field(default_factory=dict)
    nodes: Mapping[str, str] | None = None
    groups: Mapping[str, InstanceGroup] | None = None
    cluster_status: str | None = None


def classify(text: str, event: ClusterEvent | None = None) -> Family | None:
    """The first pattern family the text matches, or None.

    The event's own names (cluster, instance group, instance id) are blanked out first: a
    group called `gpu-workers` or `vpc-test` says nothing about what went wrong.
    """
    text = scrub(text or "", event)
    for family in FAMILIES:
        if family.pattern.search(text):
            return family
    return None


def scrub(text: str, event: ClusterEvent | None) -> str:
    """`text` with the event's own names replaced by `<name>`."""
    for name in event.names if event is not None else ():
        text = text.replace(name, "<name>")
    return text


def in_scope(event: ClusterEvent, node: str | None) -> bool:
    """With --node, that node's events plus cluster- and group-level ones."""
    return node is None or not event.instance_id or event.instance_id == node


def problem_events(events: Iterable[ClusterEvent], node: str | None = None) -> list[ClusterEvent]:
    """The Error and Warn events in scope."""
    return [e for e in events if e.level in PROBLEM_LEVELS and in_scope(e, node)]


def split_by_age(
    events: list[ClusterEvent], now: datetime | None
) -> tuple[list[ClusterEvent], list[ClusterEvent]]:
    """(recent, older): events older than RECENT before `now` are reported, not judged."""
    recent: list[ClusterEvent] = []
    older: list[ClusterEvent] = []
    for event in events:
        moment = event.moment
        if now is not None and moment is not None and moment < now - RECENT:
            older.append(event)
        else:
            recent.append(event)
    return recent, older
