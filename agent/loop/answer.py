"""The end of a turn: the answer as the user sees it (the model's guarded text, then the
suggestion blocks code renders, then the IaC question once), and what the turn leaves
waiting for the user."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

from agent.transcript import display_safe
from agent.turn import cited_sections

if TYPE_CHECKING:
    from agent.loop.conversation import Agent, Emit
    from agent.safety.model import Suggestion
    from agent.state import Language
    from agent.turn import TurnResult


def finish(
    agent: Agent,
    result: TurnResult,
    segments: list[str],
    text_suggestions: list[Suggestion],
    *,
    written: list[str],
    emit: Emit | None,
) -> TurnResult:
    """`segments`: the text shown this turn; `written`: those of them the model wrote (the
    rest is the loop's notice of an empty answer, agent.loop.empty)."""
    from agent.safety.evidence import pin

    state = agent.state
    # Pinned to the findings they rest on, as the tool's suggestions are.
    text_suggestions = [pin(s, state) for s in text_suggestions]
    for suggestion in text_suggestions:
        state.propose(suggestion)
    tool_made = [s for s in state.turn_suggestions if s.mutating]
    blocks = display_safe(_tool_blocks(agent))
    if blocks and emit is not None:
        emit(blocks)
    # The IaC question, once for the turn, after every block (not under each one).
    note = display_safe(_iac_note([*state.turn_suggestions, *text_suggestions], state.language))
    if note and emit is not None:
        emit(note)
    answer = _joined(segments)
    result.model_text = _joined(written)
    for tail in (blocks, note):
        if tail:
            answer = (answer + "\n\n" + tail) if answer else tail
    result.answer = answer
    result.suggested_commands = list(state.turn_suggestions) + text_suggestions
    sections = cited_sections(answer) + [s.section for s in result.suggested_commands if s.section]
    result.cited_sections = list(dict.fromkeys(sections))
    result.awaiting_approval = bool(tool_made or any(s.mutating for s in text_suggestions))
    agent.usage = agent.usage + result.usage
    agent.log_event(
        {
            "type": "answer",
            "text": answer,
            "awaiting_approval": result.awaiting_approval,
            "cited_sections": result.cited_sections,
            "suggested_commands": result.to_json()["suggested_commands"],
        }
    )
    return result


def _joined(segments: list[str]) -> str:
    return "\n\n".join(s.strip("\n") for s in segments if s.strip())


def _tool_blocks(agent: Agent) -> str:
    """The suggestions made through suggest_command this turn, rendered by code so the
    user always sees them in full, whatever the model wrote around them."""
    from agent.safety.suggest import render_suggestion
    from agent.verify import age_note

    now, language = datetime.now(UTC), agent.state.language
    return "\n\n".join(
        render_suggestion(s, language, evidence_age=age_note(s, now, language)).strip()
        for s in agent.state.turn_suggestions
    )


def _iac_note(suggestions: list[Suggestion], language: Language) -> str:
    from agent.safety.suggest import render_iac_note

    return render_iac_note(suggestions, language)
