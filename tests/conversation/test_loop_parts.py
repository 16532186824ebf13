"""The loop's parts on their own: trimming old tool results to fit the context window, and
a turn that does not finish leaving no trace."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from agent.loop import TRIMMED, Agent
from agent.loop.context import trim_tool_results
from agent.loop.rollback import turn_start, whole_or_not_at_all
from agent.providers.base import ProviderError
from agent.providers.scripted import ScriptedProvider
from agent.safety.suggest import SuggestionContext, build_suggestion

from ._support import toolset_for

if TYPE_CHECKING:
    from anthropic.types import MessageParam


def _round(call_id: str, output: str) -> list[MessageParam]:
    return [
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": call_id, "name": "triage", "input": {}}],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": call_id, "content": output}],
        },
    ]


def _results(messages: list[MessageParam]) -> list[Any]:
    found = []
    for message in messages:
        content = message["content"]
        if isinstance(content, list):
            found += [b["content"] for b in content if b["type"] == "tool_result"]
    return found


def test_the_oldest_tool_results_are_trimmed_until_the_conversation_fits() -> None:
    opening: MessageParam = {"role": "user", "content": [{"type": "text", "text": "hi"}]}
    messages = [opening, *_round("t1", "a" * 500), *_round("t2", "b" * 500)]
    messages += _round("t3", "c" * 500)

    size = sum(len(str(m["content"])) for m in messages)

    trim_tool_results(messages, limit=size - 100)  # one result trimmed is enough

    assert _results(messages) == [TRIMMED, "b" * 500, "c" * 500]


def test_the_round_in_progress_is_never_trimmed() -> None:
    opening: MessageParam = {"role": "user", "content": "hi"}
    messages = [opening, *_round("t1", "a" * 500)]

    trim_tool_results(messages, limit=10)

    assert _results(messages) == ["a" * 500]


def _agent() -> tuple[Agent, list[dict[str, Any]]]:
    events: list[dict[str, Any]] = []
    agent = Agent(
        ScriptedProvider.from_turns([]),
        toolset_for("sg-outbound-self-missing"),
        on_event=events.append,
    )
    agent.messages = [{"role": "user", "content": "before"}]
    cordon = build_suggestion(
        "kubectl cordon node-1", purpose="p", context=SuggestionContext(triage_done=True)
    )
    assert cordon.mutating
    agent.state.pending = [cordon]
    return agent, events


@pytest.mark.parametrize("error", [ProviderError("down"), KeyboardInterrupt()])
def test_a_turn_that_does_not_finish_is_cancelled_whole(error: BaseException) -> None:
    agent, events = _agent()
    before, pending = list(agent.messages), list(agent.state.pending)
    start = turn_start(agent)

    def half_a_turn() -> None:
        with whole_or_not_at_all(agent, start, "hello"):
            agent.messages.append({"role": "user", "content": "during"})
            agent.state.pending = []
            raise error

    with pytest.raises(type(error)):
        half_a_turn()

    assert agent.messages == before
    assert agent.state.pending == pending
    interrupted = [e for e in events if e["type"] == "interrupted"]
    assert interrupted == (
        [{"type": "interrupted", "text": "hello"}] if isinstance(error, KeyboardInterrupt) else []
    )


def test_a_turn_that_finishes_is_kept() -> None:
    agent, _ = _agent()
    start = turn_start(agent)

    with whole_or_not_at_all(agent, start, "hello"):
        agent.messages.append({"role": "assistant", "content": "ok"})

    assert len(agent.messages) == 2
