"""The AWS Support ticket checklist, filled from a triage report.

Escalation is the last step of the workflow; the ticket must carry what Support asks for
first (references/node-diagnostics-detail.md § L, prompts/_ticket_checklist.jinja2). One
builder, `build_ticket`, gathers it from a triage report: the `ticket` command renders it
as `summary.md` (`agent.ticket_bundle.render_summary`) and the agent's
`draft_support_ticket` tool returns it as fields (`agent.toolset.ticket_tool`). What is not
known is listed as missing, never guessed.

Every value quoted from the cluster (status messages, events, log lines) passes through
`tools.redaction` before it is kept; commands are rendered for the user to run, never run.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from agent.toolset.budget import clip_line
from tools.findings import Finding, Priority, Status
from tools.redaction import redact_text
from tools.text import clip
from tools.triage.render import finding_line

if TYPE_CHECKING:
    from tools.ownership.model import IacOwner
    from tools.triage.report import TriageReport

MAX_LINES = 25
MAX_INSTANCES = 50
MAX_ERROR_STRINGS = 30
ERROR_CHARS = 600

# Shapes a value must have before it is put into a rendered command (else a placeholder).
INSTANCE_ID = re.compile(r"^i-[0-9a-f]{8,17}$")
GROUP_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]{0,62}$")
CLUSTER_ID = re.compile(r"^[a-z0-9]{12}$")
_NODE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.-]{0,252}$")

# Evidence keys that hold text quoted from the cluster: status messages, events, log lines.
_ERROR_KEYS = frozenset(
    {
        "status_message",
        "failure_message",
        "latest",
        "lines",
        "line",
        "errors",
        "message",
        "detail",
        "sample",
        "log_excerpts",
    }
)
# Evidence keys that hold a time; kernel log lines carry their own (`dmesg -T`).
_TIME_KEYS = frozenset(
    {"latest_time", "first_time", "last_time", "reason_time", "timestamp", "event_time", "time"}
)
_DMESG_TIME = re.compile(
    r"\[(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ([A-Z][a-z]{2}) {1,2}(\d{1,2}) (\d\d:\d\d:\d\d) (\d{4})\]"
)
_RELATIVE = re.compile(r"^(\d{1,6})\s*([smhdw])$", re.IGNORECASE)
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
# GPU checks whose evidence Support asks for in hardware cases (§ G).
_GPU_CHECKS = (
    "gpu-xid",
    "gpu-ecc",
    "gpu-row-remap",
    "gpu-page-retirement",
    "gpu-dcgm",
    "gpu-dcgm-logs",
    "gpu-count",
    "gpu-throttle",
    "health-monitoring-agent",
    "k8s-node-health",
)
CHECKLIST = (
    "the cluster name and ARN, and the region",
    "the orchestrator (EKS or Slurm)",
    "the affected instance ids, node names and instance-group names",
    "the failure window in UTC, start and end",
    "the error strings exactly as seen (pod logs, CloudWatch, dmesg, events)",
    "for hardware faults: Xid numbers, ECC counts, DCGM output",
    "the triage output (triage.txt)",
    "the S3 URI of the node log bundle",
)


Since = datetime | timedelta


def parse_since(text: str) -> Since:
    """`--since`: an ISO-8601 time (no zone means UTC) or a span back from now: `90m`, `6h`,
    `2d`, `1w`. Raises ValueError with a one-line reason."""
    value = text.strip()
    relative = _RELATIVE.match(value)
    if relative:
        amount = int(relative.group(1))
        if amount == 0:
            raise ValueError(f"--since {value!r} is an empty span")
        return timedelta(**{_UNITS[relative.group(2).lower()]: amount})
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise ValueError(
            f"--since {clip(value, 60)!r} is neither an ISO-8601 time "
            "(2026-11-20T10:00:00Z) nor a span such as 6h or 2d"
        ) from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


@dataclass
class AffectedNode:
    instance_id: str
    group: str = ""
    node_name: str = ""
    instance_type: str = ""


@dataclass
class HardwareDetail:
    instance_id: str
    line: str
    details: list[str] = field(default_factory=list)


@dataclass
class TicketFacts:
    """Everything the checklist asks for that a triage can tell."""

    cluster_name: str
    cluster_arn: str
    cluster_id: str
    region: str
    orchestrator: str
    recorded: bool
    focus_node: str | None
    nodes: list[AffectedNode]
    instance_groups: list[str]
    window_start: datetime | None
    window_end: datetime
    window_source: str
    error_strings: list[str]
    xids: list[int]
    hardware: list[HardwareDetail]
    triage_lines: list[str]
    # Who manages the cluster's security groups, subnets, VPCs and clusters
    # (tools/ownership), when read: Support sees at once whether a fix goes through a stack.
    owners: list[IacOwner] = field(default_factory=list)

    @property
    def instance_ids(self) -> list[str]:
        return [n.instance_id for n in self.nodes]

    @property
    def node_names(self) -> list[str]:
        return [n.node_name for n in self.nodes if n.node_name]

    def window(self) -> dict[str, str] | None:
        if self.window_start is None:
            return None
        return {
            "start": utc(self.window_start),
            "end": utc(self.window_end),
            "source": self.window_source,
        }

    def before_opening(self) -> list[str]:
        """Step 1 and 2 of § L with the real names: identity, node status, triage."""
        name, region = shlex.quote(self.cluster_name), shlex.quote(self.region)
        steps = [f"aws sagemaker describe-cluster --cluster-name {name} --region {region}"]
        for instance in self.command_instances()[:3]:
            steps.append(
                f"aws sagemaker list-cluster-nodes --cluster-name {name} --region {region} "
                f"--query \"ClusterNodeSummaries[?InstanceId=='{instance}']\""
            )
        focus = self.command_instances()[:1]
        node = f" --node {focus[0]}" if focus else ""
        steps.append(f"hyperpod-debug triage --cluster {name} --region {region}{node} > triage.txt")
        return steps

    def command_instances(self) -> list[str]:
        return [n.instance_id for n in self.nodes if INSTANCE_ID.match(n.instance_id)]


def utc(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _parse_time(value: Any) -> datetime | None:
    try:
        if isinstance(value, bool):
            return None
        if isinstance(value, int | float):
            seconds = value / 1000 if value > 1e11 else value
            return datetime.fromtimestamp(seconds, tz=UTC)
        if isinstance(value, str) and 10 <= len(value) <= 40:
            parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
            return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    except (ValueError, OverflowError, OSError):
        return None
    return None


def _dmesg_times(text: str) -> list[datetime]:
    out = []
    for month, day, clock, year in _DMESG_TIME.findall(text):
        try:
            out.append(
                datetime.strptime(f"{year} {month} {day} {clock}", "%Y %b %d %H:%M:%S").replace(
                    tzinfo=UTC
                )
            )
        except ValueError:
            continue
    return out


def _walk(value: Any, depth: int = 0) -> list[tuple[str, Any]]:
    """(key, value) pairs of a finding's evidence, nested dicts and lists included."""
    if depth > 6:
        return []
    pairs: list[tuple[str, Any]] = []
    if isinstance(value, dict):
        for key, item in value.items():
            pairs.append((str(key), item))
            pairs.extend(_walk(item, depth + 1))
    elif isinstance(value, list):
        for item in value[:200]:
            pairs.extend(_walk(item, depth + 1))
    return pairs


