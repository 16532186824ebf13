"""A few lines saying what a tool's answer holds: the text an MCP client shows next to the
structured content (the answer itself). One function per output model, on its `ToolSpec`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agent.toolset.budget import clip_line, dumps
from agent.toolset.outputs import (
    CheckToolOutput,
    ExplainOutput,
    ReferenceOutput,
    SuggestionOutput,
    ToolOutput,
    TriageOutput,
    VerifyOutput,
)

SUMMARY_LINES = 8
BRIEF_CHARS = 300


def brief(name: str) -> Callable[[ToolOutput], str]:
    """The summary of a small answer: the tool's name and the start of its JSON."""

    def summary(output: ToolOutput) -> str:
        return brief_text(name, output.payload())

    return summary


def brief_text(name: str, payload: dict[str, Any]) -> str:
    return f"{name}: {clip_line(dumps(payload), BRIEF_CHARS)}"


def triage_summary(output: TriageOutput) -> str:
    cluster, counts = output.cluster, output.counts
    where = f"{cluster.name} ({cluster.region}"
    where += f", {cluster.orchestrator.upper() or 'orchestrator unknown'}"
    where += ", recorded)" if output.recorded else ")"
    head = (
        f"Triage {output.triage_number} of {where}: "
        + ", ".join(f"{k} {counts[k]}" for k in ("FAIL", "WARN", "PASS", "INFO") if k in counts)
        + f"; skipped {counts.get('skipped', 0)}."
    )
    lines = [line for group in output.problem_groups for line in group.lines]
    shown = lines[:SUMMARY_LINES]
    more = len(lines) - len(shown)
    tail = [f"(+{more} more in the structured result)"] if more > 0 else []
    # An old recording: which checks went without data.
    note = [output.old_recording] if output.old_recording else []
    return "\n".join([head, *note, *shown, *tail])


def check_summary(output: CheckToolOutput) -> str:
    head = (
        f"{output.check}: {len(output.problems)} problem(s), "
        f"{len(output.other_findings)} other finding(s), {len(output.skipped)} skipped."
    )
    return "\n".join([head, *(p.line for p in output.problems[:SUMMARY_LINES])])


def reference_summary(output: ReferenceOutput) -> str:
    end = output.next_offset or output.total_chars
    start = end - len(output.text)
    return (
        f"§ {output.section} {output.title}: characters {start}-{end} of "
        f"{output.total_chars} in `text`."
    )


def explain_summary(output: ExplainOutput) -> str:
    ranked = ", ".join(f"§ {m.section} {m.title}" for m in output.matches[:5])
    return f"explain_signal: {ranked or 'no section matched'}. {output.message}"


def suggestion_summary(output: SuggestionOutput) -> str:
    return output.shown_to_user.rstrip()


def verify_summary(output: VerifyOutput) -> str:
    lines: list[str] = []
    for verdict in output.verdicts:
        lines.append(f"[{verdict.number}] {verdict.verdict}: {clip_line(verdict.command, 160)}")
        lines += [f"  {r.outcome}: {r.detail}" for r in verdict.results if r.outcome != "holds"]
    return "\n".join(lines) or "verify_suggestion: nothing verified"
