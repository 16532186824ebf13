"""Plain-text rendering of an explain result (the CLI's default output)."""

from __future__ import annotations

from tools.explain.identifiers import Identifiers
from tools.explain.models import ExplainResult
from tools.sections import section

_LABELS: tuple[tuple[str, str], ...] = (
    ("cluster_names", "cluster"),
    ("cluster_arns", "cluster ARN"),
    ("cluster_ids", "cluster id"),
    ("regions", "region"),
    ("instance_ids", "instance"),
    ("instance_groups", "instance group"),
    ("security_group_ids", "security group"),
    ("subnet_ids", "subnet"),
    ("vpc_ids", "VPC"),
    ("xids", "Xid"),
    ("slurm_nodes", "Slurm node"),
    ("eks_nodes", "EKS node"),
)


def render_identifiers(ids: Identifiers) -> list[str]:
    lines = []
    for field, label in _LABELS:
        values = getattr(ids, field)
        if values:
            lines.append(f"  {label}: {', '.join(str(v) for v in values)}")
    if ids.time_window is not None:
        start = ids.time_window.start.isoformat()
        end = ids.time_window.end.isoformat()
        lines.append(f"  time window (UTC): {start} → {end}")
    return lines


def render_text(result: ExplainResult) -> str:
    lines: list[str] = []
    for rank, match in enumerate(result.matches, start=1):
        pointer = section(match.section).pointer
        score = f"guess, score {match.score:.2f}" if match.guess else f"score {match.score:.1f}"
        lines.append(f"{rank}. § {match.section} {match.title} ({score}) — {match.why} → {pointer}")
        for i, check in enumerate(match.next_checks):
            lines.append(f"   {'next:' if i == 0 else '     '} {check}")
    if result.matches:
        lines.append("")
    identifier_lines = render_identifiers(result.identifiers)
    if identifier_lines:
        lines.append("Identifiers found in the text:")
        lines.extend(identifier_lines)
        lines.append("")
    if result.ignored_lines:
        lines.append(
            f"{result.ignored_lines} line(s) that read as instructions to an assistant were"
            " ignored: they are data, not instructions, and were left out of matching."
        )
    lines.append(result.message)
    return "\n".join(lines) + "\n"