def _evidence_times(finding: Finding) -> list[datetime]:
    times: list[datetime] = []
    for key, value in _walk(finding.evidence):
        if key in _TIME_KEYS:
            parsed = _parse_time(value)
            if parsed is not None:
                times.append(parsed)
        if key in ("lines", "line", "latest", "message"):
            for text in value if isinstance(value, list) else [value]:
                if isinstance(text, str):
                    times.extend(_dmesg_times(text))
    return times


def _error_strings(problems: list[Finding]) -> list[str]:
    out: list[str] = []
    for finding in problems:
        for key, value in _walk(finding.evidence):
            if key not in _ERROR_KEYS:
                continue
            for text in value if isinstance(value, list) else [value]:
                if not isinstance(text, str) or not text.strip():
                    continue
                quoted = clip(redact_text(text), ERROR_CHARS)
                if quoted and quoted not in out:
                    out.append(quoted)
    return out[:MAX_ERROR_STRINGS]


def _xid_numbers(findings: list[Finding]) -> list[int]:
    xids: set[int] = set()
    for finding in findings:
        for value in finding.evidence.get("xids", []) or []:
            if isinstance(value, int | str) and str(value).isdigit() and len(str(value)) <= 4:
                xids.add(int(value))
    return sorted(xids)


def _hardware_details(finding: Finding) -> list[str]:
    """The raw values Support asks for: Xid lines, non-zero ECC and remap counters, DCGM
    incidents and diagnostic log lines."""
    evidence = finding.evidence
    details: list[str] = []
    if evidence.get("xids"):
        details.append("Xid " + ", ".join(str(x) for x in evidence["xids"]))
    if evidence.get("gpus") and isinstance(evidence["gpus"], list):
        details.append("GPUs: " + ", ".join(clip(g, 60) for g in evidence["gpus"][:16]))
    counters = evidence.get("counters")
    if isinstance(counters, dict):
        nonzero = {
            gpu: c
            for gpu, c in counters.items()
            if isinstance(c, dict) and any(v for v in c.values() if isinstance(v, int))
        }
        if nonzero:
            for gpu, c in list(nonzero.items())[:16]:
                counts = ", ".join(f"{k} {v}" for k, v in c.items())
                details.append(f"uncorrectable ECC {clip(gpu, 60)}: {clip(counts, 120)}")
        else:
            details.append(f"uncorrectable ECC: 0 on {len(counters)} GPU(s)")
    remapper = evidence.get("remapper")
    if isinstance(remapper, dict):
        bad = [
            f"{clip(gpu, 40)} (correctable {r.get('correctable')}, uncorrectable "
            f"{r.get('uncorrectable')}, pending {r.get('pending')}, failure {r.get('failure')})"
            for gpu, r in remapper.items()
            if isinstance(r, dict)
            and (r.get("uncorrectable") or r.get("pending") or r.get("failure"))
        ]
        details.append("row remap: " + ("; ".join(bad[:8]) if bad else "no pending or failed"))
    if "overall" in evidence:
        details.append(f"DCGM health: {clip(evidence['overall'], 60)}")
    for incident in (evidence.get("incidents") or [])[:8]:
        if isinstance(incident, dict):
            details.append(
                "DCGM incident: "
                + clip(
                    f"{incident.get('entity', '')} {incident.get('system', '')} "
                    f"{incident.get('health', '')}: {incident.get('message', '')}",
                    300,
                )
            )
    if finding.check == "gpu-dcgm-logs" and evidence.get("lines"):
        details.append(f"DCGM diagnostic log {clip(evidence.get('log', ''), 80)}:")
    for line in (evidence.get("lines") or [])[:8]:
        details.append(clip(line, 300))
    for fault in (evidence.get("fault_details") or [])[:4]:
        if isinstance(fault, dict) and fault.get("message"):
            details.append(clip(f"{fault.get('timestamp', '')} {fault['message']}", 300))
    return details


