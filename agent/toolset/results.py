"""Compact views of triage reports and check outputs for a model to read.

A 20,000-node cluster can produce thousands of findings; the model needs the counts, the
problems grouped by rule with a few example lines each, the skips grouped by reason, and a
way to page into the rest (`list_findings`). Finding lines are the exact text of the triage
report (`[FAIL] P0 ... → references/... § X`), so the model can quote them verbatim.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent.state import replace_first_nodes
from agent.toolset.budget import (
    CHECK_RESULT_CHARS,
    LINE_CHARS,
    TRIAGE_RESULT_CHARS,
    clip_line,
    dumps,
    fit_output,
)
from agent.toolset.outputs import (
    CheckProblem,
    CheckToolOutput,
    ComparisonCounts,
    ComparisonOutput,
    FindingLine,
    FindingsOutput,
    ProblemGroup,
    SkipGroup,
    TriageOutput,
)
from tools.findings import Finding, Skipped, Status
from tools.registry import CheckOutput
from tools.triage.render import finding_line
from tools.triage.report import TriageReport

EXAMPLES_PER_GROUP = 3
RESOURCES_SHOWN = 10
EVIDENCE_CHARS = 500
_PROBLEM = (Status.FAIL, Status.WARN)


def line(finding: Finding) -> str:
    """The report line, at most LINE_CHARS long: a long message is clipped in the middle of
    the line, never its "→ references/... § X" pointer, which says where to read."""
    full = finding_line(finding)
    if len(full) <= LINE_CHARS:
        return full
    pointer = f" → {finding.pointer}" if finding.status in _PROBLEM else ""
    head = full[: len(full) - len(pointer)] if pointer else full
    return clip_line(head, LINE_CHARS - len(pointer)) + pointer


def _evidence(finding: Finding) -> str:
    text = dumps(finding.evidence)
    return text if len(text) <= EVIDENCE_CHARS else text[: EVIDENCE_CHARS - 1] + "…"


@dataclass
class _Group:
    check: str
    status: str
    priority: str
    section: str
    lines: list[str] = field(default_factory=list)
    resources: dict[str, None] = field(default_factory=dict)
    count: int = 0
    replace_first: dict[str, str] = field(default_factory=dict)


def group_problems(findings: Iterable[Finding]) -> list[ProblemGroup]:
    """FAIL / WARN findings grouped by (check, status, priority, section), worst first.
    A group whose findings allow replacing a node before a reboot (remediation table)
    names those nodes and rows under `replace_first`."""
    groups: dict[tuple[str, str, str, str], _Group] = {}
    for finding in findings:
        if finding.status not in _PROBLEM:
            continue
        key = (finding.check, finding.status.value, finding.priority or "", finding.section)
        group = groups.setdefault(key, _Group(*key))
        group.count += 1
        if len(group.lines) < EXAMPLES_PER_GROUP:
            group.lines.append(line(finding))
        for resource in finding.resources:
            group.resources.setdefault(resource, None)
        for node, row in replace_first_nodes([finding]).items():
            group.replace_first.setdefault(node, row)
    ordered = sorted(
        groups.values(), key=lambda g: (g.status != Status.FAIL.value, g.priority, g.check)
    )
    return [
        ProblemGroup(
            check=g.check,
            status=g.status,
            priority=g.priority,
            section=g.section,
            count=g.count,
            lines=g.lines,
            resources=list(g.resources)[:RESOURCES_SHOWN],
            resources_total=len(g.resources),
            replace_first=_replace_first(g.replace_first),
        )
        for g in ordered
    ]


def _replace_first(nodes: dict[str, str]) -> dict[str, str] | None:
    """The `replace_first` entry of an output, None (absent) when empty (most answers)."""
    return dict(list(nodes.items())[:RESOURCES_SHOWN]) if nodes else None


def group_skips(skipped: Iterable[Skipped]) -> list[SkipGroup]:
    by_reason: dict[tuple[str, str], list[str]] = {}
    for skip in skipped:
        by_reason.setdefault((clip_line(skip.reason, 300), skip.hint), []).append(skip.check)
    return [
        SkipGroup(reason=reason, hint=hint, checks=checks)
        for (reason, hint), checks in by_reason.items()
    ]


def triage_output(report: TriageReport, *, number: int) -> TriageOutput:
    """The `triage` tool's answer: counts, grouped problems, grouped skips, what next."""
    summary = report.summary
    problems = group_problems(report.findings)
    passed = sum(1 for f in report.findings if f.status is Status.PASS)
    next_step = (
        "Read the reference section of every problem group (read_reference), P0 first. "
        f"{passed} PASS and the INFO findings are not shown: list_findings pages through "
        "all findings by status, section, check or instance."
    )
    if not problems:
        next_step = (
            "No FAIL or WARN finding: do not invent a problem. Say what was checked, what "
            "could not be checked (skipped) and ask for the exact error text if the user still "
            "sees one."
        )
    old_recording = None
    if report.old_recording is not None:
        # The recording is older than this version: the user must hear that some checks
        # had no data and how to re-record, not read their absence as health.
        old_recording = report.old_recording.message
        next_step += (
            " Tell the user the recording predates this version (old_recording): name the "
            "checks that lacked data and give the re-record command."
        )
    output = TriageOutput(
        triage_number=number,
        cluster=report.cluster,
        focus_node=report.node,
        recorded=report.recorded,
        counts={**summary.by_status, **summary.by_priority, "skipped": len(report.skipped)},
        problem_groups=problems,
        skipped=group_skips(report.skipped),
        next=next_step,
        old_recording=old_recording,
    )
    return fit_output(output, TRIAGE_RESULT_CHARS, ("skipped", "problem_groups"))


