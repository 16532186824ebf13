"""The conversation loop: the seed's workflow on the Messages API, with safety in code.

One user turn: the message is noted (language, ids, error strings), sent with the system
prompt and the tool definitions; tool calls are run through the tool layer and their
results returned as delimited tool output, until the model answers in text or the round
limit is reached. Every piece of model text passes the safety gate before the user sees it:
a state-changing command that is not already a structured suggestion becomes one. After a
proposal the model may not call more tools in that turn (tool_choice none): it answers and
the turn ends, waiting for the user. A proposal is a `suggest_command` call or a
state-changing command the gate found in the model's text; the calls of the same response
after it, other than further proposals, are answered "not run" instead of being run.

When the user reports the change applied (`/done`, or plain words such as "done" while
suggestions are pending), code re-runs triage and the answer opens with what cleared, what
is new and what remains, before the model's reading of it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, cast

from agent.activity import (
    ModelCallEnded,
    ModelCallStarted,
    ProgressEvent,
    ProgressSink,
    TextShown,
    ToolEnded,
    ToolStarted,
)
from agent.providers.base import (
    ModelRequest,
    ModelResponse,
    Provider,
    ProviderError,
    TextCallback,
    Usage,
)
from agent.providers.blocks import content_blocks, is_tool_result
from agent.safety.model import Suggestion
from agent.state import ConversationState
from agent.toolset import ToolResult, Toolset
from agent.toolset.results import Comparison, line
from agent.transcript import code_span_safe, display_safe
from agent.turn import (
    ToolCallRecord,
    TurnResult,
    cited_sections,
    may_report_done,
    reports_done,
    tool_output,
)
from prompts import render
from tools.findings import Finding

if TYPE_CHECKING:
    from anthropic.types import (
        MessageParam,
        TextBlockParam,
        ToolChoiceParam,
        ToolParam,
        ToolResultBlockParam,
        ToolUseBlockParam,
    )

DEFAULT_MAX_TOKENS = 8_192
DEFAULT_TOOL_ROUNDS = 12
# Old tool results are trimmed once the conversation passes this many characters (~150k
# tokens at 4 characters a token), well inside a 200k-token window with the answer's room.
DEFAULT_CONTEXT_CHARS = 600_000
TRIMMED = "[trimmed to keep the conversation within the context window: call the tool again]"
Emit = Callable[[str], None]
_SUGGEST = "suggest_command"
# What a tool call made after a proposal gets instead of its result.
_NOT_RUN_AFTER_PROPOSAL = (
    "not run: a change was proposed in this response. End the turn: answer the user and "
    "wait for them to apply it or decline."
)
EventSink = Callable[[dict[str, Any]], None]


@dataclass(frozen=True, slots=True)
class AgentSettings:
    """How a conversation runs: the answer's token budget, the tool rounds per turn, the
    context size past which old tool results are trimmed, whether text streams, and the
    date the prompt gives as today (None: the real date)."""

    max_tokens: int = DEFAULT_MAX_TOKENS
    max_tool_rounds: int = DEFAULT_TOOL_ROUNDS
    context_chars: int = DEFAULT_CONTEXT_CHARS
    stream: bool = True
    today: str | None = None


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
        self._prompt_cache: dict[str, str] = {}

    def restore(self, messages: list[MessageParam], usage: Usage) -> None:
        """Continue a saved conversation (`chat --resume`): its messages, already checked to
        form a valid request (agent.chat.resume), and its token counts so far."""
        self.messages = messages
        self.usage = usage

    # -- prompt and tools ---------------------------------------------------------------------

    def system_prompt(self) -> str:
        session = self.toolset.session
        target = session.target
        context = {
            "cluster": self.state.cluster or (target.cluster if target else None),
            "region": self.state.region or (target.region if target else None),
            "orchestrator": self.state.orchestrator,
            "node": target.node if target else None,
            "recorded": session.recorded,
            "today": self.today,
            "language": self.state.language,
        }
        key = repr(sorted(context.items()))
        if key not in self._prompt_cache:
            self._prompt_cache[key] = render("system.jinja2", **context)
        return self._prompt_cache[key]

    def tools(self) -> list[ToolParam]:
        # The toolset's definitions are the Messages API's tool shape (ToolSpec.schema:
        # name, description, input_schema); it types them as plain dicts.
        schemas = cast("list[ToolParam]", self.toolset.schemas())
        # Prompt caching: the tools and the system prompt are the stable prefix.
        schemas[-1] = {**schemas[-1], "cache_control": {"type": "ephemeral"}}
        return schemas

    def _request(self, tool_choice: ToolChoiceParam | None) -> ModelRequest:
        self._trim_context()
        return ModelRequest(
            model=self.provider.model,
            system=[
                {
                    "type": "text",
                    "text": self.system_prompt(),
                    "cache_control": {"type": "ephemeral"},
                }
            ],
            tools=self.tools(),
            # A copy: the request is what was sent, whatever the turn appends afterwards.
            messages=list(self.messages),
            max_tokens=self.max_tokens,
            tool_choice=tool_choice,
        )

    def _trim_context(self) -> None:
        """Replace the oldest tool results by a note until the conversation fits; the last
        two messages (the round in progress) are never trimmed."""
        size = sum(len(str(m.get("content"))) for m in self.messages)
        for message in self.messages[:-2]:
            if size <= self.context_chars:
                return
            if message["role"] != "user":
                continue
            for block in content_blocks(message):
                if is_tool_result(block) and block.get("content") != TRIMMED:
                    size -= len(str(block.get("content"))) - len(TRIMMED)
                    block["content"] = TRIMMED

    # -- turns --------------------------------------------------------------------------------

    def ask(self, text: str, emit: Emit | None = None) -> TurnResult:
        """One user message and everything the agent does with it."""
        if self.state.pending and reports_done(text):
            return self.done(text, emit)
        self.state.note_user_text(text)
        return self._turn([{"type": "text", "text": text}], text, emit)

    def maybe_done(self, text: str) -> bool:
        """Whether to ask the user "Re-triage now?" before sending the message: a change is
        pending and the message may mean it was made, but `ask` would not re-triage on it."""
        return bool(self.state.pending) and may_report_done(text)

    def done(self, text: str = "", emit: Emit | None = None) -> TurnResult:
        """The user applied the pending changes: triage again, show the comparison, then let
        the model read it. A re-triage that cannot run (no cluster, credentials, access)
        answers with the reason and keeps the suggestions pending."""
        self.state.note_user_text(text)
        before = len(self.state.triages)
        position = self.toolset.session.position
        newer = self.toolset.session.refresh()
        try:
            triaged = self.toolset.call("triage", {"instance_id": self.state.focus_node})
        except KeyboardInterrupt:
            self._undo_retriage(position, before)
            raise
        if triaged.is_error:
            return self._retriage_failed(triaged, emit)
        # What /done changes in the workflow state, restored if its answer does not come
        # (Ctrl-C, a provider error): the turn is rolled back, so the model never saw the
        # re-triage, and the change must still wait for the user's next /done.
        kept = (
            list(self.state.pending),
            list(self.state.applied),
            set(self.state.rebooted),
            self.state.retriages,
        )
        applied = self.state.mark_applied()
        self.state.retriages += 1
        count = len(self.state.triages)
        first = before == 0
        comparison = self.toolset.compare_latest() if not first else Comparison([], [], [])
        header = render(
            "comparison.jinja2",
            comparison=comparison,
            lines=lambda finding: code_span_safe(line(finding)),
            language=self.state.language,
            recording_note=self._recording_note(newer, first=first),
            first=first,
            problems=len(self.state.triages[-1].problems()),
        ).strip()
        header = display_safe(header)
        if emit is not None:
            emit(header)
        self._event(
            {
                "type": "retriage",
                "applied": [s.command for s in applied],
                # Which evidence each approved suggestion rested on (issue 25).
                "approved": [
                    s.model_dump(
                        mode="json", include={"command", "kind", "evidence", "preconditions"}
                    )
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
            result = self._turn(content, said, emit)
        except (ProviderError, KeyboardInterrupt):
            state = self.state
            state.pending, state.applied, state.rebooted, state.retriages = kept
            self._undo_retriage(position, before)
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

    def _undo_retriage(self, position: int, before: int) -> None:
        """A /done whose answer did not come is undone whole: its triage report is dropped
        (the next /done compares with the triage before it, as the model never saw this
        one) and a replay goes back to the recording it was on, so the next /done moves on
        to the same newer recording rather than skipping one."""
        if self.toolset.session.recorded:
            self.toolset.session.seek(position)
        else:
            self.toolset.session.reload()
        del self.state.triages[before:]
        del self.state.triage_times[before:]

    def _retriage_failed(self, triaged: ToolResult, emit: Emit | None) -> TurnResult:
        reason = str(triaged.payload.get("error", "triage failed"))
        # The person's wording: the payload's "next" is addressed to the model.
        said = triaged.failure.user_text() if triaged.failure else reason
        words = {
            "en": "The re-triage could not run",
            "zh": "无法重新诊断",
        }[self.state.language]
        answer = display_safe(f"{words}: {said}")
        if emit is not None:
            emit(answer)
        self._event({"type": "retriage", "error": reason})
        return TurnResult(answer=answer, awaiting_approval=bool(self.state.pending))

    def _recording_note(self, newer: bool, *, first: bool) -> str:
        session = self.toolset.session
        if not session.recorded:
            return ""
        zh = self.state.language == "zh"
        if newer:
            position, total = session.position + 1, len(session.recordings)
            return f"记录 {position}/{total}" if zh else f"recording {position} of {total}"
        if first:
            return ""
        if zh:
            return "再次回放同一份集群记录：没有更新的记录，无法显示修复效果"
        return "the recorded cluster replayed again: no newer recording, so a fix cannot show"

    def _turn(self, content: list[TextBlockParam], said: str, emit: Emit | None) -> TurnResult:
        mark = len(self.messages)
        self.messages.append({"role": "user", "content": content})
        self._event({"type": "user", "text": said})
        self.state.turn_suggestions = []
        result = TurnResult(answer="")
        segments: list[str] = []

        def show(segment: str) -> None:
            segment = display_safe(segment)
            self._progress(TextShown())
            segments.append(segment)
            if emit is not None:
                emit(segment)

        pending = list(self.state.pending)
        try:
            text_suggestions = self._rounds(result, show)
        except ProviderError:
            self._roll_back(mark, pending)
            raise
        except KeyboardInterrupt:
            # Ctrl-C during a model call or a tool call: the turn is cancelled whole. Left
            # in place, a tool call without its result would make every later request a 400.
            self._roll_back(mark, pending)
            self._event({"type": "interrupted", "text": said})
            raise
        return self._finish(result, segments, text_suggestions, emit)

    def _roll_back(self, mark: int, pending: list[Suggestion]) -> None:
        """The conversation as it was before the turn: its messages (so the next request
        is valid) and its pending suggestions (one the user never saw cannot wait for them).
        Triage reports made meanwhile stay: they are evidence of the cluster, not of the
        turn."""
        del self.messages[mark:]
        self.state.pending = pending
        self.state.turn_suggestions = []

    def _rounds(self, result: TurnResult, show: Emit) -> list[Suggestion]:
        """Model calls and tool rounds until the model answers in text; returns the
        suggestions the safety gate made from the model's text."""
        from agent.safety.gate import StreamGate

        text_suggestions: list[Suggestion] = []
        tool_choice: ToolChoiceParam | None = None
        rounds = 0
        while True:
            gate = StreamGate(
                self.suggestion_context(),
                # Only this turn's tool suggestions are shown below the answer; a command
                # pending from an earlier turn and repeated now is shown as a block again.
                already_suggested=[s.command for s in self.state.turn_suggestions],
            )
            on_text = None
            if self.stream:

                def on_text(delta: str, gate: StreamGate = gate) -> None:
                    for segment in gate.feed(delta):
                        show(segment)

            response = self._complete(self._request(tool_choice), on_text)
            result.model_calls += 1
            if not self.stream:
                for segment in gate.feed(response.text):
                    show(segment)
            for segment in gate.flush():
                show(segment)
            text_suggestions.extend(gate.suggestions)
            result.usage = result.usage + response.usage
            self.messages.append({"role": "assistant", "content": response.content})
            self._event({"type": "assistant", "text": response.text})
            if not response.tool_uses:
                return text_suggestions
            rounds += 1
            result.tool_rounds = rounds
            results_content: list[ToolResultBlockParam | TextBlockParam] = []
            results_content += self._run_tools(response.tool_uses, result, text_suggestions)
            if self._proposed(text_suggestions):
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

    def _finish(
        self,
        result: TurnResult,
        segments: list[str],
        text_suggestions: list[Suggestion],
        emit: Emit | None,
    ) -> TurnResult:
        from agent.safety.evidence import pin

        # Pinned to the findings they rest on, as the tool's suggestions are.
        text_suggestions = [pin(s, self.state) for s in text_suggestions]
        for suggestion in text_suggestions:
            self.state.propose(suggestion)
        tool_made = [s for s in self.state.turn_suggestions if s.mutating]
        blocks = display_safe(self._tool_blocks())
        if blocks and emit is not None:
            emit(blocks)
        # The IaC question, once for the turn, after every block (not under each one).
        note = display_safe(self._iac_note([*self.state.turn_suggestions, *text_suggestions]))
        if note and emit is not None:
            emit(note)
        answer = "\n\n".join(s.strip("\n") for s in segments if s.strip())
        result.model_text = answer
        for tail in (blocks, note):
            if tail:
                answer = (answer + "\n\n" + tail) if answer else tail
        result.answer = answer
        result.suggested_commands = list(self.state.turn_suggestions) + text_suggestions
        sections = cited_sections(answer) + [
            s.section for s in result.suggested_commands if s.section
        ]
        result.cited_sections = list(dict.fromkeys(sections))
        result.awaiting_approval = bool(tool_made or any(s.mutating for s in text_suggestions))
        self.usage = self.usage + result.usage
        self._event(
            {
                "type": "answer",
                "text": answer,
                "awaiting_approval": result.awaiting_approval,
                "cited_sections": result.cited_sections,
                "suggested_commands": result.to_json()["suggested_commands"],
            }
        )
        return result

    def _tool_blocks(self) -> str:
        """The suggestions made through suggest_command this turn, rendered by code so the
        user always sees them in full, whatever the model wrote around them."""
        from agent.safety.suggest import render_suggestion
        from agent.verify import age_note

        now, language = datetime.now(UTC), self.state.language
        return "\n\n".join(
            render_suggestion(s, language, evidence_age=age_note(s, now, language)).strip()
            for s in self.state.turn_suggestions
        )

    def _iac_note(self, suggestions: list[Suggestion]) -> str:
        from agent.safety.suggest import render_iac_note

        return render_iac_note(suggestions, self.state.language)

    def _proposed(self, text_suggestions: list[Suggestion]) -> bool:
        """Whether a proposal stands in this turn: a suggest_command call, or a
        state-changing command in the model's text, which the gate turned into a block the
        user sees just the same."""
        return bool(self.state.turn_suggestions) or any(s.mutating for s in text_suggestions)

    def _run_tools(
        self,
        uses: list[ToolUseBlockParam],
        result: TurnResult,
        text_suggestions: list[Suggestion],
    ) -> list[ToolResultBlockParam]:
        """Run the tool calls of one response, in order. Once a proposal stands, the calls
        after it are not run (other proposals are: they only add blocks): the user has a
        change to consider, and the turn ends with the answer. Each call still gets its
        result, as the Messages API wants one per tool use."""
        blocks: list[ToolResultBlockParam] = []
        for use in uses:
            name, arguments = use["name"], use["input"]
            recorded_input = arguments if isinstance(arguments, dict) else {}
            if name != _SUGGEST and self._proposed(text_suggestions):
                outcome = ToolResult(name, {"error": _NOT_RUN_AFTER_PROPOSAL}, is_error=True)
                self._progress(ToolEnded(name, recorded_input, 0.0, ran=False))
            else:
                outcome = self._call_tool(name, recorded_input, arguments)
            result.tool_calls.append(
                ToolCallRecord(name=name, input=recorded_input, is_error=outcome.is_error)
            )
            self._event(
                {
                    "type": "tool_call",
                    "name": name,
                    "input": recorded_input,
                    "is_error": outcome.is_error,
                    "result": outcome.payload,
                }
            )
            blocks.append(
                {
                    "type": "tool_result",
                    "tool_use_id": use["id"],
                    "content": tool_output(name, outcome.text),
                    "is_error": outcome.is_error,
                }
            )
        return blocks

    def suggestion_context(self) -> Any:
        from agent.safety.suggest import SuggestionContext

        return SuggestionContext(
            triage_done=self.state.triage_done,
            rebooted=frozenset(self.state.rebooted),
            slurm_controllers=frozenset(self.state.slurm_controllers),
            replace_first=dict(self.state.replace_first),
            known_ids=frozenset(self.state.instance_ids),
            language=self.state.language,
            owner_of=self.toolset.session.owner_of,
        )

    def _complete(self, request: ModelRequest, on_text: TextCallback | None) -> ModelResponse:
        """One model call, its start and end reported to the live display (the end also
        when it raises, so a spinner never outlives the call)."""
        self._progress(ModelCallStarted())
        started, completed = time.monotonic(), False
        try:
            response = self.provider.complete(request, on_text)
            completed = True
            return response
        finally:
            self._progress(ModelCallEnded(time.monotonic() - started, completed))

    def _call_tool(self, name: str, shown_input: dict[str, Any], arguments: Any) -> ToolResult:
        """One tool call, reported to the live display like a model call."""
        self._progress(ToolStarted(name, shown_input))
        started = time.monotonic()
        outcome: ToolResult | None = None
        try:
            outcome = self.toolset.call(name, arguments)
            return outcome
        finally:
            error = _shown_error(outcome) if outcome is not None and outcome.is_error else None
            seconds = time.monotonic() - started
            self._progress(
                ToolEnded(name, shown_input, seconds, error, completed=outcome is not None)
            )

    def _progress(self, event: ProgressEvent) -> None:
        if self.on_progress is not None:
            self.on_progress(event)

    def _event(self, event: dict[str, Any]) -> None:
        if self.on_event is not None:
            self.on_event(event)


def _shown_error(outcome: ToolResult) -> str:
    """A failed tool call as the person watching is told it: the problem in their words.
    A call the tool refused (bad input, the wrong moment) is the model's to fix, and its
    message is an instruction to the model, so the person only learns that it was refused."""
    from agent.toolset.failures import FailureKind

    failure = outcome.failure
    if failure is None or failure.kind is FailureKind.TOOL:
        return "refused; the agent was told why"
    return failure.problem or failure.error


def _sections(findings: list[Finding]) -> list[str]:
    return list(dict.fromkeys(f.section for f in findings))


def _json(payload: dict[str, Any]) -> str:
    from agent.toolset.budget import dumps

    return dumps(payload)
