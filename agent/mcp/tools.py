"""The Toolset's tools as MCP tools, and their results as MCP tool results.

A tool keeps its name, description and input schema (the same `ToolSpec.schema()` the agent
sends to the model); the MCP listing adds a display title and the behaviour hints. A
result's structured content is the tool's own bounded payload; its text is a short summary,
except for errors, whose text says everything (some clients show only the text of an error
result).
"""

from __future__ import annotations

from typing import Any

from mcp import types

from agent.toolset import ToolResult, Toolset, ToolSpec
from agent.toolset.budget import clip_line, dumps
from agent.toolset.toolset import CHECK_PREFIX, check_tool_name
from tools.redaction import redact_output, redact_strings

# Titles a client shows in its tool list; the checks take theirs from the registry.
BUILTIN_TITLES: dict[str, str] = {
    "triage": "Triage the cluster (read-only)",
    "list_checks": "List the read-only checks",
    "list_findings": "Page through the latest triage's findings",
    "explain_signal": "Map error text to reference sections",
    "read_reference": "Read a reference section",
    "compare_triage": "Compare the two latest triages",
    "suggest_command": "Render a command for the user to run (never runs it)",
    "draft_support_ticket": "Draft the AWS Support ticket fields",
    "use_cluster": "Open the cluster to diagnose (read-only)",
    "verify_suggestion": "Check a pending suggestion against the cluster now (read-only)",
}
# Tools that read the cluster itself (AWS, Kubernetes, SSM probes); the others read only
# this server's own state, the bundled references or the text they are given.
CLUSTER_READERS = frozenset({"triage", "use_cluster", "verify_suggestion"})
SUMMARY_LINES = 8


def reads_cluster(name: str) -> bool:
    return name in CLUSTER_READERS or name.startswith(CHECK_PREFIX)


def _check_titles() -> dict[str, str]:
    from tools.registry import all_checks

    return {check_tool_name(check.id): check.title for check in all_checks()}


def tool_definitions(toolset: Toolset) -> list[types.Tool]:
    """Every tool of ``toolset``, annotated: all read-only, none destructive, all idempotent
    (a second call changes nothing outside; it reads again); open-world only where a live
    cluster is read (a replay reads a closed, recorded world)."""
    titles = {**_check_titles(), **BUILTIN_TITLES}
    live = not toolset.session.recorded
    return [_definition(spec, titles.get(spec.name), live=live) for spec in toolset.specs()]


def _definition(spec: ToolSpec, title: str | None, *, live: bool) -> types.Tool:
    schema = spec.schema()
    return types.Tool(
        name=spec.name,
        title=title,
        description=schema["description"],
        input_schema=schema["input_schema"],
        # The title is given once (Tool.title wins over annotations.title in clients).
        annotations=types.ToolAnnotations(
            read_only_hint=True,
            destructive_hint=False,
            idempotent_hint=True,
            open_world_hint=live and reads_cluster(spec.name),
        ),
    )


def call_result(result: ToolResult, *, full_text: bool = False) -> types.CallToolResult:
    """``result`` as an MCP tool result. ``full_text`` puts the whole compact JSON in the text
    too, for clients that show a model only the text of a result."""
    text = summary(result)
    if full_text and not result.is_error:
        text = f"{text}\n\n{result.text}"
    # The output boundary to the client: the whole text and every string of the payload
    # redacted (the environment's credentials, every secret pattern), the shape kept.
    return types.CallToolResult(
        content=[types.TextContent(text=redact_output(text))],
        structured_content=redact_strings(result.payload),
        is_error=result.is_error,
    )


def summary(result: ToolResult) -> str:
    """A few lines saying what the result holds; the payload itself is the structured
    content."""
    payload = result.payload
    if result.is_error:
        hint = payload.get("next")
        return f"error: {payload.get('error')}" + (f"\nnext: {hint}" if hint else "")
    if result.name == "triage":
        return _triage_summary(payload)
    if result.name.startswith(CHECK_PREFIX):
        return _check_summary(payload)
    if result.name == "read_reference":
        return (
            f"§ {payload.get('section')} {payload.get('title')}: characters "
            f"{_chunk_range(payload)} of {payload.get('total_chars')} in `text`."
        )
    if result.name == "explain_signal":
        matches = payload.get("matches") or []
        ranked = ", ".join(f"§ {m.get('section')} {m.get('title')}" for m in matches[:5])
        return f"explain_signal: {ranked or 'no section matched'}. {payload.get('message', '')}"
    if result.name == "suggest_command":
        return str(payload.get("shown_to_user", "")).rstrip()
    if result.name == "verify_suggestion":
        return _verify_summary(payload)
    return f"{result.name}: {clip_line(dumps(payload), 300)}"


def _verify_summary(payload: dict[str, Any]) -> str:
    lines: list[str] = []
    for verdict in payload.get("verdicts") or []:
        lines.append(
            f"[{verdict.get('number')}] {verdict.get('verdict')}: "
            f"{clip_line(str(verdict.get('command')), 160)}"
        )
        lines += [
            f"  {r.get('outcome')}: {r.get('detail')}"
            for r in verdict.get("results") or []
            if r.get("outcome") != "holds"
        ]
    return "\n".join(lines) or "verify_suggestion: nothing verified"


def _chunk_range(payload: dict[str, Any]) -> str:
    text = payload.get("text")
    end = payload.get("next_offset") or payload.get("total_chars")
    start = (end or 0) - len(text) if isinstance(text, str) else 0
    return f"{start}-{end}"


def _triage_summary(payload: dict[str, Any]) -> str:
    cluster = payload.get("cluster") or {}
    counts = payload.get("counts") or {}
    where = f"{cluster.get('name')} ({cluster.get('region')}"
    where += f", {str(cluster.get('orchestrator') or '').upper() or 'orchestrator unknown'}"
    where += ", recorded)" if payload.get("recorded") else ")"
    head = (
        f"Triage {payload.get('triage_number')} of {where}: "
        + ", ".join(f"{k} {counts[k]}" for k in ("FAIL", "WARN", "PASS", "INFO") if k in counts)
        + f"; skipped {counts.get('skipped', 0)}."
    )
    lines = [line for group in payload.get("problem_groups") or [] for line in group["lines"]]
    shown = lines[:SUMMARY_LINES]
    more = len(lines) - len(shown)
    tail = [f"(+{more} more in the structured result)"] if more > 0 else []
    old = payload.get("old_recording")
    note = [str(old)] if old else []  # an old recording: which checks went without data
    return "\n".join([head, *note, *shown, *tail])


def _check_summary(payload: dict[str, Any]) -> str:
    problems = payload.get("problems") or []
    head = (
        f"{payload.get('check')}: {len(problems)} problem(s), "
        f"{len(payload.get('other_findings') or [])} other finding(s), "
        f"{len(payload.get('skipped') or [])} skipped."
    )
    return "\n".join([head, *(p["line"] for p in problems[:SUMMARY_LINES])])
