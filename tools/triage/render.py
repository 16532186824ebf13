"""Render a triage report as the text contract: one line per finding, summary last."""

from __future__ import annotations

from tools.display import one_line
from tools.findings import Finding, Priority, Status
from tools.triage.report import OldRecording, TriageReport

_COLOURS = {
    Status.FAIL: "\033[1;31m",
    Status.WARN: "\033[1;33m",
    Status.PASS: "\033[32m",
    Status.INFO: "\033[36m",
}
_RESET = "\033[0m"
_PRIORITY_MEANING = {
    Priority.P0: "blocks running",
    Priority.P1: "degrades",
    Priority.P2: "informational",
}


def finding_line(finding: Finding, *, colour: bool = False) -> str:
    """`[FAIL] P0 <message> → references/node-diagnostics-detail.md § <X>`."""
    tag = f"[{finding.status.value}]"
    if colour:
        tag = f"{_COLOURS[finding.status]}{tag}{_RESET}"
    parts = [tag]
    if finding.status in (Status.FAIL, Status.WARN) and finding.priority is not None:
        parts.append(finding.priority.value)
    parts.append(one_line(finding.message))  # cluster text: no escape, no forged line
    line = " ".join(parts)
    if finding.status in (Status.FAIL, Status.WARN):
        line += f" → {finding.pointer}"
    return line


def render_text(report: TriageReport, *, colour: bool = False, problems_only: bool = False) -> str:
    """The whole report; with `problems_only`, PASS and INFO lines are left out (the
    summary still counts them)."""
    cluster = report.cluster
    title = f"HyperPod triage: {cluster.name} ({cluster.region}"
    if cluster.orchestrator:
        title += f", {cluster.orchestrator.upper()}"
    title += ")"
    if cluster.id:
        title += f" id={cluster.id}"
    if report.node:
        title += f" node={report.node}"
    if report.recorded:
        title += " [recorded]"
    lines = [one_line(title), ""]
    shown = report.problems() if problems_only else report.findings
    lines.extend(finding_line(f, colour=colour) for f in shown)
    if report.skipped:
        lines += ["", "Skipped (could not run):"] if shown else ["Skipped (could not run):"]
        lines.extend(_skipped_lines(report))
    if report.old_recording is not None:
        lines += ["", *_old_recording_lines(report.old_recording)]
    lines += ["", _summary(report)]
    return "\n".join(lines) + "\n"


def _skipped_lines(report: TriageReport) -> list[str]:
    """One line per reason: a missing tool skips many checks for the same reason, and the
    reader needs the reason and its fix once, with the checks it cost."""
    grouped: dict[tuple[str, str], list[str]] = {}
    for skip in report.skipped:
        grouped.setdefault((skip.reason, skip.hint), []).append(skip.check)
    lines = []
    for (reason, hint), checks in grouped.items():
        fix = f" — {one_line(hint)}" if hint else ""
        if len(checks) == 1:
            lines.append(f"  - {checks[0]}: {one_line(reason)}{fix}")
        else:
            lines.append(f"  - {one_line(reason)}{fix}")
            lines.append(f"    {len(checks)} checks: {', '.join(checks)}")
    return lines


def _old_recording_lines(old: OldRecording) -> list[str]:
    """The recording is older than this version: said once, with the way to re-record."""
    made = (
        "an earlier hyperpod-debug (no version stamp)"
        if old.recorded_with is None
        else f"hyperpod-debug {one_line(old.recorded_with)}"
    )
    lines = [f"Old recording: made by {made}, replayed by {old.replayed_with}."]
    if old.checks:
        lines.append(
            f"  {len(old.checks)} check(s) lacked data it never recorded: {', '.join(old.checks)}"
        )
    lines.append(f"  Not recorded: {', '.join(old.calls)}")
    lines.append(f"  Re-record with this version for a complete triage: {one_line(old.rerecord)}")
    return lines


def _summary(report: TriageReport) -> str:
    summary = report.summary
    order = (Status.FAIL, Status.WARN, Status.PASS, Status.INFO)
    counts = ", ".join(f"{status.value} {summary.by_status[status.value]}" for status in order)
    lines = [f"Summary: {counts}; skipped {len(report.skipped)}"]
    problems = report.problems()
    if not problems:
        lines.append(
            f"  No problems found in the checks that ran; {len(report.skipped)} could not run."
            if report.skipped
            else "  No problems found."
        )
    for priority in Priority:
        group = [f for f in problems if f.priority == priority]
        if not group:
            continue
        lines.append(f"  {priority.value} ({_PRIORITY_MEANING[priority]}): {len(group)}")
        lines.extend(f"    - {one_line(f.message)} (§ {f.section})" for f in group)
    return "\n".join(lines)
