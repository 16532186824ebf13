"""§ F, § G.1.b: cluster operations (scaling and deep health checks) in progress or failed.

ListClusterOperations lists the cluster's operations, newest first; Type is Scaling or
DeepHealthCheck and Status InProgress, Superseded or Done (botocore's SageMaker model:
ClusterOperationType, ClusterOperationStatus). DescribeClusterOperation adds the groups an
operation touches (ScalingDetails: counts before and desired; DeepHealthCheckDetails: the
checks and instances asked for). An operation in progress explains nodes that look stuck:
Pending while a group scales, DeepHealthCheckInProgress (and out of service) while a deep
health check runs. That is INFO; an operation still in progress after LONG_RUNNING is a
WARN P2 (a threshold of this tool's, not an AWS limit).

The API has no failed status and no failure message. Cluster events carry the id of the
operation they belong to (ClusterEventSummary.OperationId), so an operation with Error
events is one that went wrong: FAIL P1 when it is the newest operation of its type (or
still running), INFO history when a later one of the same type followed. Events exist only
on clusters with NodeProvisioningMode=Continuous; elsewhere (or when ListClusterEvents is
refused) the check says failures cannot be told from the API, never that none failed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from functools import partial
from typing import Any

from tools.findings import Finding, Findings, Priority
from tools.registry import check
from tools.text import clip, quoted
from tools.triage.data import ClusterData
from tools.triage.data.sagemaker_model import (
    ClusterEvent,
    ClusterNode,
    ClusterOperation,
    OperationListing,
)

CHECK_ID = "cluster-operations"
FINDINGS = Findings(CHECK_ID, "F")
DHC_FINDINGS = FINDINGS.at("G.1.b")
SCALING, DEEP_HEALTH_CHECK = "Scaling", "DeepHealthCheck"
RECENT = timedelta(days=7)  # operations created earlier, and done, are not judged
LONG_RUNNING = timedelta(hours=24)
MAX_DESCRIBED = 5  # DescribeClusterOperation calls per triage
# Node statuses an operation in progress accounts for (ListClusterNodes InstanceStatus).
HELD_STATUSES = frozenset({"Pending", "DeepHealthCheckInProgress"})
SAMPLES = 10


@dataclass(frozen=True, slots=True)
class OperationScan:
    """What the judge reads: the listing, the described operations (by id), the Error
    events per operation id (None: events unavailable), the nodes (None: unknown) and
    the triage's clock."""

    listing: OperationListing
    now: datetime
    details: Mapping[str, ClusterOperation] | None = None
    errors: Mapping[str, tuple[ClusterEvent, ...]] | None = None
    nodes: tuple[ClusterNode, ...] | None = None


class OpKind(StrEnum):
    RUNNING = "running"
    LONG_RUNNING = "long-running"
    FAILED = "failed"  # Error events, and the newest of its type (or still running)
    FAILED_EARLIER = "failed-earlier"  # Error events, but a later one of its type followed


@dataclass(frozen=True, slots=True)
class OperationVerdict:
    kind: OpKind
    operation: ClusterOperation
    errors: tuple[ClusterEvent, ...] = ()
    held: tuple[str, ...] = ()  # instance ids the running operation accounts for


def to_describe(listing: OperationListing, now: datetime, limit: int = MAX_DESCRIBED) -> list[str]:
    """Ids of the operations worth describing: those in progress, then the newest recent
    one of each type; at most `limit`."""
    wanted = [o.operation_id for o in listing.items if o.in_progress and o.operation_id]
    seen: set[str] = set()
    for operation in listing.items:
        if operation.type in seen or not _recent(operation, now):
            continue
        seen.add(operation.type)
        if operation.operation_id:
            wanted.append(operation.operation_id)
    return list(dict.fromkeys(wanted))[:limit]


def _recent(operation: ClusterOperation, now: datetime) -> bool:
    """Created within RECENT; an operation with no readable time counts as recent."""
    return operation.created_at is None or now - operation.created_at <= RECENT