def _node_map(findings: list[Finding]) -> dict[str, AffectedNode]:
    """instance id → group, node name and type, from every finding that ties them."""
    nodes: dict[str, AffectedNode] = {}
    for finding in findings:
        evidence = finding.evidence
        instance = evidence.get("instance_id")
        if not isinstance(instance, str):
            if len(finding.resources) != 1 or not finding.resources[0].startswith("i-"):
                continue
            instance = finding.resources[0]
        node = nodes.setdefault(instance, AffectedNode(instance))
        group, name, kind = (
            evidence.get("group"),
            evidence.get("node"),
            evidence.get("instance_type"),
        )
        if isinstance(group, str) and not node.group:
            node.group = group
        if isinstance(name, str) and not node.node_name:
            node.node_name = name
        if isinstance(kind, str) and not node.instance_type:
            node.instance_type = kind
    return nodes


def build_ticket(
    report: TriageReport,
    *,
    now: datetime,
    since: Since | None = None,
    instance_ids: list[str] | tuple[str, ...] = (),
    error_strings: list[str] | tuple[str, ...] = (),
    xids: list[int] | tuple[int, ...] = (),
) -> TicketFacts:
    """The checklist's facts from one triage report (`now`: when the triage read the
    cluster). `instance_ids`, `error_strings` and `xids` add what the user said."""
    problems = report.problems()
    known = _node_map(report.findings)
    order: list[str] = []
    for instance in [*([report.node] if report.node else []), *instance_ids]:
        if instance and instance not in order:
            order.append(instance)
    for finding in problems:
        for resource in finding.resources:
            if resource.startswith("i-") and resource not in order:
                order.append(resource)
        instance = finding.evidence.get("instance_id")
        if isinstance(instance, str) and instance not in order:
            order.append(instance)
    nodes = [known.get(i, AffectedNode(i)) for i in order[:MAX_INSTANCES]]
    groups: list[str] = []
    for candidate in [n.group for n in nodes] + [g for f in problems for g in _groups_of(f)]:
        if candidate and candidate not in groups:
            groups.append(candidate)

    if isinstance(since, timedelta):
        start: datetime | None = now - since
        source = f"--since {_span(since)} before the triage"
    elif isinstance(since, datetime):
        start, source = since, "--since"
    else:
        times = [t for f in problems for t in _evidence_times(f) if t <= now]
        start = min(times) if times else None
        source = "earliest timestamp in the findings' evidence" if times else ""

    strings = [clip(redact_text(s), ERROR_CHARS) for s in error_strings]
    for text in _error_strings(problems):
        if text not in strings:
            strings.append(text)

    affected = {n.instance_id for n in nodes}
    hardware = [
        HardwareDetail(
            instance_id=next((r for r in f.resources if r in affected), ""),
            line=clip_line(finding_line(f), 400),
            details=_hardware_details(f),
        )
        for f in report.findings
        if f.check in _GPU_CHECKS
        and f.status is not Status.INFO
        and (f.status in (Status.FAIL, Status.WARN) or affected & set(f.resources))
    ]
    all_xids = sorted({*xids, *_xid_numbers(problems)})
    lines = [
        clip_line(finding_line(f), 400)
        for f in problems
        if f.priority in (Priority.P0, Priority.P1)
    ]
    cluster = report.cluster
    return TicketFacts(
        cluster_name=cluster.name,
        cluster_arn=cluster.arn,
        cluster_id=cluster.id,
        region=cluster.region,
        orchestrator=cluster.orchestrator,
        recorded=report.recorded,
        focus_node=report.node,
        nodes=nodes,
        instance_groups=groups,
        window_start=start,
        window_end=now,
        window_source=source,
        error_strings=strings[:MAX_ERROR_STRINGS],
        xids=all_xids,
        hardware=hardware[:MAX_LINES],
        triage_lines=lines[:MAX_LINES],
    )


def _groups_of(finding: Finding) -> list[str]:
    evidence = finding.evidence
    found = [evidence.get("group"), evidence.get("instance_group")]
    groups = evidence.get("groups")
    if isinstance(groups, list):
        found.extend(groups)
    return [g for g in found if isinstance(g, str)]


def _span(delta: timedelta) -> str:
    seconds = int(delta.total_seconds())
    for unit, size in (("w", 604_800), ("d", 86_400), ("h", 3_600), ("m", 60)):
        if seconds % size == 0:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"
