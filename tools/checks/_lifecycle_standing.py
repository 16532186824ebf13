"""§ D.2 rules: where each lifecycle failure line stands now.

The lines a LifecycleConfig scan read are collected per stream and family (`collect`,
`by_family`); each stream's failure then stands by its instance: FAILING on an instance the
cluster has that is not Running, RUNNING on one that is (the failing step was not fatal),
ROOT_CAUSE on an instance a failed create or update left behind, HISTORY on one the cluster
replaced or removed. No wording here: `lifecycle_logs.py` words the verdicts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import NamedTuple

from tools.checks._lifecycle_families import GENERIC, LOG_FAMILIES, LogFamily, classify_line
from tools.checks._logs import stream_parts
from tools.triage.data.logs_model import LogEvent, LogScan

RUNNING = "Running"
# DescribeCluster ClusterStatus values of a create or update that did not complete (the
# botocore model's enum: Creating | Deleting | Failed | InService | RollingBack |
# SystemUpdating | Updating).
FAILED_CLUSTER = frozenset({"Failed", "RollingBack"})


class StreamHit(NamedTuple):
    """A family's latest matching line in one stream."""

    stream: str
    moment: int
    message: str


Hits = dict[str, dict[str, tuple[int, str]]]
Lines = dict[str, list[tuple[int, str]]]


def collect(events: Sequence[LogEvent], node: str | None) -> tuple[Hits, Lines]:
    """Per stream: each family's latest matching (timestamp, line), and every line read
    (for the failing script's name, line and exit status)."""
    hits: Hits = {}
    lines: Lines = {}
    for event in events:
        stream = event.stream
        if node is not None and stream_parts(stream)[1] != node:
            continue
        message = event.message
        lines.setdefault(stream, []).append((event.timestamp, message))
        family = classify_line(message)
        if family is None:
            continue
        moment = event.timestamp
        known = hits.setdefault(stream, {}).get(family.key)
        if known is None or moment >= known[0]:
            hits[stream][family.key] = (moment, message)
    return hits, lines


def by_family(hits: Hits) -> dict[str, list[StreamHit]]:
    """Each stream's hits under their family; a stream with a specific family is not also
    counted under the generic one."""
    by_family: dict[str, list[StreamHit]] = {}
    for stream, families in hits.items():
        specific = [k for k in families if k != GENERIC]
        for key in specific or [GENERIC]:
            moment, message = families[key]
            by_family.setdefault(key, []).append(StreamHit(stream, moment, message))
    return by_family


class Standing(Enum):
    """Where a family's failure lines stand now, in the order they are reported."""

    FAILING = "failing"  # on instances the cluster has that are not Running
    RUNNING = "running"  # on Running instances: the failing step was not fatal
    ROOT_CAUSE = "root-cause"  # on instances a failed create or update left behind
    HISTORY = "history"  # on instances the cluster replaced or removed


@dataclass(frozen=True, slots=True)
class FamilyFailure:
    """One family's failure lines in the streams that stand the same way, sorted."""

    family: LogFamily
    standing: Standing
    members: tuple[StreamHit, ...]


@dataclass(frozen=True, slots=True)
class ClusterOutcome:
    """Whether a create or update failed: the cluster's status (FAILED_CLUSTER when it
    failed as a whole) and the names of Failed instance groups."""

    cluster_status: str | None = None
    failed_groups: frozenset[str] = frozenset()

    def failed_here(self, stream: str) -> bool:
        """The stream's instance belongs to a create or update that failed: the whole
        cluster's, or its instance group's."""
        return (
            self.cluster_status in FAILED_CLUSTER or stream_parts(stream)[0] in self.failed_groups
        )


def standing_of(hit: StreamHit, scan: LogScan, outcome: ClusterOutcome) -> Standing:
    """Where one stream's failure stands, by its instance's presence and status now."""
    instance = stream_parts(hit.stream)[1]
    current = scan.current
    if current is None or not instance or instance in current:
        status = (scan.statuses or {}).get(instance) if instance else None
        return Standing.RUNNING if status == RUNNING else Standing.FAILING
    return Standing.ROOT_CAUSE if outcome.failed_here(hit.stream) else Standing.HISTORY


def family_failures(
    by_family: dict[str, list[StreamHit]], scan: LogScan, outcome: ClusterOutcome
) -> list[FamilyFailure]:
    """Per family in table order, its streams split by standing, in Standing order."""
    failures: list[FamilyFailure] = []
    for family in LOG_FAMILIES:
        members = by_family.get(family.key, [])
        for standing in Standing:
            mine = [m for m in members if standing_of(m, scan, outcome) is standing]
            if mine:
                failures.append(FamilyFailure(family, standing, tuple(sorted(mine))))
    return failures
