"""§ A, B, C, D, F: cluster events (ListClusterEvents), mapped to sections by what they say.

Events exist only for clusters with NodeProvisioningMode=Continuous; on other clusters the
check says so and judges nothing. Error and Warn events are matched against a small table
of pattern families (`_event_families.py`) over `Description` (never `Message`). An Error
event whose description matches no family (HyperPod often says only "Instance creation
... failed") is described with DescribeClusterEvent, a few at most, and its
FailureMessage is matched instead.

Events are history. An event about an instance the cluster no longer has (it was replaced
or removed) is reported as INFO once its instance group is InService at its target count
(a failed launch never joins: while the group is short, the failure is still going on);
one whose instance group is whole again (and whose instance, if still there, is Running)
as WARN P2, "since recovered", like a cluster-level event of an InService cluster. Only
events about what is still wrong now FAIL. With --node, ListClusterEvents is asked for
that node (its NodeId filter) as well as cluster-wide, so the node's events are read even
when the cluster-wide list is capped; if the node's list cannot be read (a replaced
instance may be refused), the cluster-wide list is judged alone.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from tools.aws.errors import AwsAccessError
from tools.checks._cluster_events import (
    RECENT,
    EventScan,
    classify,
    problem_events,
    split_by_age,
)
from tools.checks._event_families import FAMILIES, UNMAPPED, Family
from tools.checks._event_history import GONE, RECOVERED, STATES, event_state
from tools.findings import Finding, Findings, Priority
from tools.registry import check
from tools.text import clip, quoted
from tools.triage.data import EVENT_CAP, ClusterData
from tools.triage.data.sagemaker_model import ClusterEvent

CHECK_ID = "cluster-events"
FINDINGS = Findings(CHECK_ID, "F")
MAX_DESCRIBED = 5  # DescribeClusterEvent calls per triage, for unexplained Error events


def needs_detail(events: list[ClusterEvent], limit: int = MAX_DESCRIBED) -> list[str]:
    """Ids of the latest Error events whose description matches no family."""
    unexplained = [
        e
        for e in events
        if e.level == "Error" and e.event_id and classify(e.description, e) is None
    ]
    unexplained.sort(key=lambda e: e.sort_time, reverse=True)
    return [e.event_id for e in unexplained[:limit]]


@dataclass(frozen=True, slots=True)
class EventGroup:
    """Recent problem events that point to one family, at one level, in one state (see
    `_event_history`), with the text each was matched on (its description, or that and
    its DescribeClusterEvent failure message)."""

    family: Family
    level: str
    state: str
    events: tuple[ClusterEvent, ...]
    texts: tuple[str, ...]


def explained(event: ClusterEvent, details: Mapping[str, ClusterEvent]) -> tuple[Family, str]:
    """The family the event points to and the text that says so: its description, else its
    DescribeClusterEvent failure message (UNMAPPED when neither matches)."""
    description = event.description
    family = classify(description, event)
    text = description
    if family is None:
        detail = details.get(event.event_id)
        extra = detail.failure_text if detail is not None else ""
        if extra:
            text = f"{description}: {extra}" if description else extra
            family = classify(extra, event)
    return family or UNMAPPED, text


def event_groups(recent: Iterable[ClusterEvent], scan: EventScan) -> list[EventGroup]:
    """The recent problem events grouped by (family, level, state), most pressing first."""
    grouped: dict[tuple[str, str, str], tuple[Family, list[ClusterEvent], list[str]]] = {}
    for event in recent:
        family, text = explained(event, scan.details)
        state = event_state(event, scan.nodes, scan.groups, scan.cluster_status)
        key = (family.key, event.level, state)
        _, members, texts = grouped.setdefault(key, (family, [], []))
        members.append(event)
        texts.append(text)
    return [
        EventGroup(family, level, state, tuple(members), tuple(texts))
        for (_, level, state), (family, members, texts) in sorted(grouped.items(), key=_group_order)
    ]


def judge_events(
    scan: EventScan | None, *, now: datetime | None = None, cap: int = EVENT_CAP
) -> list[Finding]:
    """Group Error/Warn events by (family, level, state): one finding each, latest text.

    `scan` is None when the cluster has no events (NodeProvisioningMode is not
    Continuous); without its node statuses, groups and cluster status every event is
    judged as current. Events older than RECENT before `now` are counted, not judged;
    `cap` is how many events each list holds at most.
    """
    if scan is None:
        return [
            FINDINGS.info(
                "Events unavailable for this cluster (NodeProvisioningMode is not Continuous)",
                available=False,
            )
        ]
    findings: list[Finding] = []
    if scan.node is not None and scan.node_error:
        findings.append(_node_unread(scan.node, scan.node_error))
    if scan.truncated:
        findings.append(_capped(scan, cap))
    problems = problem_events(scan.events, scan.node)
    recent, older = split_by_age(problems, now)
    if older:
        findings.append(_older(older))
    findings.extend(_group_finding(group) for group in event_groups(recent, scan))
    if not problems:
        findings.append(
            FINDINGS.passed(
                f"No Error or Warn events among the {len(scan.events)} cluster events read"
                + (f" for {scan.node}" if scan.node else ""),
                read=len(scan.events),
            )
        )
    return findings


def _node_unread(node: str, node_error: str) -> Finding:
    return FINDINGS.info(
        f"The events of {node} could not be listed on their own ({node_error}); "
        "judged from the cluster-wide list",
        resources=[node],
        node_error=node_error,
    )


def _capped(scan: EventScan, cap: int) -> Finding:
    node, node_read, read = scan.node, scan.node_read, len(scan.events)
    counts: dict[str, Any] = {} if node_read is None else {"node_read": node_read}
    if node is not None and node_read is not None:
        listed = (
            f"{read - node_read} cluster-wide events and {node_read} more of "
            f"{node} were read (each list capped at {cap})"
        )
    else:
        listed = f"Only the latest {cap} cluster events were read"
    return FINDINGS.warn(
        Priority.P2,
        f"{listed}: older Error/Warn events were not judged"
        + ("" if node else " (use --node to read one node's events)"),
        cap=cap,
        read=read,
        **counts,
    )


def _older(older: list[ClusterEvent]) -> Finding:
    return FINDINGS.info(
        f"{len(older)} Error/Warn events older than {RECENT.days} days were not judged",
        resources=sorted({e.instance_id for e in older if e.instance_id}),
        older=len(older),
    )


def _group_order(item: tuple[tuple[str, str, str], object]) -> tuple[int, int, int]:
    (key, level, state), _ = item
    keys = [f.key for f in FAMILIES] + [UNMAPPED.key]
    return (STATES.index(state), 0 if level == "Error" else 1, keys.index(key))


def _latest(group: EventGroup) -> tuple[str, str | int | float]:
    """The newest event's text and time ("?" when unknown)."""
    latest_index = max(range(len(group.events)), key=lambda i: group.events[i].sort_time)
    latest_time = group.events[latest_index].time
    return group.texts[latest_index], "?" if latest_time is None else latest_time