def triage_payload(report: TriageReport, *, number: int) -> dict[str, Any]:
    """`triage_output` as the JSON object the model reads."""
    return triage_output(report, number=number).payload()


def check_output(output: CheckOutput, *, node: str | None) -> CheckToolOutput:
    """One check's answer: every problem with its evidence, then the rest as lines."""
    problems = [
        CheckProblem(line=line(f), resources=f.resources[:RESOURCES_SHOWN], evidence=_evidence(f))
        for f in output.findings
        if f.status in _PROBLEM
    ]
    others = [line(f) for f in output.findings if f.status not in _PROBLEM]
    answer = CheckToolOutput(
        check=output.check,
        focus_node=node,
        problems=problems,
        other_findings=others,
        skipped=list(output.skipped),
        replace_first=_replace_first(replace_first_nodes(output.findings)),
    )
    return fit_output(answer, CHECK_RESULT_CHARS, ("other_findings", "problems"))


def findings_page(
    findings: Sequence[Finding], *, offset: int, limit: int, total: int
) -> FindingsOutput:
    shown = findings[offset : offset + limit]
    end = offset + len(shown)
    return FindingsOutput(
        total_matching=total,
        offset=offset,
        findings=[
            FindingLine(line=line(f), check=f.check, resources=f.resources[:RESOURCES_SHOWN])
            for f in shown
        ],
        next_offset=end if end < total else None,
    )


def problem_key(finding: Finding) -> tuple[str, str, tuple[str, ...]]:
    """What makes two problems 'the same' across triages: the rule, the section and the
    resources it names (the message may change as counts change)."""
    resources = tuple(sorted(finding.resources)) or (finding.message,)
    return (finding.check, finding.section, resources)


@dataclass(frozen=True)
class Comparison:
    cleared: list[Finding]
    new: list[Finding]
    remaining: list[Finding]

    @property
    def resolved(self) -> bool:
        return not self.new and not self.remaining

    def output(self, before: int, after: int) -> ComparisonOutput:
        """The `compare_triage` tool's answer: triage numbers `before` and `after`."""
        output = ComparisonOutput(
            before_triage=before,
            after_triage=after,
            counts=ComparisonCounts(
                cleared=len(self.cleared), new=len(self.new), remaining=len(self.remaining)
            ),
            cleared=[line(f) for f in self.cleared],
            new=[line(f) for f in self.new],
            remaining=[line(f) for f in self.remaining],
        )
        return fit_output(output, TRIAGE_RESULT_CHARS, ("cleared", "remaining", "new"))

    def payload(self, before: int, after: int) -> dict[str, Any]:
        """`output` as the JSON object the model reads (the loop's re-triage sends it)."""
        return self.output(before, after).payload()


def compare(before: TriageReport, after: TriageReport) -> Comparison:
    old = {problem_key(f): f for f in before.problems()}
    now = {problem_key(f): f for f in after.problems()}
    return Comparison(
        cleared=[f for k, f in old.items() if k not in now],
        new=[f for k, f in now.items() if k not in old],
        remaining=[f for k, f in now.items() if k in old],
    )
