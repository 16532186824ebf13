"""Shared pieces of the checks that read the cluster's CloudWatch log streams."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any

from tools.findings import Finding, Findings, Priority
from tools.triage.data.logs_model import LogScan

if TYPE_CHECKING:
    from tools.triage.data import ClusterData


def stream_parts(stream: str) -> tuple[str, str]:
    """(group, instance id) of `<Prefix>/<group>/<instance-id>`; blanks for other shapes."""
    parts = stream.split("/")
    if len(parts) >= 3:
        return parts[-2], parts[-1]
    return "", parts[-1] if parts else ""


def no_log_group(findings: Findings, what: str) -> Finding:
    """One INFO instead of a second WARN: the cloudwatch-logs check reports the gap."""
    return findings.info(
        f"{what} not read: the cluster has no CloudWatch log group "
        "(see the cloudwatch-logs finding)"
    )


def node_stream_prefix(prefix: str, group: str | None, node: str | None) -> str:
    """`<Prefix>/<group>/<instance-id>` when a node and its group are known, else `prefix`
    (every stream, filtered by instance in Python)."""
    if node and group:
        return f"{prefix}{group}/{node}"
    return prefix


def stream_coverage(
    findings: Findings, label: str, streams: Sequence[str], scan: LogScan
) -> Finding:
    """INFO: how many `label` streams exist (for the scan's node only when one is in focus);
    "at least N" when the listing stopped early."""
    node = scan.node
    mine = [s for s in streams if node is None or stream_parts(s)[1] == node]
    at_least = "At least " if scan.streams_truncated else ""
    return findings.info(
        f"{at_least}{len(mine)} {label} log streams" + (f" for {node}" if node else ""),
        streams=len(mine),
        streams_truncated=scan.streams_truncated,
    )


class ScanEnd(Enum):
    """How a line scan ended, as its judge reports it."""

    COMPLETE = "complete"
    CAPPED = "capped"  # the cap of lines was reached: older lines were not read
    OUT_OF_PAGES = "out-of-pages"  # the page budget ran out: some time was not scanned


def scan_end(scan: LogScan) -> ScanEnd:
    """COMPLETE unless the scan was cut short; OUT_OF_PAGES when its page budget ran out."""
    if not scan.truncated:
        return ScanEnd.COMPLETE
    return ScanEnd.OUT_OF_PAGES if scan.stopped_by == "pages" else ScanEnd.CAPPED


def scan_streams(data: ClusterData, prefix: str, pattern: str, cap: int) -> LogScan:
    """Read `<prefix><group>/<node>` streams (all of them without --node), newest first."""
    node = data.target.node
    group = data.instance_group_of(node) if node else None
    stream_prefix = node_stream_prefix(prefix, group, node)
    listed = data.log_stream_count(stream_prefix)
    scan = data.recent_log_events(stream_prefix, pattern, cap=cap)
    return LogScan(
        events=scan.items,
        streams=listed.names,
        streams_truncated=listed.truncated,
        node=node,
        truncated=scan.truncated,
        stopped_by=scan.stopped_by,
        statuses=data.current_node_statuses(),
    )


@dataclass(frozen=True, slots=True)
class ScanWording:
    """The findings on a log scan that was cut short (out of pages, or capped), worded for
    the check that ran it: `scan_name` ("Lifecycle log scan"), the `lines` it keeps
    ("candidate lines"), what the older ones are (`older`) and the `period` scanned."""

    findings: Findings
    scan: LogScan
    cap: int
    pages: int
    scan_name: str
    lines: str
    older: str
    period: str

    @property
    def hint(self) -> str:
        return "" if self.scan.node else " (use --node to read one node's stream)"

    def out_of_pages(self, *, matched: bool) -> Finding:
        read = len(self.scan.events)
        text = (
            f"{self.scan_name} incomplete after {self.pages} pages per time window "
            "(FilterLogEvents scans a slice of time per call and may return empty pages): "
            f"{read} {self.lines} read, some of {self.period} not scanned{self.hint}"
        )
        evidence: dict[str, Any] = {"pages": self.pages, "read": read, "stopped_by": "pages"}
        if matched:
            return self.findings.warn(Priority.P2, text, **evidence)
        return self.findings.info(text, **evidence)

    def cut_short(self, *, matched: bool) -> list[Finding]:
        """The finding that says how the scan was cut short (none when it was complete):
        `matched` whether what was read already holds a match (a scan out of pages then
        warns rather than informs)."""
        end = scan_end(self.scan)
        if end is ScanEnd.OUT_OF_PAGES:
            return [self.out_of_pages(matched=matched)]
        if end is ScanEnd.CAPPED:
            return [self.capped()]
        return []

    def capped(self) -> Finding:
        return self.findings.warn(
            Priority.P2,
            f"{self.scan_name} capped at {self.cap} {self.lines}, newest first: "
            f"older {self.older} of {self.period} were not read{self.hint}",
            cap=self.cap,
            read=len(self.scan.events),
            stopped_by="cap",
        )
