"""/done: the user applied the pending changes. Code re-runs triage, the answer opens with
what cleared, what is new and what remains, and the model reads the comparison. A /done
whose answer does not come (Ctrl-C, a provider error) is undone whole, as if never sent."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent.providers.base import ProviderError
from agent.toolset.results import Comparison, line
from agent.transcript import code_span_safe, display_safe
from agent.turn import TurnResult, tool_output
from prompts import render

if TYPE_CHECKING:
    from anthropic.types import TextBlockParam

    from agent.loop.conversation import Agent, Emit
    from agent.toolset import ToolResult
    from tools.findings import Finding


def retriage(agent: Agent, text: str, emit: Emit | None) -> TurnResult:
    """Triage again, show the comparison, then let the model read it. A re-triage that
    cannot run (no cluster, credentials, access) answers with the reason and keeps the
    suggestions pending."""
    state, session = agent.state, agent.toolset.session
    state.note_user_text(text)
    before = len(state.triages)
    position = session.position
    newer = session.refresh()
    try:
        triaged = agent.toolset.call("triage", {"instance_id": state.focus_node})
    except KeyboardInterrupt:
        _undo(agent, position, before)
        raise
    if triaged.is_error:
        return _failed(agent, triaged, emit)
    # What /done changes in the workflow state, restored if its answer does not come
    # (Ctrl-C, a provider error): the turn is rolled back, so the model never saw the
    # re-triage, and the change must still wait for the user's next /done.
    kept = (list(state.pending), list(state.applied), set(state.rebooted), state.retriages)
    applied = state.mark_applied()
    state.retriages += 1
    count = len(state.triages)
    first = before == 0
    comparison = agent.toolset.compare_latest() if not first else Comparison([], [], [])
    header = render(
        "comparison.jinja2",
        comparison=comparison,
        lines=lambda finding: code_span_safe(line(finding)),
        language=state.language,
        recording_note=_recording_note(agent, newer, first=first),
        first=first,
        problems=len(state.triages[-1].problems()),
    ).strip()
    header = display_safe(header)
    if emit is not None:
        emit(header)
    agent.log_event(
        {
            "type": "retriage",
            "applied": [s.command for s in applied],
            # Which evidence each approved suggestion rested on (issue 25).
            "approved": [
                s.model_dump(mode="json", include={"command", "kind", "evidence", "preconditions"})
                for s in applied
            ],
            "first": first,
            "cleared": [line(f) for f in comparison.cleared],
            "new": [line(f) for f in comparison.new],
            "remaining": [line(f) for f in comparison.remaining],
            # What the model is shown: a grader checks the answer against it.
            "triage": triaged.payload,
        }
    )
    said = text.strip() or "I applied the suggested change(s)."
    notice = (
        "The user reports the change(s) applied: "
        + ("; ".join(s.command for s in applied) or "(none pending)")
        + ". The software re-ran triage; its result "
        + (
            "follows (there was no earlier triage to compare with). "
            if first
            else "and the comparison follow. Open your answer from the comparison: what "
            "cleared, what is new, what remains."
        )
    )
    content: list[TextBlockParam] = [
        {"type": "text", "text": said},
        {"type": "text", "text": notice},
        {"type": "text", "text": tool_output("triage", _json(triaged.payload))},
    ]
    if not first:
        compared = comparison.payload(count - 1, count)
        content.append({"type": "text", "text": tool_output("compare_triage", _json(compared))})
    try:
        result = agent.turn(content, said, emit)
    except (ProviderError, KeyboardInterrupt):
        state.pending, state.applied, state.rebooted, state.retriages = kept
        _undo(agent, position, before)
        raise
    result.answer = header + ("\n\n" + result.answer if result.answer else "")
    result.retriage = {
        "first": first,
        "cleared": [line(f) for f in comparison.cleared],
        "new": [line(f) for f in comparison.new],
        "remaining": [line(f) for f in comparison.remaining],
        "cleared_sections": _sections(comparison.cleared),
        "new_sections": _sections(comparison.new),
        "remaining_sections": _sections(comparison.remaining),
        "resolved": (not first) and comparison.resolved,
    }
    return result


def _undo(agent: Agent, position: int, before: int) -> None:
    """A /done whose answer did not come is undone whole: its triage report is dropped
    (the next /done compares with the triage before it, as the model never saw this
    one) and a replay goes back to the recording it was on, so the next /done moves on
    to the same newer recording rather than skipping one."""
    session = agent.toolset.session
    if session.recorded:
        session.seek(position)
    else:
        session.reload()
    del agent.state.triages[before:]
    del agent.state.triage_times[before:]


def _failed(agent: Agent, triaged: ToolResult, emit: Emit | None) -> TurnResult:
    failure = triaged.failure
    reason = failure.error if failure else "triage failed"
    # The person's wording: the failure's "next" is addressed to the model.
    said = failure.user_text() if failure else reason
    words = {
        "en": "The re-triage could not run",
        "zh": "无法重新诊断",
    }[agent.state.language]
    answer = display_safe(f"{words}: {said}")
    if emit is not None:
        emit(answer)
    agent.log_event({"type": "retriage", "error": reason})
    return TurnResult(answer=answer, awaiting_approval=bool(agent.state.pending))


def _recording_note(agent: Agent, newer: bool, *, first: bool) -> str:
    session = agent.toolset.session
    if not session.recorded:
        return ""
    zh = agent.state.language == "zh"
    if newer:
        position, total = session.position + 1, len(session.recordings)
        return f"记录 {position}/{total}" if zh else f"recording {position} of {total}"
    if first:
        return ""
    if zh:
        return "再次回放同一份集群记录：没有更新的记录，无法显示修复效果"
    return "the recorded cluster replayed again: no newer recording, so a fix cannot show"


def _sections(findings: list[Finding]) -> list[str]:
    return list(dict.fromkeys(f.section for f in findings))


def _json(payload: dict[str, Any]) -> str:
    from agent.toolset.budget import dumps

    return dumps(payload)
