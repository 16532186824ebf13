"""A model answer with no content (agent/loop/empty.py): asked once more, then a notice; the
history never keeps an empty assistant message, which the Messages API refuses in every later
request. The scripted provider and the fake Messages API refuse such a history as the API
does, so each test below fails on a loop that keeps one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent.loop import Agent, AgentSettings
from agent.loop.empty import NUDGE, notice
from agent.providers.anthropic_api import AnthropicProvider
from agent.providers.base import ProviderError
from agent.providers.pairing import pairing_problem
from agent.providers.scripted import ScriptedProvider
from evals.agent_eval.case import SCRIPT_FILE

from ._support import recording_path, toolset_for
from .fake_messages_api import FakeMessagesAPI, message_reply, text, tool_use


def _agent(*turns: dict[str, Any]) -> tuple[Agent, ScriptedProvider, list[dict[str, Any]]]:
    provider = ScriptedProvider.from_turns(list(turns))
    events: list[dict[str, Any]] = []
    agent = Agent(provider, toolset_for("demo-eks"), on_event=events.append)
    return agent, provider, events


def _last_texts(message: Any) -> list[str]:
    return [b["text"] for b in message["content"] if b["type"] == "text"]


def test_an_empty_answer_after_tool_results_is_asked_for_again() -> None:
    agent, provider, events = _agent(
        {"tool_calls": [{"name": "triage"}]}, {"text": ""}, {"text": "Five problems (§ G)."}
    )
    shown: list[str] = []

    result = agent.ask("my job hangs", emit=shown.append)

    assert result.answer == "Five problems (§ G)."
    assert "".join(shown) == "Five problems (§ G)."
    assert result.model_calls == 3
    again: Any = provider.requests[2].messages[-1]
    # The tool results stay first; the request to answer comes after them.
    assert [b["type"] for b in again["content"]] == ["tool_result", "text"]
    assert _last_texts(again) == [NUDGE]
    assert [m["role"] for m in agent.messages] == ["user", "assistant", "user", "assistant"]
    assert all(m["content"] for m in agent.messages)
    assert pairing_problem(agent.messages) is None
    assert {"type": "empty_answer", "asked_again": True} in events


def test_two_empty_answers_end_the_turn_with_a_notice_and_the_next_turn_works() -> None:
    agent, provider, _ = _agent({"text": ""}, {"text": "   "}, {"text": "Here is the answer."})
    shown: list[str] = []

    first = agent.ask("hello", emit=shown.append)

    assert first.answer == notice("en")
    assert "".join(shown).strip() == notice("en")  # whitespace the gate streamed, then it
    assert _last_texts(agent.messages[-1]) == [notice("en")]
    # The user's own message is sent as it was typed, the request to answer after it.
    assert _last_texts(provider.requests[1].messages[-1]) == ["hello", NUDGE]
    second = agent.ask("go on")  # the scripted provider refuses a history the API refuses
    assert second.answer == "Here is the answer."
    assert pairing_problem(provider.requests[-1].messages) is None


def test_the_notice_is_in_the_language_the_user_writes() -> None:
    agent, _, _ = _agent({"text": ""}, {"text": ""})
    result = agent.ask("我的任务卡住了")
    assert result.answer == notice("zh")
    assert "再问一次" in result.answer


def test_a_turn_cancelled_after_the_request_to_answer_leaves_no_trace() -> None:
    agent, _, _ = _agent({"text": ""})  # the second call finds no scripted turn: an error
    with pytest.raises(ProviderError):
        agent.ask("hello")
    assert agent.messages == []


def test_the_content_a_caller_passed_is_not_changed() -> None:
    agent, _, _ = _agent({"text": ""}, {"text": "ok"})
    content: list[Any] = [{"type": "text", "text": "hello"}]
    agent.turn(content, "hello", None)
    assert content == [{"type": "text", "text": "hello"}]


def test_an_empty_answer_over_the_wire(api: FakeMessagesAPI) -> None:
    """The real anthropic client against the fake API, which refuses an empty assistant
    message in the history with the API's own 400."""
    api.enqueue(
        message_reply(tool_use("toolu_01", "triage", {})),
        message_reply(),  # end_turn with no content, as the API sometimes answers
        message_reply(text("Five problems (§ G).")),
        message_reply(text("Still five.")),
    )
    agent = Agent(
        AnthropicProvider.from_environment("claude-sonnet-5-5"),
        toolset_for("demo-eks"),
        settings=AgentSettings(stream=True, today="2026-12-01"),
    )

    assert agent.ask("my job hangs").answer == "Five problems (§ G)."
    assert agent.ask("and now?").answer == "Still five."
    assert api.requests[2].body["messages"][-1]["content"][-1] == {"type": "text", "text": NUDGE}


def test_the_notice_is_the_softwares_text_not_the_models() -> None:
    """Graders read `model_text` as what the model wrote: it wrote nothing."""
    agent, _, events = _agent({"text": ""}, {"text": " \n"})
    result = agent.ask("hello")
    assert result.answer == notice("en")
    assert result.model_text == ""
    # Each model answer is logged as it came; the notice is the loop's own event.
    assert [e["text"] for e in events if e["type"] == "assistant"] == ["", " \n"]
    assert {"type": "empty_answer", "asked_again": False, "notice": notice("en")} in events


def test_a_case_drafted_from_a_turn_with_empty_answers_replays_it(tmp_path: Path) -> None:
    """`eval new` scripts the model from the transcript's assistant events: the empty answers
    are scripted as empty, so the replay ends the turn with the notice again, rather than a
    model that says the notice."""
    from agent.transcript import Transcript
    from evals.agent_eval.draft import draft_case

    transcript = Transcript()
    provider = ScriptedProvider.from_turns(
        [{"tool_calls": [{"name": "triage"}]}, {"text": ""}, {"text": ""}]
    )
    agent = Agent(provider, toolset_for("demo-eks"), on_event=transcript.add)
    first = agent.ask("my job hangs")
    transcript.save(tmp_path / "t.jsonl")

    case = draft_case([recording_path("demo-eks")], tmp_path / "t.jsonl", tmp_path / "case")
    replay = Agent(ScriptedProvider.from_file(case / SCRIPT_FILE), toolset_for("demo-eks")).ask(
        "my job hangs"
    )
    assert (
        (replay.answer, replay.model_calls)
        == (first.answer, first.model_calls)
        == (
            notice("en"),
            3,
        )
    )


def test_a_blank_text_beside_a_tool_call_is_not_kept() -> None:
    """A model may write a whitespace-only text block before its tool call; kept, it would
    make every later request a 400 (the scripted provider refuses such a history too)."""
    agent, provider, _ = _agent(
        {"text": "\n\n", "tool_calls": [{"name": "triage"}]},
        {"text": "Five problems (§ G)."},
        {"text": "Still five."},
    )
    assert agent.ask("my job hangs").answer == "Five problems (§ G)."
    assert agent.ask("and now?").answer == "Still five."
    call: Any = agent.messages[1]["content"]
    assert [b["type"] for b in call] == ["tool_use"]
    assert pairing_problem(provider.requests[-1].messages) is None
