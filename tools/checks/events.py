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

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from tools.aws.errors import AwsAccessError
from tools.checks._cluster_events import RECENT, classify, problem_events, split_by_age
from tools.checks._event_families import FAMILIES, UNMAPPED, Family
from tools.checks._event_history import GONE, RECOVERED, STATES, event_state
from tools.findings import Finding, Findings, Priority, fail, info, warn
from tools.registry import check
from tools.text import clip, quoted
from tools.triage.data import EVENT_CAP, ClusterData
from tools.triage.data.sagemaker_model import ClusterEvent, InstanceGroup

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


@dataclass
class _Group:
    family: Family
    level: str
    state: str
    events: list[ClusterEvent]
    texts: list[str]


def judge_events(
    events: Sequence[ClusterEvent],
    *,
    available: bool = True,
    truncated: bool = False,
    node: str | None = None,
    details: dict[str, ClusterEvent] | None = None,
    now: datetime | None = None,
    cap: int = EVENT_CAP,
    nodes: dict[str, str] | None = None,
    groups: dict[str, InstanceGroup] | None = None,
    cluster_status: str | None = None,
    node_read: int | None = None,
    node_error: str | None = None,
) -> list[Finding]:
    """Group Error/Warn events by (family, level, state): one finding each, latest text.

    `nodes` (instance id -> current status), `groups` (instance group name -> its
    DescribeCluster entry) and `cluster_status` tell history from the present; without
    them every event is judged as current. With `node`, `node_read` is how many events
    the node's own list added (None: not read) and `node_error` why it could not be read.
    """
    if not available:
        return [
            FINDINGS.info(
                "Events unavailable for this cluster (NodeProvisioningMode is not Continuous)",
                available=False,
            )
        ]
    details = details or {}
    findings: list[Finding] = []
    if node is not None and node_error:
        findings.append(
            FINDINGS.info(
                f"The events of {node} could not be listed on their own ({node_error}); "
                "judged from the cluster-wide list",
                resources=[node],
                node_error=node_error,
            )
        )
    if truncated:
        counts: dict[str, Any] = {} if node_read is None else {"node_read": node_read}
        if node is not None and node_read is not None:
            read = (
                f"{len(events) - node_read} cluster-wide events and {node_read} more of "
                f"{node} were read (each list capped at {cap})"
            )
        else:
            read = f"Only the latest {cap} cluster events were read"
        findings.append(
            FINDINGS.warn(
                Priority.P2,
                f"{read}: older Error/Warn events were not judged"
                + ("" if node else " (use --node to read one node's events)"),
                cap=cap,
                read=len(events),
                **counts,
            )
        )
    problems = problem_events(events, node)
    recent, older = split_by_age(problems, now)
    if older:
        findings.append(
            FINDINGS.info(
                f"{len(older)} Error/Warn events older than {RECENT.days} days were not judged",
                resources=sorted({e.instance_id for e in older if e.instance_id}),
                older=len(older),
            )
        )
    grouped: dict[tuple[str, str, str], _Group] = {}
    for event in recent:
        description = event.description
        text = description
        family = classify(description, event)
        if family is None:
            detail = details.get(event.event_id)
            extra = detail.failure_text if detail is not None else ""
            if extra:
                text = f"{description}: {extra}" if description else extra
                family = classify(extra, event)
        level = event.level
        state = event_state(event, nodes, groups, cluster_status)
        key = ((family or UNMAPPED).key, level, state)
        group = grouped.setdefault(key, _Group(family or UNMAPPED, level, state, [], []))
        group.events.append(event)
        group.texts.append(text)
    for _, group in sorted(grouped.items(), key=_group_order):
        findings.append(_finding(group))
    if not problems:
        findings.append(
            FINDINGS.passed(
                f"No Error or Warn events among the {len(events)} cluster events read"
                + (f" for {node}" if node else ""),
                read=len(events),
            )
        )
    return findings


def _group_order(item: tuple[tuple[str, str, str], _Group]) -> tuple[int, int, int]:
    (key, level, state), _ = item
    keys = [f.key for f in FAMILIES] + [UNMAPPED.key]
    return (STATES.index(state), 0 if level == "Error" else 1, keys.index(key))


def _finding(group: _Group) -> Finding:
    family, level, state = group.family, group.level, group.state
    latest_index = max(range(len(group.events)), key=lambda i: group.events[i].sort_time)
    latest = group.texts[latest_index]
    latest_time = group.events[latest_index].time
    when = "?" if latest_time is None else latest_time
    instances = sorted({e.instance_id for e in group.events if e.instance_id})
    names = sorted({e.instance_group for e in group.events if e.instance_group})
    count = len(group.events)
    noun = f"{count} {level} event{'s' if count != 1 else ''}"
    where = (
        f" on {', '.join(instances[:5])}" + ("…" if len(instances) > 5 else "") if instances else ""
    )
    also = f" (also check § {family.also})" if family.also else ""
    evidence: dict[str, Any] = {
        "family": family.key,
        "level": level,
        "state": state,
        "count": count,
        "latest": clip(latest),
        "latest_time": when,
        "event_ids": [e.event_id for e in group.events][:20],
    }
    if family is UNMAPPED:
        text = (
            f"{noun}{where} {'matches' if count == 1 else 'match'} no known pattern, "
            f"latest at {when}: {quoted(latest)}"
        )
    else:
        verb = "points" if count == 1 else "point"
        text = f"{noun}{where} {verb} to {family.title}{also}, latest at {when}: {quoted(latest)}"
    if state == GONE:
        return info(
            CHECK_ID,
            family.section,
            f"History: {text}; {'that instance is' if len(instances) == 1 else 'those are'} "
            "no longer in the cluster (replaced or removed)",
            resources=instances,
            **evidence,
        )
    if state == RECOVERED:
        if names:
            now = f"instance group {', '.join(names)} is InService at its target count" + (
                " and the instance is Running" if instances else ""
            )
        else:
            now = "the cluster is InService"
        return warn(
            CHECK_ID,
            Priority.P2,
            family.section,
            f"{text}; since recovered: {now}",
            resources=instances,
            **evidence,
        )
    if family is UNMAPPED:
        return FINDINGS.warn(Priority.P1, text, resources=instances, **evidence)
    if level == "Error":
        return fail(CHECK_ID, Priority.P0, family.section, text, resources=instances, **evidence)
    return warn(CHECK_ID, Priority.P1, family.section, text, resources=instances, **evidence)


@check(FINDINGS, title="Cluster events", scope="node")
def cluster_events(data: ClusterData) -> Iterable[Finding]:
    """Error and Warn cluster events, mapped to the section their description points to."""
    if not data.events_available():
        return judge_events([], available=False)
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
    wanted = needs_detail(recent)
    details = {event_id: data.event_detail(event_id) for event_id in wanted}
    groups = {g.name: g for g in data.instance_groups() if g.name}
    return judge_events(
        events,
        truncated=truncated,
        node=node,
        details=details,
        now=data.now,
        nodes=data.current_node_statuses(),
        groups=groups,
        cluster_status=data.cluster().status or None,
        node_read=node_read,
        node_error=node_error,
    )