def errors_by_operation(events: Iterable[ClusterEvent]) -> dict[str, tuple[ClusterEvent, ...]]:
    """Error-level events per operation id, newest first (as listed)."""
    found: dict[str, list[ClusterEvent]] = {}
    for event in events:
        if event.level == "Error" and event.operation_id:
            found.setdefault(event.operation_id, []).append(event)
    return {key: tuple(value) for key, value in found.items()}


def _held(operation: ClusterOperation, nodes: Sequence[ClusterNode] | None) -> tuple[str, ...]:
    """The listed nodes in a held status that the running operation touches: its groups,
    or the instances a deep health check names."""
    if not nodes:
        return ()
    ids = {i for g in operation.health_checks for i in g.instance_ids}
    groups = {g.instance_group for g in operation.health_checks if not g.instance_ids}
    groups.update(g.instance_group for g in operation.scaling)
    return tuple(
        n.instance_id
        for n in nodes
        if n.status in HELD_STATUSES and (n.instance_id in ids or n.instance_group in groups)
    )


def operation_verdicts(scan: OperationScan) -> list[OperationVerdict]:
    """The rule of the module docstring, newest operation first; [] when nothing is in
    progress and nothing recent reported errors."""
    details = scan.details or {}
    errors = scan.errors or {}
    newest_of_type: set[str] = set()
    verdicts: list[OperationVerdict] = []
    for summary in scan.listing.items:
        operation = details.get(summary.operation_id, summary)
        newest = summary.type not in newest_of_type
        newest_of_type.add(summary.type)
        failures = errors.get(summary.operation_id, ())
        if summary.in_progress:
            started = operation.created_at
            long = started is not None and scan.now - started > LONG_RUNNING
            kind = OpKind.FAILED if failures else OpKind.LONG_RUNNING if long else OpKind.RUNNING
            held = _held(operation, scan.nodes)
            verdicts.append(OperationVerdict(kind, operation, failures, held))
        elif failures and _recent(summary, scan.now):
            kind = OpKind.FAILED if newest else OpKind.FAILED_EARLIER
            verdicts.append(OperationVerdict(kind, operation, failures))
    return verdicts


# -- words ---------------------------------------------------------------------------------


def _what(operation: ClusterOperation) -> str:
    if operation.type == DEEP_HEALTH_CHECK:
        checks = sorted({c for g in operation.health_checks for c in g.checks})
        return "Deep health check" + (f" ({', '.join(checks)})" if checks else "")
    if operation.type == SCALING:
        return "Scaling operation"
    return f"Cluster operation of type {clip(operation.type or 'unknown', 40)}"


def _scope(operation: ClusterOperation) -> str:
    parts: list[str] = []
    for scaling in operation.scaling:
        before, after = scaling.original.target, scaling.desired.target
        change = f" ({before} → {after} nodes)" if before is not None and after is not None else ""
        parts.append(f"{clip(scaling.instance_group, 63)}{change}")
    for health in operation.health_checks:
        count = len(health.instance_ids)
        which = f"{count} instance{'s' if count != 1 else ''}" if count else "all instances"
        parts.append(f"{clip(health.instance_group, 63)} ({which})")
    return f" on {', '.join(parts)}" if parts else ""


