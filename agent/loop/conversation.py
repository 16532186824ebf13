"""The conversation and one user turn: the message sent with the system prompt and the
tool definitions, model calls and tool rounds until the model answers in text or the
round limit is reached, every piece of model text through the safety gate on its way to
the user. After a proposal the model may not call more tools in that turn (tool_choice
none): it answers and the turn ends, waiting for the user."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from agent.activity import ProgressEvent, ProgressSink, TextShown
from agent.loop import answer, empty, hooks, retriage, rollback
from agent.loop.context import SystemPrompt, system_blocks, tool_definitions, trim_tool_results
from agent.loop.hooks import EventSink
from agent.loop.settings import AgentSettings
from agent.loop.tool_calls import run_tool_calls
from agent.providers.base import ModelRequest, Provider, Usage
from agent.safety.model import Suggestion
from agent.state import ConversationState
from agent.toolset import Toolset
from agent.transcript import display_safe
from agent.turn import TurnResult, may_report_done, reports_done

if TYPE_CHECKING:
    from anthropic.types import (
        MessageParam,
        TextBlockParam,
        ToolChoiceParam,
        ToolParam,
        ToolResultBlockParam,
    )

    from agent.safety.suggest import SuggestionContext

Emit = Callable[[str], None]


class Agent:
    def __init__(
        self,
        provider: Provider,
        toolset: Toolset,
        *,
        settings: AgentSettings | None = None,
        on_event: EventSink | None = None,
        on_progress: ProgressSink | None = None,
    ) -> None:
        settings = settings or AgentSettings()
        self.provider = provider
        self.toolset = toolset
        self.state: ConversationState = toolset.state
        self.max_tokens = settings.max_tokens
        self.max_tool_rounds = settings.max_tool_rounds
        self.context_chars = settings.context_chars
        self.stream = settings.stream
        self.today = settings.today or datetime.now(UTC).date().isoformat()
        self.on_event = on_event
        # A live display (agent.chat.progress): model and tool calls as they start and end.
        self.on_progress = on_progress
        self.messages: list[MessageParam] = []
        self.usage = Usage()
        self._system_prompt = SystemPrompt()

    def restore(self, messages: list[MessageParam], usage: Usage) -> None:
        """Continue a saved conversation (`chat --resume`): its messages, already checked to
        form a valid request (agent.chat.resume), and its token counts so far."""
        self.messages = messages
        self.usage = usage

    # -- prompt and tools ---------------------------------------------------------------------

    def system_prompt(self) -> str:
        return self._system_prompt.text(self.toolset, self.today)

    def tools(self) -> list[ToolParam]:
        return tool_definitions(self.toolset)

    def _request(self, tool_choice: ToolChoiceParam | None) -> ModelRequest:
        trim_tool_results(self.messages, self.context_chars)
        return ModelRequest(
            model=self.provider.model,
            system=system_blocks(self.system_prompt()),
            tools=self.tools(),
            # A copy: the request is what was sent, whatever the turn appends afterwards.
            messages=list(self.messages),
            max_tokens=self.max_tokens,
            tool_choice=tool_choice,
        )

    # -- turns --------------------------------------------------------------------------------

    def ask(self, text: str, emit: Emit | None = None) -> TurnResult:
        """One user message and everything the agent does with it."""
        if self.state.pending and reports_done(text):
            return self.done(text, emit)
        self.state.note_user_text(text)
        return self.turn([{"type": "text", "text": text}], text, emit)

    def maybe_done(self, text: str) -> bool:
        """Whether to ask the user "Re-triage now?" before sending the message: a change is
        pending and the message may mean it was made, but `ask` would not re-triage on it."""
        return bool(self.state.pending) and may_report_done(text)

    def done(self, text: str = "", emit: Emit | None = None) -> TurnResult:
        """The user applied the pending changes (agent.loop.retriage)."""
        return retriage.retriage(self, text, emit)

    def turn(self, content: list[TextBlockParam], said: str, emit: Emit | None) -> TurnResult:
        """One user message (`content`, shown in the log as `said`) and the model's answer
        to it; cancelled whole if it does not finish (agent.loop.rollback)."""
        start = rollback.turn_start(self)
        self.messages.append({"role": "user", "content": content})
        self.log_event({"type": "user", "text": said})
        self.state.turn_suggestions = []
        result = TurnResult(answer="")
        segments: list[str] = []  # everything shown, in order
        written: list[str] = []  # of it, what the model wrote (not the loop's own notice)

        def show_notice(segment: str) -> None:
            segment = display_safe(segment)
            self.notify_progress(TextShown())
            segments.append(segment)
            if emit is not None:
                emit(segment)

        def show(segment: str) -> None:
            show_notice(segment)
            written.append(segments[-1])

        with rollback.whole_or_not_at_all(self, start, said):
            text_suggestions = self._rounds(result, show, show_notice)
        return answer.finish(self, result, segments, text_suggestions, written=written, emit=emit)

    def _rounds(self, result: TurnResult, show: Emit, show_notice: Emit) -> list[Suggestion]:
        """Model calls and tool rounds until the model answers in text; returns the
        suggestions the safety gate made from the model's text. `show` shows the model's
        guarded text, `show_notice` the loop's own words."""
        from agent.safety.evidence import pin
        from agent.safety.gate import Evidence, StreamGate
        from agent.verify import age_note

        language = self.state.language
        evidence = Evidence(
            pin=lambda suggestion: pin(suggestion, self.state),
            age=lambda suggestion: age_note(suggestion, datetime.now(UTC), language),
        )

        text_suggestions: list[Suggestion] = []
        tool_choice: ToolChoiceParam | None = None
        rounds = 0
        asked_again = False
        while True:
            gate = StreamGate(
                self.suggestion_context(),
                # Only this turn's tool suggestions are shown below the answer; a command
                # pending from an earlier turn and repeated now is shown as a block again.
                already_suggested=[s.command for s in self.state.turn_suggestions],
                evidence=evidence,
            )
            on_text = None
            if self.stream:

                def on_text(delta: str, gate: StreamGate = gate) -> None:
                    for segment in gate.feed(delta):
                        show(segment)

            request = self._request(tool_choice)
            response = hooks.model_call(self.provider, request, on_text, self.on_progress)
            result.model_calls += 1
            if not self.stream:
                for segment in gate.feed(response.text):
                    show(segment)
            for segment in gate.flush():
                show(segment)
            text_suggestions.extend(gate.suggestions)
            result.usage = result.usage + response.usage
            # What the model wrote, as it came: `eval new` scripts the model from these.
            self.log_event({"type": "assistant", "text": response.text})
            if empty.is_empty(response):
                # Never kept as it came (agent.loop.empty): asked once more, then a notice.
                if not asked_again:
                    asked_again = True
                    self.messages[-1] = empty.nudged(self.messages[-1])
                    self.log_event({"type": "empty_answer", "asked_again": True})
                    continue
                words = empty.notice(self.state.language)
                show_notice(words)
                self.log_event({"type": "empty_answer", "asked_again": False, "notice": words})
                response = replace(response, content=[{"type": "text", "text": words}])
            self.messages.append({"role": "assistant", "content": empty.kept(response)})
            if not response.tool_uses:
                return text_suggestions
            rounds += 1
            result.tool_rounds = rounds
            results_content: list[ToolResultBlockParam | TextBlockParam] = []
            results_content += run_tool_calls(self, response.tool_uses, result, text_suggestions)
            if self.proposed(text_suggestions):
                tool_choice = {"type": "none"}  # a proposal ends the turn: answer, then wait
            elif rounds >= self.max_tool_rounds:
                tool_choice = {"type": "none"}
                results_content.append(
                    {
                        "type": "text",
                        "text": f"Tool-round limit ({self.max_tool_rounds}) reached for this "
                        "turn: answer with what you have and say what is left to check.",
                    }
                )
            self.messages.append({"role": "user", "content": results_content})

    def proposed(self, text_suggestions: list[Suggestion]) -> bool:
        """Whether a proposal stands in this turn: a suggest_command call, or a
        state-changing command in the model's text, which the gate turned into a block the
        user sees just the same."""
        return bool(self.state.turn_suggestions) or any(s.mutating for s in text_suggestions)

    def suggestion_context(self) -> SuggestionContext:
        return self.toolset.suggestion_context()

    # -- reporting ----------------------------------------------------------------------------

    def notify_progress(self, event: ProgressEvent) -> None:
        hooks.report(self.on_progress, event)

    def log_event(self, event: dict[str, Any]) -> None:
        if self.on_event is not None:
            self.on_event(event)