def _group_text(group: EventGroup, instances: list[str]) -> str:
    """What the group's events say: how many, where, which family, and the latest text."""
    family, count = group.family, len(group.events)
    latest, when = _latest(group)
    noun = f"{count} {group.level} event{'s' if count != 1 else ''}"
    where = (
        f" on {', '.join(instances[:5])}" + ("…" if len(instances) > 5 else "") if instances else ""
    )
    if family is UNMAPPED:
        return (
            f"{noun}{where} {'matches' if count == 1 else 'match'} no known pattern, "
            f"latest at {when}: {quoted(latest)}"
        )
    also = f" (also check § {family.also})" if family.also else ""
    verb = "points" if count == 1 else "point"
    return f"{noun}{where} {verb} to {family.title}{also}, latest at {when}: {quoted(latest)}"


def _group_finding(group: EventGroup) -> Finding:
    """INFO for history, WARN P2 for a recovered problem, else FAIL P0 (Error) or WARN P1
    (Warn, or no known pattern), in the family's section."""
    family, level, state = group.family, group.level, group.state
    latest, when = _latest(group)
    instances = sorted({e.instance_id for e in group.events if e.instance_id})
    names = sorted({e.instance_group for e in group.events if e.instance_group})
    text = _group_text(group, instances)
    evidence: dict[str, Any] = {
        "resources": instances,
        "family": family.key,
        "level": level,
        "state": state,
        "count": len(group.events),
        "latest": clip(latest),
        "latest_time": when,
        "event_ids": [e.event_id for e in group.events][:20],
    }
    section = FINDINGS.at(family.section)
    if state == GONE:
        those = "that instance is" if len(instances) == 1 else "those are"
        return section.info(
            f"History: {text}; {those} no longer in the cluster (replaced or removed)",
            **evidence,
        )
    if state == RECOVERED:
        return section.warn(
            Priority.P2, f"{text}; since recovered: {_recovered(names, instances)}", **evidence
        )
    if family is UNMAPPED:
        return FINDINGS.warn(Priority.P1, text, **evidence)
    if level == "Error":
        return section.fail(Priority.P0, text, **evidence)
    return section.warn(Priority.P1, text, **evidence)


def _recovered(names: list[str], instances: list[str]) -> str:
    if names:
        return f"instance group {', '.join(names)} is InService at its target count" + (
            " and the instance is Running" if instances else ""
        )
    return "the cluster is InService"


@check(FINDINGS, title="Cluster events", scope="node")
def cluster_events(data: ClusterData) -> Iterable[Finding]:
    """Error and Warn cluster events, mapped to the section their description points to."""
    if not data.events_available():
        return judge_events(None)
    return judge_events(read_events(data), now=data.now)


def read_events(data: ClusterData) -> EventScan:
    """The cluster's events (with --node, the node's own list too), the descriptions of the
    latest unexplained Error events, and what the cluster is now."""
    node = data.target.node
    listed = data.events()
    events = list(listed.items)
    truncated = listed.truncated
    node_read: int | None = None
    node_error: str | None = None
    if node is not None:
        # The node's own events, even when the cluster-wide list is capped before them. A
        # replaced instance may be refused by the NodeId filter (ValidationException): the
        # cluster-wide list is then all there is.
        try:
            own = data.events(node)
        except AwsAccessError as exc:
            node_error = exc.reason
        else:
            seen = {e.event_id for e in events}
            added = [e for e in own.items if e.event_id not in seen]
            events.extend(added)
            node_read = len(added)
            truncated = truncated or own.truncated
    recent, _ = split_by_age(problem_events(events, node), data.now)
    details = {event_id: data.event_detail(event_id) for event_id in needs_detail(recent)}
    groups = {g.name: g for g in data.instance_groups() if g.name}
    return EventScan(
        events=tuple(events),
        truncated=truncated,
        node=node,
        node_read=node_read,
        node_error=node_error,
        details=details,
        nodes=data.current_node_statuses(),
        groups=groups,
        cluster_status=data.cluster().status or None,
    )