def _since(operation: ClusterOperation, now: datetime) -> str:
    if operation.created_at is None:
        return ""
    minutes = int((now - operation.created_at).total_seconds() // 60)
    age = f"{minutes} min" if minutes < 120 else f"{minutes // 60} h"
    return f" since {clip(operation.created, 40)} ({age})"


def _evidence(verdict: OperationVerdict) -> dict[str, Any]:
    operation = verdict.operation
    return {
        "operation_id": operation.operation_id,
        "type": operation.type,
        "status": operation.status,
        "created": operation.created or None,
        "groups": list(operation.groups),
        "error_events": len(verdict.errors),
        "latest_errors": [clip(e.description) for e in verdict.errors[:3]],
        "resources": sorted({e.instance_id for e in verdict.errors if e.instance_id})
        or list(verdict.held[:SAMPLES]),
    }


def _findings_for(operation: ClusterOperation) -> Findings:
    return DHC_FINDINGS if operation.type == DEEP_HEALTH_CHECK else FINDINGS


def word_operation(verdict: OperationVerdict, now: datetime) -> Finding:
    operation = verdict.operation
    findings = _findings_for(operation)
    name = f"{_what(operation)} {clip(operation.operation_id, 40)}"
    scope, since = _scope(operation), _since(operation, now)
    if verdict.kind in (OpKind.FAILED, OpKind.FAILED_EARLIER):
        latest = verdict.errors[0]
        count = len(verdict.errors)
        text = (
            f"{name} ({clip(operation.status, 20)}){scope} has {count} Error event"
            f"{'s' if count != 1 else ''}; latest: {quoted(latest.description, 200)}"
        )
        if verdict.kind is OpKind.FAILED_EARLIER:
            return findings.info(
                f"History: {text}; a later {operation.type} operation followed",
                **_evidence(verdict),
            )
        follow = (
            " — read the deep health check results (§ G.1.b); HyperPod reboots or replaces "
            "the nodes that fail it when NodeRecovery is Automatic"
            if operation.type == DEEP_HEALTH_CHECK
            else " — read the operation's events (aws sagemaker list-cluster-events "
            "--operation-id ...) and the failure messages they describe (§ F)"
        )
        return findings.fail(Priority.P1, text + follow, **_evidence(verdict))
    held = verdict.held
    explains = (
        f"; it accounts for {len(held)} node{'s' if len(held) != 1 else ''} in "
        f"{'/'.join(sorted(HELD_STATUSES))} ({', '.join(held[:SAMPLES])})"
        if held
        else ""
    )
    text = f"{name} in progress{since}{scope}{explains}"
    if verdict.kind is OpKind.LONG_RUNNING:
        hours = int(LONG_RUNNING.total_seconds() // 3600)
        return findings.warn(
            Priority.P2,
            f"{text} — running for more than {hours} h (this tool's threshold, not an AWS "
            "limit): read its events and the node statuses (§ F)",
            **_evidence(verdict),
        )
    return findings.info(
        f"{text}: nodes it holds are expected to look pending until it ends",
        **_evidence(verdict),
    )


def judge_operations(scan: OperationScan) -> list[Finding]:
    """One finding per operation in progress or with Error events; PASS when none is in
    progress and none failed; INFO when failures cannot be told (no events)."""
    verdicts = operation_verdicts(scan)
    findings = [word_operation(v, scan.now) for v in verdicts]
    if scan.listing.truncated:
        findings.append(
            FINDINGS.info(
                f"Only the newest {len(scan.listing.items)} cluster operations were read",
                read=len(scan.listing.items),
            )
        )
    if scan.errors is None:
        findings.append(
            FINDINGS.info(
                "Whether a cluster operation failed cannot be told here: the API gives "
                "operations no failed status, and this cluster's events (which name the "
                "operation they belong to) could not be read (see cluster-events)",
                operations=len(scan.listing.items),
            )
        )
    if not verdicts:
        judged = "in progress" if scan.errors is None else "in progress or failed recently"
        findings.append(
            FINDINGS.passed(
                f"No scaling or deep health check operation {judged} "
                f"({len(scan.listing.items)} operations listed)",
                operations=len(scan.listing.items),
            )
        )
    return findings


@check(FINDINGS, title="Cluster operations")
def cluster_operations(data: ClusterData) -> Iterable[Finding]:
    """Scaling and deep health check operations (ListClusterOperations) in progress, or
    with Error events (ListClusterEvents OperationId)."""
    listing = data.operations()
    now = data.now
    details: dict[str, ClusterOperation] = {}
    for op_id in to_describe(listing, now):
        detail = data.optional(partial(data.operation_detail, op_id))
        if detail is not None:
            details[op_id] = detail
    events = data.optional(data.events) if data.events_available() else None
    errors = errors_by_operation(events.items) if events is not None else None
    listed = data.optional(data.nodes)
    return judge_operations(
        OperationScan(
            listing=listing,
            now=now,
            details=details,
            errors=errors,
            nodes=listed.items if listed is not None else None,
        )
    )
